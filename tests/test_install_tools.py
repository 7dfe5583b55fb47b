"""README's second install form, run for real: the `pipx` and `uv tool` commands of README's
"Install and run" block, exactly as written there, from a fresh copy of the checkout, into
throwaway pipx and uv homes; then the installed `torchdoctor` itself. pipx and uv come from
PyPI through the test extra. uv does not read pip's configuration (its find-links, extra
indexes, constraints): it needs nothing of it, since torchdoctor's own requirements (click,
packaging, psutil, and setuptools to build) are ordinary PyPI packages."""

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What building the project reads: a checkout holds more, none of which a build may need.
BUILD_INPUTS = ("setup.cfg", "setup.py", "pyproject.toml", "README.md")
FIXABLE = "import torch\n\ntorch.set_deterministic(True)\n"


def readme_forms():
    """(pipx commands, uv commands) of README's install block: each line a pipx command,
    with its uv equivalent in the comment after `or:`."""
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = readme.split("## Install and run", 1)[1].split("\n## ", 1)[0]
    block = next(b for b in re.findall(r"```sh\n(.*?)```", section, re.S) if "pipx install" in b)
    pipx, uv = [], []
    for line in block.splitlines():
        command, _, comment = line.partition("#")
        if command.strip():
            pipx.append(shlex.split(command))
        if "or: " in comment:
            uv.append(shlex.split(comment.split("or: ", 1)[1]))
    return pipx, uv


def test_readme_gives_both_tools_the_same_three_forms():
    pipx, uv = readme_forms()
    assert [c[:2] for c in pipx] == [["pipx", "install"], ["pipx", "install"], ["pipx", "inject"]], pipx
    assert all(c[:3] == ["uv", "tool", "install"] for c in uv) and len(uv) == 3, uv
    # the project is `.`, the root of the checkout: `./torchdoctor` is the package folder
    assert all("./torchdoctor" not in c for c in pipx + uv)


def _tool(name):
    if importlib.util.find_spec(name) is None:
        pytest.skip("%s is not installed here: the test extra brings it (pip install -e '.[test]')" % name)
    return [sys.executable, "-m", name]


@pytest.fixture
def checkout(tmp_path):
    src = tmp_path / "checkout"
    src.mkdir()
    for name in BUILD_INPUTS:
        shutil.copy(os.path.join(ROOT, name), str(src / name))
    shutil.copytree(os.path.join(ROOT, "torchdoctor"), str(src / "torchdoctor"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return src


def run(argv, env, cwd, timeout=600):
    p = subprocess.run(argv, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, "%s exited %d:\n%s\n%s" % (" ".join(argv), p.returncode, p.stdout[-3000:],
                                                        p.stderr[-3000:])
    return p


def works(bindir, env, tmp_path, with_lint):
    """The installed command answers, and with the lint extra rewrites code."""
    exe = os.path.join(str(bindir), "torchdoctor")
    assert os.path.isfile(exe), os.listdir(str(bindir))
    assert "torchdoctor, version" in run([exe, "--version"], env, tmp_path).stdout
    out = run([exe, "explain", "--no-env", "RuntimeError: Torch not compiled with CUDA enabled"], env, tmp_path).stdout
    assert "[torch-not-compiled-with-cuda" in out
    if with_lint:
        (tmp_path / "fixme.py").write_text(FIXABLE)
        p = subprocess.run([exe, "lint", "--torch", "2.1", "--diff", "fixme.py"], env=env, cwd=str(tmp_path),
                           capture_output=True, text=True, timeout=300)
        assert "+torch.use_deterministic_algorithms(True)" in p.stdout, p.stdout + p.stderr


def fix_hint(bindir, env, tmp_path):
    """The command an install without LibCST names when asked to --fix (one line, exit 2)."""
    (tmp_path / "fixme.py").write_text(FIXABLE)
    p = subprocess.run([os.path.join(str(bindir), "torchdoctor"), "lint", "--torch", "2.1", "--fix", "fixme.py"],
                       env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=300)
    said = "torchdoctor: error: --fix and --diff need LibCST (the lint extra): "
    assert p.returncode == 2 and p.stderr.startswith(said) and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert (tmp_path / "fixme.py").read_text() == FIXABLE
    return shlex.split(p.stderr.strip()[len(said):])


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIPX_", "UV_", "VIRTUAL_ENV", "PYTHONPATH", "TORCHDOCTOR_"))}
    env.update(extra)
    return env


def test_pipx_installs_the_checkout_as_readme_says(checkout, tmp_path):
    pipx = _tool("pipx")
    home = tmp_path / "pipx"
    env = clean_env(PIPX_HOME=str(home / "home"), PIPX_BIN_DIR=str(home / "bin"), PIPX_MAN_DIR=str(home / "man"),
                    PIPX_DEFAULT_PYTHON=sys.executable)
    (plain, extra, inject) = readme_forms()[0]
    run(pipx + plain[1:], env, checkout)
    works(home / "bin", env, tmp_path, with_lint=False)
    # what `lint --fix` says to run is README's inject form, which the next step runs
    assert fix_hint(home / "bin", env, tmp_path) == inject
    run(pipx + inject[1:], env, checkout)
    works(home / "bin", env, tmp_path, with_lint=True)
    # The extra form is the other way to the same tool: from scratch.
    run(pipx + ["uninstall", "torchdoctor"], env, checkout)
    run(pipx + extra[1:], env, checkout)
    works(home / "bin", env, tmp_path, with_lint=True)


def test_uv_installs_the_checkout_as_readme_says(checkout, tmp_path):
    uv = _tool("uv")
    home = tmp_path / "uv"
    env = clean_env(UV_TOOL_DIR=str(home / "tools"), UV_TOOL_BIN_DIR=str(home / "bin"),
                    UV_CACHE_DIR=str(home / "cache"), UV_PYTHON=sys.executable, UV_NO_CONFIG="1")
    (plain, extra, with_) = readme_forms()[1]
    run(uv + plain[1:], env, checkout)
    works(home / "bin", env, tmp_path, with_lint=False)
    # what `lint --fix` says to run, run as said: it adds LibCST to the tool's own environment
    hint = fix_hint(home / "bin", env, tmp_path)
    assert hint[:4] == ["uv", "pip", "install", "--python"] and hint[-1] == "libcst", hint
    run(uv + hint[1:], env, tmp_path)
    works(home / "bin", env, tmp_path, with_lint=True)
    for form in (extra, with_):
        run(uv + ["tool", "uninstall", "torchdoctor"], env, checkout)
        run(uv + form[1:], env, checkout)
        works(home / "bin", env, tmp_path, with_lint=True)


def test_the_wheel_holds_the_code_and_data_and_the_build_warns_of_nothing(checkout, tmp_path):
    """The files a verb reads at run time are in the wheel (the data folders hold no
    `__init__.py`), the maintainers' catalogue is not, and setuptools has nothing to say about
    the package layout ("Package would be ignored" meant a future release drops the data)."""
    out = tmp_path / "wheel"
    p = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v", "-w", str(out),
             str(checkout)], clean_env(), tmp_path)
    said = p.stdout + p.stderr
    assert "would be ignored" not in said and "absent from the `packages` configuration" not in said, said[-3000:]
    [wheel] = os.listdir(str(out))
    with zipfile.ZipFile(str(out / wheel)) as zf:
        held = {n for n in zf.namelist() if not n.split("/", 1)[0].endswith(".dist-info")}
    expected = set()
    for folder, _, files in os.walk(str(checkout / "torchdoctor")):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), str(checkout)).replace(os.sep, "/")
            if name.endswith((".py", ".json")) and "/kb/catalogue/" not in rel:
                expected.add(rel)
    assert held == expected, (sorted(expected - held)[:20], sorted(held - expected)[:20])
    assert any(n.startswith("torchdoctor/kb/errors/") for n in held)
