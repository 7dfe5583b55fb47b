"""`torchdoctor lint --fix` never damages a user's file: real processes on real files (links, hard
links, read-only and foreign-owned files, files changed while the scan ran, large files)."""

import os
import stat
import subprocess
import textwrap

import pytest

from conftest import write_file as write
from test_verbs_lint_cli import PY, run

pytest.importorskip("libcst")

SDP = textwrap.dedent("""\
    import torch

    def attn(q, k, v):
        with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v)
""")
FIXED_LINE = "    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):"
# Another program with a `with` at the very place the scan found sdp_kernel
OTHER = 'import torch\n\ndef attn(q, k, v):\n    with open("results.csv", "w") as fh:\n        fh.write("done")\n'


def read(path):
    with open(str(path), "rb") as f:
        return f.read()


def _run_with_editor(tmp_path, after, *args):
    """`torchdoctor lint` in a real process in which the file is edited (as an editor or a git
    checkout would) right after the function `after` ("module.function" of torchdoctor.verbs.lint)
    returns."""
    module, function = after.split(".")
    code = textwrap.dedent("""\
        import sys
        import torchdoctor.verbs.lint.{module} as m
        real = m.{function}
        def edited(*a, **k):
            out = real(*a, **k)
            with open("m.py", "w") as f:
                f.write({new!r})
            return out
        m.{function} = edited
        from torchdoctor.cli import main
        main(sys.argv[1:])
    """).format(module=module, function=function, new=OTHER)
    p = subprocess.run([PY, "-c", code, "lint"] + list(args), capture_output=True, text=True, cwd=str(tmp_path),
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_a_file_changed_after_the_scan_is_not_rewritten(tmp_path):
    write(tmp_path, "m.py", SDP)
    rc, out, err = _run_with_editor(tmp_path, "runner.scan", "--torch", "2.4", "--fix", "m.py")
    assert read(tmp_path / "m.py").decode() == OTHER
    assert "Fixed" not in out
    assert "m.py: changed since it was scanned: not fixed" in err
    assert "Traceback" not in err


def test_a_file_changed_while_the_rewrite_is_computed_is_not_replaced(tmp_path):
    write(tmp_path, "m.py", SDP)
    # edited while LibCST worked: the last look, just before the rename, must see it
    rc, out, err = _run_with_editor(tmp_path, "fix.apply", "--torch", "2.4", "--fix", "m.py")
    assert read(tmp_path / "m.py").decode() == OTHER
    assert "m.py: changed since it was scanned: not fixed" in err and "Fixed" not in out
    assert [n for n in os.listdir(str(tmp_path)) if n != "m.py"] == []  # no temporary file left behind


def test_line_endings_bom_and_encoding_are_kept(tmp_path):
    crlf = b"\xef\xbb\xbf" + SDP.replace("\n", "\r\n").encode()
    write(tmp_path, "crlf.py", crlf, mode="wb")
    latin = ("# -*- coding: latin-1 -*-\n" + SDP.replace("def attn", "# caf\xe9\ndef attn")
             + "s = '\xe9t\xe9'; torch.set_deterministic(True)\n").encode("latin-1")
    write(tmp_path, "latin.py", latin, mode="wb")
    rc, out, err = run("--torch", "2.4", "--fix", "--ignore", "TD303", "crlf.py", "latin.py", cwd=tmp_path)
    assert "Fixed 3 findings in 2 files." in out, out + err
    new = read(tmp_path / "crlf.py")
    assert new.startswith(b"\xef\xbb\xbfimport torch\r\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\r\n")
    assert (FIXED_LINE + "\r\n").encode() in new and b"\n" not in new.replace(b"\r\n", b"")
    new = read(tmp_path / "latin.py")
    assert new.endswith("s = '\xe9t\xe9'; torch.use_deterministic_algorithms(True)\n".encode("latin-1"))
    assert b"# caf\xe9\n" in new and (FIXED_LINE + "\n").encode() in new


def test_the_write_is_atomic_and_keeps_mode_and_owner(tmp_path):
    path = write(tmp_path, "m.py", SDP)
    os.chmod(path, 0o640)
    if os.geteuid() == 0:
        os.chown(path, 4321, 4321)  # a file of another user that this one may write
    rc, out, err = run("--torch", "2.4", "--fix", "m.py", cwd=tmp_path)
    assert "Fixed 1 finding in 1 file." in out, err
    st = os.stat(path)
    assert stat.S_IMODE(st.st_mode) == 0o640
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (4321, 4321)
    assert FIXED_LINE in read(path).decode()
    assert os.listdir(str(tmp_path)) == ["m.py"]


def test_a_link_inside_the_tree_fixes_its_target(tmp_path):
    tree = tmp_path / "tree"
    real = write(tree, "real.py", SDP)
    os.symlink("real.py", str(tree / "alias.py"))  # found first: the scan reports it under its link's name
    rc, out, err = run("--torch", "2.4", "--fix", "tree", cwd=tmp_path)
    assert "Fixed 1 finding in 1 file." in out, err
    assert os.path.islink(str(tree / "alias.py")) and os.readlink(str(tree / "alias.py")) == "real.py"
    assert FIXED_LINE in read(real).decode()
    # named on the command line, the link is fixed through as well
    write(tree, "real.py", SDP)
    rc, out, err = run("--torch", "2.4", "--fix", "tree/alias.py", cwd=tmp_path)
    assert "Fixed 1 finding in 1 file." in out, err
    assert os.path.islink(str(tree / "alias.py")) and FIXED_LINE in read(real).decode()


def test_a_link_leaving_the_tree_is_refused(tmp_path):
    outside = write(tmp_path / "elsewhere", "lib.py", SDP)
    write(tmp_path / "tree", "own.py", "import torch\n")
    os.symlink(outside, str(tmp_path / "tree" / "ext.py"))
    rc, out, err = run("--torch", "2.4", "--fix", "tree", cwd=tmp_path)
    assert "Fixed" not in out
    assert "tree/ext.py: a symbolic link to %s, outside the linted tree: not fixed" % outside in err
    assert read(outside).decode() == SDP and os.path.islink(str(tmp_path / "tree" / "ext.py"))


def test_a_read_only_file_is_left_alone(tmp_path):
    path = write(tmp_path, "m.py", SDP)
    os.chmod(path, 0o444)
    rc, out, err = run("--torch", "2.4", "--fix", "m.py", cwd=tmp_path)
    assert read(path).decode() == SDP and stat.S_IMODE(os.stat(path).st_mode) == 0o444
    assert "m.py: read-only: not fixed" in err and "Fixed" not in out


def test_hard_links_all_see_the_fix(tmp_path):
    path = write(tmp_path, "tree/m.py", SDP)
    other = str(tmp_path / "m_copy.py")
    os.link(path, other)
    ino = os.stat(path).st_ino
    rc, out, err = run("--torch", "2.4", "--fix", "tree", cwd=tmp_path)
    assert "Fixed 1 finding in 1 file." in out, err
    st = os.stat(path)
    assert st.st_ino == ino and st.st_nlink == 2
    assert read(other) == read(path) and FIXED_LINE in read(path).decode()


def test_a_file_over_the_size_limit_is_linted_not_fixed(tmp_path):
    block = SDP.split("\n", 1)[1].replace("def attn", "def attn_%d")
    with open(str(tmp_path / "big.py"), "w") as f:
        f.write("import torch\n")
        for i in range((1024 * 1024) // len(block) + 1):
            f.write(block % i)
    before = read(tmp_path / "big.py")
    assert len(before) > 1024 * 1024
    rc, out, err = run("--torch", "2.4", "--fix", "big.py", cwd=tmp_path, timeout=300)
    assert read(tmp_path / "big.py") == before
    assert "big.py:4:10: TD201 [*] torch.backends.cuda.sdp_kernel is deprecated" in out and "Fixed" not in out
    assert "big.py: %d bytes, over the 1 MiB limit of --fix and --diff: not fixed" % len(before) in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs a file of another user (root)")
def test_a_file_whose_owner_cannot_be_kept_is_written_in_place(tmp_path, monkeypatch):
    from torchdoctor.verbs.lint import inplace
    path = write(tmp_path, "m.py", SDP)
    os.chown(path, 4321, 4321)
    ino = os.stat(path).st_ino

    def refuse(*_):  # what the kernel answers a user who is not root
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(os, "chown", refuse)
    inplace.replace(path, inplace.digest(SDP.encode()), b"fixed\n")
    st = os.stat(path)
    assert (st.st_ino, st.st_uid, st.st_gid) == (ino, 4321, 4321) and read(path) == b"fixed\n"
    assert os.listdir(str(tmp_path)) == ["m.py"]
