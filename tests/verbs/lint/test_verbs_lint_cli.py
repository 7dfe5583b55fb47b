"""`torchdoctor lint` as users run it: real processes, real files, real exit codes."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import write_file as write

PY = sys.executable
MPS = "import torch\nprint(torch.backends.mps.is_available())\n"


def run(*args, cwd=None, env=None, timeout=120):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.run([PY, "-m", "torchdoctor", "lint"] + list(args), capture_output=True, cwd=cwd, env=e,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def test_exit_codes_and_text_format(tmp_path):
    write(tmp_path, "ok.py", "import torch\nx = torch.backends.mps.is_available()\n")
    rc, out, err = run("--torch", "2.13", "ok.py", cwd=tmp_path)
    assert rc == 0 and "No findings in 1 file" in out and "target: torch 2.13 (2.13, from --torch)" in out
    rc, out, err = run("--torch", "1.11", "ok.py", cwd=tmp_path)
    assert rc == 1
    assert out.splitlines()[0] == ("ok.py:2:5: TD101 torch.backends.mps does not exist in torch 1.11 of the target "
                                   "(first in 1.12)")
    assert "\x1b[" not in out  # no colour when not a TTY
    rc, out, err = run("does-not-exist.py", cwd=tmp_path)
    assert rc == 2 and err.strip() == "torchdoctor: error: does-not-exist.py: no such file or directory"
    assert "Traceback" not in err
    rc, out, err = run("--torch", "banana", "ok.py", cwd=tmp_path)
    assert rc == 2 and err.startswith("torchdoctor: error: --torch:") and len(err.strip().splitlines()) == 1
    rc, out, err = run("--select", "TD999", "ok.py", cwd=tmp_path)
    assert rc == 2 and "unknown rule code 'TD999'" in err


def test_select_ignore_and_noqa(tmp_path):
    write(tmp_path, "a.py", """\
        import torch
        a = torch.backends.mps.is_available()
        b = torch.backends.mps.is_built()  # noqa: TD101
        c = torch.backends.mps.is_built()  # noqa
        d = torch.backends.mps.is_built()  # noqa: E501
        torch.use_deterministic_algorithms(True)
    """)
    rc, out, _ = run("--torch", "1.11", "a.py", cwd=tmp_path)
    lines = [l for l in out.splitlines() if l.startswith("a.py:")]
    assert [l.split()[1] for l in lines] == ["TD101", "TD101", "TD303"]
    assert lines[1].startswith("a.py:5:")
    rc, out, _ = run("--torch", "1.11", "--select", "TD3", "a.py", cwd=tmp_path)
    assert [l.split()[1] for l in out.splitlines() if l.startswith("a.py:")] == ["TD303"]
    rc, out, _ = run("--torch", "1.11", "--ignore", "TD1,TD303", "a.py", cwd=tmp_path)
    assert rc == 0


def test_pyproject_config(tmp_path):
    write(tmp_path, "pyproject.toml", """\
        [project]
        name = "demo"
        dependencies = ["torch>=2.1,<2.4"]

        [tool.torchdoctor.lint]
        ignore = ["TD303"]
        exclude = ["vendored/"]
    """)
    write(tmp_path, "src/m.py", "import torch\ntorch.use_deterministic_algorithms(True)\nfrom torch.nn.attention import sdpa_kernel\n")
    write(tmp_path, "vendored/v.py", MPS.replace("mps", "nope") + "from torch.nn.attention import SDPBackend\n")
    rc, out, err = run(cwd=tmp_path)
    assert rc == 1
    assert [l.split(":")[0] for l in out.splitlines() if ": TD" in l] == ["src/m.py"]
    assert "TD303" not in out and "TD101" in out
    assert "target: torch 2.1 ... 2.3 (<2.4,>=2.1, from pyproject.toml:3)" in out
    write(tmp_path, "pyproject.toml", "[tool.torchdoctor.lint]\nselct = ['TD1']\n")
    rc, out, err = run(cwd=tmp_path)
    assert rc == 2 and "unknown key 'selct'" in err


def test_extra_hint_by_install_kind(monkeypatch):
    import importlib.util
    from torchdoctor.verbs import extra_hint
    monkeypatch.setattr(sys, "prefix", os.path.join(os.sep, "home", "u", ".local", "share", "pipx", "venvs", "torchdoctor"))
    assert extra_hint.add_package("libcst") == "pipx inject torchdoctor libcst"
    monkeypatch.setattr(sys, "prefix", os.path.join(os.sep, "home", "u", ".local", "share", "uv", "tools", "torchdoctor"))
    assert extra_hint.add_package("libcst") == "uv pip install --python %s libcst" % sys.executable
    # a venv without pip (`uv venv`, then `uv pip install torchdoctor`): uv, into this interpreter
    monkeypatch.setattr(sys, "prefix", os.path.join(os.sep, "work", "proj", ".venv"))
    assert extra_hint.add_package("libcst") == "%s -m pip install libcst" % sys.executable
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pip" else real(name, *a))
    assert extra_hint.add_package("libcst") == "uv pip install --python %s libcst" % sys.executable


def test_target_order(tmp_path):
    write(tmp_path, "m.py", MPS)
    # nothing declared: the torch installed in --python (this interpreter has torch 2.13)
    rc, out, _ = run("--python", PY, "m.py", cwd=tmp_path)
    assert "from the torch installed in %s" % PY in out
    write(tmp_path, "requirements.txt", "torch==1.11.0\n")
    rc, out, _ = run("m.py", cwd=tmp_path)
    assert rc == 1 and "from requirements.txt" in out and "TD101" in out
    rc, out, _ = run("--torch", "2.4", "m.py", cwd=tmp_path)
    assert rc == 0 and "from --torch" in out


def test_json_format(tmp_path):
    write(tmp_path, "m.py", MPS)
    rc, out, _ = run("--torch", ">=1.11,<1.13", "--format", "json", "m.py", cwd=tmp_path)
    doc = json.loads(out)
    assert doc["schema_version"] == 1 and doc["tool"] == "torchdoctor lint"
    assert doc["target"] == {"torch": ["1.11", "1.12"], "spec": ">=1.11,<1.13", "source": "--torch", "cuda": None}
    (f,) = doc["findings"]
    assert {k: f[k] for k in ("path", "line", "column", "code", "name", "severity", "fixable", "cell")} == {
        "path": "m.py", "line": 2, "column": 7, "code": "TD101", "name": "api-not-yet-added", "severity": "error",
        "fixable": False, "cell": None}


def _required(obj, keys, where):
    for k in keys:
        assert k in obj, "%s lacks required %r" % (where, k)


def test_sarif_has_the_schema_required_fields(tmp_path):
    """The required properties of SARIF 2.1.0 (sarif-schema-2.1.0.json): sarifLog{version, runs},
    run{tool}, tool{driver}, toolComponent{name}, reportingDescriptor{id}, result{message},
    message{text|id}, plus its constraints on what we emit (version "2.1.0", 1-based regions,
    ruleIndex into driver.rules, level enum)."""
    write(tmp_path, "m.py", MPS + "torch.set_deterministic(True)\n")
    rc, out, _ = run("--torch", "1.11", "--format", "sarif", "m.py", cwd=tmp_path)
    assert rc == 1
    log = json.loads(out)
    _required(log, ("version", "runs"), "sarifLog")
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    _required(run_, ("tool",), "run")
    _required(run_["tool"], ("driver",), "tool")
    driver = run_["tool"]["driver"]
    _required(driver, ("name",), "toolComponent")
    for r in driver["rules"]:
        _required(r, ("id",), "reportingDescriptor")
        assert r["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
    assert len(run_["results"]) == 2
    for res in run_["results"]:
        _required(res, ("message",), "result")
        assert "text" in res["message"] or "id" in res["message"]
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("none", "note", "warning", "error")
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "m.py"
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1


def test_github_format(tmp_path):
    write(tmp_path, "m.py", MPS)
    rc, out, _ = run("--torch", "1.11", "--format", "github", "m.py", cwd=tmp_path)
    lines = out.splitlines()
    assert lines[0].startswith("::error file=m.py,line=2,col=7,endLine=2,title=TD101 api-not-yet-added::"
                               "torch.backends.mps does not exist")
    assert lines[-1].startswith("::notice title=torchdoctor lint::1 finding(s) in 1 file; target")


def test_the_count_names_the_files_with_findings(tmp_path):
    write(tmp_path, "two.py", MPS + "y = torch.backends.mps.is_built()\n")
    write(tmp_path, "clean.py", "import torch\n")
    rc, out, _ = run("--torch", "1.11", "two.py", "clean.py", cwd=tmp_path)
    assert rc == 1 and "Found 2 findings in 1 of 2 files" in out, out


def test_bad_files_do_not_stop_the_scan(tmp_path):
    write(tmp_path, "broken.py", "def f(:\n")
    write(tmp_path, "blob.py", b"\x00\x01binary", mode="wb")
    os.symlink(str(tmp_path / "gone.py"), str(tmp_path / "dangling.py"))
    write(tmp_path, "m.py", MPS)
    rc, out, err = run("--torch", "1.11", ".", cwd=tmp_path)
    assert rc == 1
    assert "broken.py:1:7: TD000 syntax error for Python" in out and "m.py:2:7: TD101" in out
    assert "blob.py: skipped, binary file" in err and "dangling.py: skipped, cannot read it" in err
    assert "Traceback" not in err


def test_notebook_cells(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "source": ["# title"]},
                    {"cell_type": "code", "source": ["%matplotlib inline\n", "import torch\n"]},
                    {"cell_type": "code", "source": ["!pip install torch==2.1.0 torchvision==0.17.0\n",
                                                     "x = torch.backends.mps.is_available()\n"]},
                    {"cell_type": "code", "source": "def broken(:\n"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write(tmp_path, "nb.ipynb", json.dumps(nb))
    rc, out, _ = run("--torch", "1.11", "nb.ipynb", cwd=tmp_path)
    assert "nb.ipynb:cell 3:2:5: TD101 torch.backends.mps" in out
    assert "nb.ipynb:cell 4:1:12: TD000" in out
    assert "nb.ipynb:cell 3:1:1: TD401 torchvision==0.17.0" in out


def test_gitignore_and_exclude(tmp_path):
    write(tmp_path, ".gitignore", "build_out/\n*.gen.py\n!keep.gen.py\n/top.py\n")
    for name in ("a.py", "build_out/b.py", "x.gen.py", "keep.gen.py", "top.py", "sub/top.py", "skipme/c.py",
                 ".venv/lib/d.py"):
        write(tmp_path, name, MPS)
    os.makedirs(str(tmp_path / ".git"))
    rc, out, _ = run("--torch", "1.11", "--exclude", "skipme", ".", cwd=tmp_path)
    files = sorted({l.split(":")[0] for l in out.splitlines() if ": TD" in l})
    assert files == ["a.py", "keep.gen.py", "sub/top.py"]
    # a file named on the command line is linted even if .gitignore lists it
    rc, out, _ = run("--torch", "1.11", "top.py", cwd=tmp_path)
    assert "top.py:2:7: TD101" in out


def test_fix_and_diff(tmp_path):
    pytest.importorskip("libcst")
    src = textwrap.dedent("""\
        \"\"\"Doc.\"\"\"
        import torch  # the one import

        def run(q, k, v):
            torch.set_deterministic(True)   # keep this comment
            with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v)
    """)
    path = write(tmp_path, "m.py", src)
    os.chmod(path, 0o640)
    rc, out, _ = run("--torch", "2.4", "--diff", "m.py", cwd=tmp_path)
    assert rc == 1
    assert "+from torch.nn.attention import SDPBackend, sdpa_kernel\n" in out
    assert "+    torch.use_deterministic_algorithms(True)   # keep this comment\n" in out
    assert "+    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):\n" in out
    with open(path) as f:
        assert f.read() == src  # --diff writes nothing
    rc, out, _ = run("--torch", "2.4", "--fix", "--ignore", "TD303", "m.py", cwd=tmp_path)
    assert rc == 0 and "Fixed 2 findings in 1 file." in out
    with open(path) as f:
        fixed = f.read()
    assert fixed.splitlines()[:3] == ['"""Doc."""', "import torch  # the one import",
                                      "from torch.nn.attention import SDPBackend, sdpa_kernel"]
    assert oct(os.stat(path).st_mode & 0o777) == "0o640"
    compile(fixed, "m.py", "exec")
    # a target with 2.2 in it has no sdpa_kernel: nothing to rewrite there
    write(tmp_path, "old.py", src)
    rc, out, _ = run("--torch", ">=2.2,<2.5", "--diff", "old.py", cwd=tmp_path)
    assert "sdpa_kernel([" not in out and "+    torch.use_deterministic_algorithms(True)" in out


def test_each_use_of_a_from_imported_deprecated_name_is_reported_and_fixed(tmp_path):
    pytest.importorskip("libcst")
    src = textwrap.dedent("""\
        from torch.backends.cuda import sdp_kernel as sk

        def a(q):
            with sk(enable_math=False):
                return q

        def b(q):
            with sk(enable_flash=False, enable_cudnn=False):
                return q
    """)
    write(tmp_path, "m.py", src)
    rc, out, _ = run("--torch", "2.4", "m.py", cwd=tmp_path)
    assert "m.py:4:10: TD201 [*]" in out and "m.py:8:10: TD201 [*]" in out and "m.py:1:33: TD201" in out
    rc, out, _ = run("--torch", "2.4", "--fix", "m.py", cwd=tmp_path)
    assert "Fixed 2 findings in 1 file." in out
    with open(str(tmp_path / "m.py")) as f:
        fixed = f.read()
    assert "    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, " \
           "SDPBackend.CUDNN_ATTENTION]):\n" in fixed
    assert "    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):\n" in fixed
    compile(fixed, "m.py", "exec")


def test_replacement_advice_respects_the_target_range(tmp_path):
    write(tmp_path, "m.py", "import torch\nscaler = torch.cuda.amp.GradScaler()\n"
                            "from torch.backends.cuda import sdp_kernel\nwith sdp_kernel(enable_math=False):\n    pass\n")
    rc, out, _ = run("--torch", ">=2.0", "m.py", cwd=tmp_path)
    assert "its replacement torch.amp.GradScaler(\"cuda\", ...) exists only from torch 2.3, not in 2.0 ... 2.2" in out
    assert "use torch.amp" not in out and "[*]" not in out and "fixable" not in out
    rc, out, _ = run("--torch", ">=2.4", "m.py", cwd=tmp_path)
    assert "use torch.amp.GradScaler(\"cuda\", ...)" in out and "m.py:4:6: TD201 [*]" in out


def test_deterministic_without_algorithms_looks_at_every_file(tmp_path):
    os.makedirs(str(tmp_path / ".git"))
    write(tmp_path, "seed.py", "import torch\ntorch.backends.cudnn.deterministic = True\n")
    rc, out, _ = run("--torch", "2.13", ".", cwd=tmp_path)
    assert "seed.py:2:1: TD307" in out
    write(tmp_path, "main.py", "import torch\ntorch.use_deterministic_algorithms(True)\n")
    rc, out, _ = run("--torch", "2.13", ".", cwd=tmp_path)
    assert "TD307" not in out


def test_fix_without_libcst_is_one_line(tmp_path):
    write(tmp_path, "m.py", MPS)
    code = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'libcst' or name.startswith('libcst.'):\n            raise ImportError('no libcst')\n"
            "sys.meta_path.insert(0, Block())\nfrom torchdoctor.cli import main\n"
            "main(['lint', '--fix', 'm.py'])\n")
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2
    # the command that adds it to this install (a checkout or pip: this interpreter's pip), not
    # `pip install "torchdoctor[lint]"`, which no index serves
    assert p.stderr.strip() == ("torchdoctor: error: --fix and --diff need LibCST (the lint extra): "
                                "%s -m pip install libcst" % PY)


def test_parallel_and_serial_agree(tmp_path):
    for i in range(70):
        write(tmp_path, "pkg/m%02d.py" % i, MPS if i % 3 else "import torch\ntorch.use_deterministic_algorithms(True)\n")
    a = run("--torch", "1.11", "--format", "json", "-j", "1", "pkg", cwd=tmp_path)
    b = run("--torch", "1.11", "--format", "json", "-j", "2", "pkg", cwd=tmp_path)
    assert json.loads(a[1])["findings"] == json.loads(b[1])["findings"]
    assert len(json.loads(a[1])["findings"]) == 70


def test_cublas_config_anywhere_in_the_scan_counts(tmp_path):
    write(tmp_path, "train.py", "import torch\ntorch.use_deterministic_algorithms(True)\n")
    rc, out, _ = run("--torch", "2.4", ".", cwd=tmp_path)
    assert "TD303" in out
    write(tmp_path, "Dockerfile", "FROM python:3.11\nENV CUBLAS_WORKSPACE_CONFIG=:4096:8\n")
    rc, out, _ = run("--torch", "2.4", ".", cwd=tmp_path)
    assert rc == 0, out


def test_full_stdout_is_not_a_traceback(tmp_path):
    write(tmp_path, "m.py", MPS)
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        p = subprocess.run([PY, "-m", "torchdoctor", "lint", "--torch", "1.11", "m.py"], stdout=full,
                           stderr=subprocess.PIPE, cwd=str(tmp_path), timeout=120)
    assert b"Traceback" not in p.stderr and p.returncode != 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_the_tree_is_skipped_not_waited_for(tmp_path):
    os.mkfifo(str(tmp_path / "pipe.py"))  # opening it to read would wait for a writer forever
    write(tmp_path, "m.py", MPS)
    rc, out, err = run("--torch", "1.11", ".", cwd=tmp_path, timeout=60)
    assert rc == 1 and "m.py:2:7: TD101" in out
    assert "pipe.py: skipped, not a regular file" in err


def test_explain_prints_the_rules_documentation(tmp_path):
    rc, out, err = run("--explain", "td106", cwd=tmp_path)
    assert rc == 0 and out.startswith("# TD106 `function-not-called`") and "## Why it matters" in out
    assert "if torch.backends.mps.is_available:" in out   # its examples come with it
    rc, out, err = run("--explain", "TD999", cwd=tmp_path)
    assert rc == 2 and out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "no such rule" in err


def test_the_backends_questions_of_a_real_file(tmp_path):
    write(tmp_path, "train.py", """\
        import torch
        import torch.backends.cudnn as cudnn
        print(cudnn.ver)
        torch.backends.cudnn.benchmark()
        if torch.backends.mps.is_available:
            device = "mps"
    """)
    rc, out, err = run("--torch", "2.13", "train.py", cwd=tmp_path)
    assert rc == 1
    got = [line.split(" ")[:2] for line in out.splitlines()[:-1]]
    assert got == [["train.py:3:7:", "TD104"], ["train.py:4:1:", "TD105"], ["train.py:5:4:", "TD106"]], out
    assert "did you mean torch.backends.cudnn.version()?" in out


def test_show_suppressed_lists_what_guards_and_noqa_hid(tmp_path):
    write(tmp_path, "g.py", """\
        import torch
        torch.backends.mps.is_available()  # noqa: TD101
        has_compile = hasattr(torch, "compile")
        assert has_compile
        torch.compile
        if torch.__version__ >= "2.3":
            ctx = torch.backends.cuda.sdp_kernel()
    """)
    rc, out, err = run("--torch", ">=1.11", "g.py", cwd=tmp_path)
    assert rc == 1 and "Suppressed" not in out
    assert [l.split(": ")[1].split()[0] for l in out.splitlines()[:-1]] == ["TD201"]
    rc, out, err = run("--torch", ">=1.11", "--show-suppressed", "g.py", cwd=tmp_path)
    assert rc == 1, err
    lines = out.splitlines()
    at = lines.index("Suppressed: 3 findings hidden by guards or noqa:")
    hidden = lines[at + 1:-1]
    assert hidden[0].startswith("  g.py:2:1: TD101 torch.backends.mps") and hidden[1] == "      hidden by # noqa: TD101 on its line"
    assert hidden[2].startswith("  g.py:5:1: TD101 torch.compile does not exist")
    assert hidden[3] == ("      hidden by guard at line 4 `has_compile` (has_compile = hasattr(torch, 'compile') "
                         "at line 3): names torch.compile (torch >=2.0)")
    assert hidden[4].startswith("  g.py:7:11: TD101 torch.backends.cuda.sdp_kernel")
    assert hidden[5] == "      hidden by guard at line 6 `torch.__version__ >= '2.3'`: lets through torch >=2.3 only"
    rc, out, err = run("--torch", ">=1.11", "--show-suppressed", "--format", "json", "g.py", cwd=tmp_path)
    doc = json.loads(out)
    assert [f["code"] for f in doc["findings"]] == ["TD201"]
    assert [(f["line"], f["code"]) for f in doc["suppressed"]] == [(2, "TD101"), (5, "TD101"), (7, "TD101")]
    assert doc["suppressed"][2]["suppressed_by"].startswith("guard at line 6")
    rc, out, err = run("--torch", ">=1.11", "--format", "json", "g.py", cwd=tmp_path)
    assert "suppressed" not in json.loads(out)
