"""Fix commands of knowledge-base entries run against a real broken environment: the error is
made for real in a fresh venv with this machine's pip configuration, explain names the entry on
the real message, and the entry's own command heals the venv."""

import os
import shlex
import subprocess
import sys
import venv

import pytest

from torchdoctor.kb.errors import get_entry
from torchdoctor.match.matcher import match_text

from conftest import TORCH_PYTHON, needs_torch


def _run(argv, timeout=600):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def _venv(tmp_path):
    """A fresh venv with pip under tmp_path: its interpreter."""
    env_dir = str(tmp_path / "venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    return os.path.join(env_dir, "Scripts" if sys.platform == "win32" else "bin", "python")


def test_pkg_resources_removed_is_healed_by_its_own_command(tmp_path):
    py = _venv(tmp_path)
    # setuptools 82 and later ship no pkg_resources.
    p = _run([py, "-m", "pip", "install", "--quiet", "setuptools>=82"])
    assert p.returncode == 0, p.stderr[-2000:]
    broken = _run([py, "-c", "import pkg_resources"])
    assert broken.returncode != 0
    found = match_text(broken.stderr)
    assert found and found[0].id == "pkg-resources-removed", broken.stderr[-500:]
    fix = [c for c in get_entry("pkg-resources-removed").fix["commands"] if "install" in c]
    assert fix == ['python -m pip install "setuptools<82"']
    argv = shlex.split(fix[0])
    p = _run([py] + argv[1:] + ["--quiet"])
    assert p.returncode == 0, p.stderr[-2000:]
    healed = _run([py, "-c", "import pkg_resources"])
    assert healed.returncode == 0, healed.stderr[-500:]


@needs_torch
def test_a_checkpoint_of_an_unknown_device_loads_with_the_entrys_map_location(tmp_path):
    # A checkpoint saved where its storages carry a device tag this torch has no deserializer for
    # (npu:0: an Ascend NPU's torch_npu): the real error, named by explain, healed by the fix.
    ckpt = tmp_path / "model.pt"
    make = ("import torch, torch.serialization as S, sys\n"
            "S.register_package(1, lambda s: 'npu:0', lambda s, l: None)\n"
            "torch.save({'w': torch.ones(3)}, sys.argv[1])\n")
    p = _run([TORCH_PYTHON, "-c", make, str(ckpt)])
    assert p.returncode == 0, p.stderr[-2000:]
    broken = _run([TORCH_PYTHON, "-c", "import torch, sys; torch.load(sys.argv[1])", str(ckpt)])
    assert broken.returncode != 0
    found = match_text(broken.stderr)
    assert found and found[0].id == "torch-load-unknown-device-tag", broken.stderr[-500:]
    (fix,) = get_entry("torch-load-unknown-device-tag").fix["commands"]
    argv = shlex.split(fix.replace("model.pt", shlex.quote(str(ckpt))))
    healed = _run([TORCH_PYTHON] + argv[1:])
    assert healed.returncode == 0 and "dict" in healed.stdout, healed.stderr[-500:]


_DISPATCH = r'''
import sys, torch
from torch.utils.cpp_extension import load_inline
src = """
#include <torch/extension.h>
torch::Tensor twice(torch::Tensor x) {
  auto y = torch::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES(x.type(), "twice", [&] {
    auto a = x.data_ptr<scalar_t>(); auto b = y.data_ptr<scalar_t>();
    for (int64_t i = 0; i < x.numel(); ++i) b[i] = 2 * a[i];
  });
  return y;
}
"""
if sys.argv[2] == "fixed":
    src = src.replace("x.type()", "x.scalar_type()")
m = load_inline("twice_" + sys.argv[2], cpp_sources=src, functions=["twice"], build_directory=sys.argv[1])
print(m.twice(torch.ones(3)).tolist())
'''


@needs_torch
@pytest.mark.slow
def test_an_extension_dispatching_on_tensor_type_builds_after_the_entrys_rewrite(tmp_path):
    # An extension written for an old torch passes x.type() to AT_DISPATCH_*: this torch's headers
    # refuse it for real; explain names the entry; the rewrite its fix states builds and runs.
    probe = _run([TORCH_PYTHON, "-c", "import shutil, torch.utils.cpp_extension as c; "
                  "print(c.is_ninja_available() and bool(shutil.which('c++')))"])
    if probe.stdout.strip() != "True":
        pytest.skip("no C++ compiler or ninja for torch's extension builder")
    script = tmp_path / "build.py"
    script.write_text(_DISPATCH)
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    broken = _run([TORCH_PYTHON, str(script), str(tmp_path / "old"), "old"])
    assert broken.returncode != 0
    found = match_text(broken.stdout + broken.stderr)
    assert found and found[0].id == "extension-source-uses-removed-torch-api", (broken.stdout + broken.stderr)[-1500:]
    entry = get_entry("extension-source-uses-removed-torch-api")
    assert "AT_DISPATCH_*(x.type(), ...) -> AT_DISPATCH_*(x.scalar_type(), ...)" in entry.fix["summary"]
    # The entry's read-only search finds the offending source where the builder wrote it.
    grep = subprocess.run(["bash", "-c", entry.fix["commands"][0]], capture_output=True, text=True, timeout=60,
                          cwd=str(tmp_path / "old"))
    assert grep.returncode == 0 and "main.cpp" in grep.stdout, (grep.returncode, grep.stdout, grep.stderr)
    healed = _run([TORCH_PYTHON, str(script), str(tmp_path / "new"), "fixed"])
    assert healed.returncode == 0 and "[2.0, 2.0, 2.0]" in healed.stdout, healed.stderr[-1500:]


@needs_torch
def test_a_checkpoint_with_a_position_ids_buffer_loads_after_the_entrys_rewrite(tmp_path):
    # A state dict saved while transformers kept embeddings.position_ids persistent, loaded into a
    # model that no longer has that buffer: torch's real strict-load error, named by explain, healed
    # by the file rewrite the entry's fix gives.
    model = ("import torch\n"
             "class Emb(torch.nn.Module):\n"
             "    def __init__(self):\n"
             "        super().__init__(); self.word = torch.nn.Embedding(8, 4)\n"
             "class Bert(torch.nn.Module):\n"
             "    def __init__(self):\n"
             "        super().__init__(); self.embeddings = Emb()\n")
    make = model + ("import sys\nsd = Bert().state_dict(); sd['embeddings.position_ids'] = torch.arange(8)[None]\n"
                    "torch.save(sd, sys.argv[1])\n")
    load = model + "import sys\nBert().load_state_dict(torch.load(sys.argv[1])); print('loaded')\n"
    p = _run([TORCH_PYTHON, "-c", make, str(tmp_path / "model.pt")])
    assert p.returncode == 0, p.stderr[-2000:]
    broken = _run([TORCH_PYTHON, "-c", load, str(tmp_path / "model.pt")])
    assert broken.returncode != 0
    found = match_text(broken.stderr)
    assert found and found[0].id == "transformers-position-ids-state-dict-key", broken.stderr[-800:]
    (fix,) = [c for c in get_entry("transformers-position-ids-state-dict-key").fix["commands"] if "torch.save" in c]
    p = subprocess.run([TORCH_PYTHON] + shlex.split(fix)[1:], capture_output=True, text=True, timeout=600,
                       cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-2000:]
    healed = _run([TORCH_PYTHON, "-c", load, str(tmp_path / "model_fixed.pt")])
    assert healed.returncode == 0 and "loaded" in healed.stdout, healed.stderr[-800:]


_CHECK_FAIL = r'''
#include <string>
namespace c10 { namespace detail {
[[noreturn]] void torchCheckFail(const char*, const char*, unsigned int, const std::string&);
} }
int main(int argc, char**) {
  if (argc > 5) c10::detail::torchCheckFail("f", "file", 1, std::string("never"));
  return 0;
}
'''


@needs_torch
def test_a_program_linked_with_the_other_cxx_abi_links_after_the_entrys_abi_check(tmp_path):
    # A C++ program built with the ABI flag that does not match this torch's libc10 (an old-ABI
    # build against a torch built with the C++11 ABI, or the reverse): the real linker error, named
    # by explain; compiled with the ABI the entry's first command prints, it links and runs.
    import shutil
    cxx = shutil.which("g++") or shutil.which("c++")
    if not cxx or sys.platform != "linux":
        pytest.skip("needs a GNU C++ compiler on Linux")
    lib = _run([TORCH_PYTHON, "-c", "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))"])
    assert lib.returncode == 0, lib.stderr[-800:]
    lib = lib.stdout.strip()
    # The ABI comes from the entry's own first command, run with this torch's Python.
    entry = get_entry("libtorch-cxx11-abi-flavour-mismatch")
    shown = _run([TORCH_PYTHON] + shlex.split(entry.fix["commands"][0])[1:])
    assert shown.returncode == 0 and shown.stdout.split()[-1] in ("True", "False"), (shown.stdout, shown.stderr[-800:])
    abi = "1" if shown.stdout.split()[-1] == "True" else "0"
    src = tmp_path / "main.cpp"
    src.write_text(_CHECK_FAIL)
    if _run([cxx, "-c", str(src), "-o", str(tmp_path / "main.o")], timeout=300).returncode != 0:
        pytest.skip("this C++ compiler cannot build a plain program (no C++ headers)")

    def build(flag):
        return _run([cxx, "-D_GLIBCXX_USE_CXX11_ABI=%s" % flag, str(src), "-o", str(tmp_path / "prog"),
                     "-L" + lib, "-lc10", "-Wl,-rpath," + lib], timeout=300)

    broken = build("0" if abi == "1" else "1")
    assert broken.returncode != 0
    found = match_text(broken.stderr)
    assert found and found[0].id == "libtorch-cxx11-abi-flavour-mismatch", broken.stderr[-800:]
    healed = build(abi)
    assert healed.returncode == 0, healed.stderr[-800:]
    assert _run([str(tmp_path / "prog")]).returncode == 0


def _wheel(dirpath, name, version, requires, python=None, init=""):
    """A pure-Python wheel whose only content is its metadata: a package pinned to a torch range
    (and, given `python`, to a Requires-Python range); `init` is its __init__.py."""
    import zipfile
    dist = "%s-%s.dist-info" % (name, version)
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nRequires-Dist: %s\n" % (name, version, requires)
    if python:
        meta += "Requires-Python: %s\n" % python
    files = {
        "%s/__init__.py" % name: init,
        dist + "/METADATA": meta,
        dist + "/WHEEL": "Wheel-Version: 1.0\nGenerator: torchdoctor-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[dist + "/RECORD"] = "".join("%s,,\n" % f for f in list(files) + [dist + "/RECORD"])
    path = os.path.join(dirpath, "%s-%s-py3-none-any.whl" % (name, version))
    with zipfile.ZipFile(path, "w") as z:
        for f, body in files.items():
            z.writestr(f, body)
    return path


def _pinned_wheels(tmp_path):
    """A folder serving tdpinned 1.0 (torch<2.13) and 2.0 (torch>=2.13), as a user's index would."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(str(wheels), "tdpinned", "1.0", "torch<2.13")
    _wheel(str(wheels), "tdpinned", "2.0", "torch>=2.13")
    return wheels


def test_a_package_pinned_to_another_torch_is_healed_by_the_tailored_command(tmp_path):
    # A real venv with the real torch 2.13.0 (this machine's pip configuration finds it) and a
    # package whose release 1.0 pins torch<2.13: pip's own check prints the conflict, explain names
    # the entry and its hook spells the command that keeps this torch; run as printed (plus the
    # folder that serves the package, as the user's index would), pip moves the package to the
    # release that accepts torch 2.13 and leaves torch alone.
    wheels = _pinned_wheels(tmp_path)
    py = _venv(tmp_path)
    p = _run([py, "-m", "pip", "install", "--quiet", "torch==2.13.0"])
    if p.returncode != 0:
        pytest.skip("torch==2.13.0 is not installable here: " + p.stderr[-300:])
    p = _run([py, "-m", "pip", "install", "--quiet", "--no-deps", "--find-links", str(wheels), "tdpinned==1.0"])
    assert p.returncode == 0, p.stderr[-2000:]
    broken = _run([py, "-m", "pip", "check"])
    assert broken.returncode != 0 and "tdpinned 1.0 has requirement torch<2.13" in broken.stdout, broken.stdout
    found = match_text(broken.stdout)
    assert found and found[0].id == "pip-package-pins-other-torch", broken.stdout
    from torchdoctor.areas.companions.pins import tailor_package_pins
    from torchdoctor.model.facts import Facts
    tailored = tailor_package_pins(found[0], Facts())
    fix = tailored.commands[0]
    assert fix.endswith('-m pip install "tdpinned" "torch==2.13.0"') or fix.endswith(
        '-m pip install "tdpinned" "torch==2.13.0+cpu"'), fix
    argv = shlex.split(fix)
    p = _run([py] + argv[1:] + ["--quiet", "--find-links", str(wheels)])
    assert p.returncode == 0, p.stderr[-2000:]
    healed = _run([py, "-m", "pip", "check"])
    assert healed.returncode == 0, healed.stdout
    versions = _run([py, "-c", "import importlib.metadata as m; print(m.version('tdpinned'), m.version('torch'))"])
    assert versions.stdout.split()[0] == "2.0" and versions.stdout.split()[1].startswith("2.13.0"), versions.stdout


@needs_torch
def test_unsupported_operand_is_told_apart_by_the_hooks_first_bytes_command(tmp_path):
    # 'Unsupported operand N' from torch's weights-only reader: a real checkpoint pickled with a
    # protocol it does not read (4: FRAME, 149), or a Git LFS pointer ('v' is 118). The hook's command, run for real on each
    # file, prints what tells them apart; the checkpoint then loads with weights_only=False, and
    # the pointer fails there with the message the LFS entry names.
    from torchdoctor.areas.serialization import weights_only_failed
    from torchdoctor.model.facts import Facts
    ckpt, pointer = tmp_path / "old.pt", tmp_path / "lfs.pt"
    p = _run([TORCH_PYTHON, "-c", "import torch, sys; torch.save({'w': torch.ones(2)}, sys.argv[1], pickle_protocol=4)",
              str(ckpt)])
    assert p.returncode == 0, p.stderr[-2000:]
    pointer.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 1048576\n" % ("0" * 64))
    for path, pointer_like in ((ckpt, False), (pointer, True)):
        broken = _run([TORCH_PYTHON, "-c", "import torch, sys; torch.load(sys.argv[1])", str(path)])
        assert broken.returncode != 0 and "Unsupported operand" in broken.stderr, broken.stderr[-800:]
        found = match_text(broken.stderr)
        assert found and found[0].id == "torch-load-weights-only-failed", (path, [m.id for m in found])
        tailored = weights_only_failed(found[0], Facts())
        argv = shlex.split(tailored.commands[0])
        shown = _run([TORCH_PYTHON] + argv[1:-1] + [str(path)])
        assert shown.returncode == 0, shown.stderr[-500:]
        assert shown.stdout.startswith("b'version https://git-lfs") == pointer_like, (path, shown.stdout[:80])
    healed = _run([TORCH_PYTHON, "-c", "import torch, sys; print(torch.load(sys.argv[1], weights_only=False)['w'].sum().item())",
                   str(ckpt)])
    assert healed.returncode == 0 and healed.stdout.strip() == "2.0", healed.stderr[-800:]
    still = _run([TORCH_PYTHON, "-c", "import torch, sys; torch.load(sys.argv[1], weights_only=False)", str(pointer)])
    assert still.returncode != 0
    assert [m.id for m in match_text(still.stderr)][:1] == ["checkpoint-git-lfs-pointer"], still.stderr[-500:]


def test_pips_conflict_line_is_read_by_the_symptom_entrys_commands(tmp_path):
    # A real requirements file pinning torch 2.13.0 beside a package whose 1.0 pins torch<2.13:
    # the real pip refuses with the conflict line (the symptom entry's, alone) and the line that
    # names the cause (the pinned-package entry's). The symptom entry's commands, run for real with
    # this machine's pip configuration, print that cause and the torch releases the indexes hold;
    # loosening the pin, as its fix says, resolves.
    wheels = _pinned_wheels(tmp_path)
    py = _venv(tmp_path)
    reqs = tmp_path / "requirements.txt"
    reqs.write_text("torch==2.13.0\ntdpinned==1.0\n")
    links = ["--find-links", str(wheels)]
    broken = subprocess.run([py, "-m", "pip", "install", "--dry-run", "-r", str(reqs)] + links,
                            capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    out = broken.stdout + broken.stderr
    if "conflicting dependencies" not in out:
        pytest.skip("torch==2.13.0 is not resolvable here: " + out[-300:])
    assert broken.returncode != 0
    first = next(ln for ln in out.splitlines() if "Cannot install" in ln)
    top = match_text(first)[0]
    assert top.id == "pip-resolver-conflict-names-torch" and top.confidence == "possible", first
    assert match_text(out)[0].id == "pip-package-pins-other-torch", out[-800:]
    entry = get_entry("pip-resolver-conflict-names-torch")
    dry, index = entry.fix["commands"]
    said = subprocess.run([py] + shlex.split(dry)[1:] + links, capture_output=True, text=True, timeout=600,
                          cwd=str(tmp_path))
    assert said.returncode != 0 and "tdpinned 1.0 depends on torch<2.13" in said.stdout + said.stderr
    listed = _run([py] + shlex.split(index)[1:])
    assert listed.returncode == 0 and "2.13.0" in listed.stdout, listed.stdout + listed.stderr[-300:]
    reqs.write_text("torch==2.13.0\ntdpinned\n")  # the pin loosened
    healed = subprocess.run([py] + shlex.split(dry)[1:] + links, capture_output=True, text=True, timeout=600,
                            cwd=str(tmp_path))
    assert healed.returncode == 0 and "tdpinned-2.0" in healed.stdout, healed.stdout[-800:] + healed.stderr[-800:]


def test_a_requirement_left_with_its_placeholder_is_healed_by_setting_the_variable(tmp_path):
    # A setup script's `torch==2.13.0+${DEVICE}` read by the real pip, with this machine's pip
    # configuration, while DEVICE is unset: pip refuses the line, the entry's hook names the
    # variable, and the command it gives (DEVICE set) resolves torch's CPU build.
    from torchdoctor.areas.registry import all_hooks
    from hook_facts import facts
    py = _venv(tmp_path)
    reqs = tmp_path / "requirements.txt"
    reqs.write_text("torch==2.13.0+${DEVICE}\n")
    env = {k: v for k, v in os.environ.items() if k != "DEVICE"}
    dry = [py, "-m", "pip", "install", "--dry-run", "-r", str(reqs)]
    broken = subprocess.run(dry, capture_output=True, text=True, timeout=600, cwd=str(tmp_path), env=env)
    assert broken.returncode != 0
    m = match_text(broken.stdout + broken.stderr)[0]
    assert m.id == "pip-requirement-unexpanded-variable" and m.groups["ph"] == "${DEVICE}", broken.stderr[-800:]
    t = all_hooks()[m.entry.tailor](m, facts())
    setting = t.commands[0]
    assert setting == "export DEVICE=cpu" and "${DEVICE}" in t.notes[0]
    name, value = setting.split()[1].split("=")
    healed = subprocess.run(dry, capture_output=True, text=True, timeout=600, cwd=str(tmp_path),
                            env=dict(env, **{name: value}))
    out = healed.stdout + healed.stderr
    if healed.returncode != 0 and "2.13.0+cpu" not in out:
        pytest.skip("torch 2.13.0+cpu is not resolvable here: " + out[-300:])
    assert healed.returncode == 0 and "torch-2.13.0+cpu" in healed.stdout, out[-800:]


@pytest.mark.parametrize("line, system, said, command", [
    ("ERROR: Could not find a version that satisfies the requirement torch==2.1.2+${DEVICE} (from versions: 1.11.0, "
     "2.1.2)", "Linux", "Set DEVICE", "export DEVICE=cpu"),
    ("ERROR: Could not find a version that satisfies the requirement torch==2.1.2+${DEVICE} (from versions: 1.11.0, "
     "2.1.2)", "Windows", "Set DEVICE", "set DEVICE=cpu"),
    ("ERROR: Invalid requirement: 'torch==2.4.0+$CUDA': Expected end or semicolon", "Linux", "${CUDA}",
     "export CUDA=cpu"),
    ("Invalid requirement: \u2018${pkg}==2.3\u2019", "Linux", "${PKG}", "export PKG=<value>"),
    # a version fragment, not the variant: cpu would make +cucpu
    ("ERROR: Invalid requirement: 'torch==2.4.0+cu${CUDA_VERSION}': Expected end or semicolon", "Linux",
     "Set CUDA_VERSION", "export CUDA_VERSION=<value>"),
    ("ERROR: Invalid requirement: 'torch==2.4.0+${DEVICE:-cpu}': Expected end or semicolon", "Linux",
     "does not apply a shell default", "export DEVICE=cpu"),
    ("ERROR: Could not find a version that satisfies the requirement torch==2.1.2+%DEVICE% (from versions: none)",
     "Windows", "cmd left %DEVICE%", "set DEVICE=cpu"),
    ("ERROR: Could not install packages due to an OSError: Invalid URL '${WHEEL_URL}': No scheme supplied. "
     "Perhaps you meant https://${WHEEL_URL}?", "Linux", "Set WHEEL_URL", "export WHEEL_URL=<value>"),
])
def test_the_placeholder_hook_says_the_form_pip_expands(line, system, said, command):
    from torchdoctor.areas.registry import all_hooks
    from hook_facts import facts
    m = match_text(line)[0]
    assert m.id == "pip-requirement-unexpanded-variable", [x.id for x in match_text(line)]
    t = all_hooks()[m.entry.tailor](m, facts(system=system))
    assert said in t.summary and t.commands == [command], (t.summary, t.commands)


def test_a_dollar_that_is_no_placeholder_is_not_this_entry():
    for line in ("ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu121 (from versions: none)",
                 "ERROR: Invalid requirement: 'torch>=2.0,<3$': Expected end or semicolon",
                 "ERROR: Could not install packages due to an OSError: Invalid URL 'wheels/torch.whl': No scheme supplied"):
        assert all(m.id != "pip-requirement-unexpanded-variable" for m in match_text(line)), line
    # the second, whitespace-insensitive pass never reads it: ${WHEEL_URL} would lose its underscore
    from torchdoctor.kb.errors import get_entry
    assert get_entry("pip-requirement-unexpanded-variable").exact


def test_a_prerelease_torch_refused_by_a_pin_is_kept_by_the_entrys_no_deps_install(tmp_path):
    # An NVIDIA container's torch is a pre-release (2.13.0a0+<commit>.nv26.1): a package that
    # requires torch>=2.13 does not accept it. A metadata-only wheel versioned that way stands for
    # it (the real container's torch cannot be installed here); the real pip, with this machine's
    # configuration (whose own constraints file joins the pin in the line pip prints), refuses the
    # package while a constraints file pins the installed torch, as the container does. The entry's
    # `pip install --no-deps <package>` installs it and leaves that torch in place.
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    container = "2.13.0a0+79aa1748.nv26.1"
    _wheel(str(wheels), "tdneeds", "1.0", "torch>=2.13,<2.14")
    torch_whl = _wheel(str(wheels), "torch", container, "typing-extensions")
    py = _venv(tmp_path)
    p = _run([py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", torch_whl])
    assert p.returncode == 0, p.stderr[-2000:]
    pins = tmp_path / "constraints.txt"
    pins.write_text("torch==%s\n" % container)
    links = ["--find-links", str(wheels)]
    broken = _run([py, "-m", "pip", "install", "--dry-run", "-c", str(pins), "tdneeds"] + links)
    out = broken.stdout + broken.stderr
    assert broken.returncode != 0 and "The user requested (constraint) torch" in out, out[-1500:]
    top = match_text(out)[0]
    assert top.id == "torch-prerelease-excluded-by-pin" and top.groups["have"] == container, out[-1500:]
    keep = [c for c in get_entry("torch-prerelease-excluded-by-pin").fix["commands"] if "--no-deps" in c][0]
    argv = [a if a != "<package>" else "tdneeds" for a in shlex.split(keep)]
    p = _run([py, "-m"] + argv + ["--quiet"] + links)
    assert p.returncode == 0, p.stderr[-2000:]
    versions = _run([py, "-c", "import importlib.metadata as m; print(m.version('tdneeds'), m.version('torch'))"])
    assert versions.stdout.split() == ["1.0", container], versions.stdout + versions.stderr
    # pip's own check still says the pin is not met, in the form the entry reads too.
    checked = _run([py, "-m", "pip", "check"])
    assert match_text(checked.stdout)[0].id == "torch-prerelease-excluded-by-pin", checked.stdout


def _interpreter(name):
    """The path of an interpreter named `name` on PATH that runs, or None."""
    import shutil
    path = shutil.which(name)
    if path and _run([path, "-c", "pass"], timeout=60).returncode == 0:
        return path
    return None


def test_a_package_whose_releases_exclude_this_python_installs_in_the_venv_the_hook_names(tmp_path):
    # A package whose only release declares Requires-Python <3.13,>=3.9, asked of a real Python 3.13
    # venv with this machine's pip configuration: pip ignores the release and finds none. explain
    # names the entry on pip's real output, its hook names the newest Python the range admits
    # (3.12) and the venv commands for it; run as printed (plus the folder that serves the package,
    # as the user's index would), the package installs and imports.
    py13, py12 = _interpreter("python3.13"), _interpreter("python3.12")
    if not (py13 and py12):
        pytest.skip("needs python3.13 and python3.12 on PATH")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(str(wheels), "tdpycap", "1.0", "packaging", python="<3.13,>=3.9")
    assert _run([py13, "-m", "venv", str(tmp_path / "v13")]).returncode == 0
    v13 = str(tmp_path / "v13" / "bin" / "python")
    links = ["--no-index", "--find-links", str(wheels)]
    broken = _run([v13, "-m", "pip", "install", "--no-deps", "tdpycap"] + links)
    out = broken.stdout + broken.stderr
    # a folder of wheels gives pip no Requires-Python before it opens the file: pip then prints its
    # third wording, "Package 'tdpycap' requires a different Python: 3.13.0 not in '<3.13,>=3.9'"
    assert broken.returncode != 0 and "<3.13,>=3.9" in out, out[-1500:]
    (m,) = [m for m in match_text(out) if m.id == "pip-package-requires-other-python"]
    from torchdoctor.areas.install.requirements import python_outside_requires_python
    from torchdoctor.model.facts import Facts
    tailored = python_outside_requires_python(m, Facts({"os": {"system": "Linux"}}))
    assert tailored.commands == ["python3.12 -m venv .venv", ".venv/bin/python -m pip install <package>"]
    healed = _run_venv_commands(tailored.commands, "tdpycap", links, tmp_path,
                                "import tdpycap, sys; print(sys.version_info[:2])")
    assert healed.returncode == 0 and healed.stdout.strip() == "(3, 12)", healed.stdout + healed.stderr


def _run_venv_commands(commands, package, links, cwd, check):
    """Run a hook's venv commands as printed in `cwd` (its `<package>` placeholder filled in, pip
    served from `links` as the user's index would), then `check` in the new venv."""
    for cmd in commands:
        argv = [a if a != "<package>" else package for a in shlex.split(cmd)]
        extra = ["--no-deps"] + links if "pip" in argv else []
        p = subprocess.run(argv + extra, capture_output=True, text=True, timeout=600, cwd=str(cwd))
        assert p.returncode == 0, (cmd, p.stderr[-1500:])
    return subprocess.run([".venv/bin/python", "-c", check], capture_output=True, text=True, cwd=str(cwd))


# A config dataclass nesting another as its default: accepted up to Python 3.10, refused at import
# from 3.11 on (every unhashable default is).
NESTED_DEFAULT = ("from dataclasses import dataclass\n\n@dataclass\nclass Inner:\n    x: int = 1\n\n"
                  "@dataclass\nclass Outer:\n    inner: Inner = Inner()\n")


def test_a_dataclass_default_refused_by_python_311_imports_in_the_venv_the_hook_names(tmp_path):
    # The package imports on 3.10 and fails on this 3.11+ interpreter with Python's own message;
    # explain names the entry, its hook prints a Python 3.10 venv and the package's install, and
    # run as printed (plus the folder that serves the package) they import it.
    py10 = _interpreter("python3.10")
    if sys.version_info < (3, 11) or not py10:
        pytest.skip("needs Python 3.11+ running the tests and python3.10 on PATH")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(str(wheels), "tdcfg", "1.0", "packaging", init=NESTED_DEFAULT)
    links = ["--no-index", "--find-links", str(wheels)]
    py = _venv(tmp_path)
    assert _run([py, "-m", "pip", "install", "--quiet", "--no-deps", "tdcfg"] + links).returncode == 0
    broken = _run([py, "-c", "import tdcfg"])
    assert broken.returncode != 0 and "use default_factory" in broken.stderr, broken.stderr[-800:]
    top = match_text(broken.stderr)[0]
    assert top.id == "python311-dataclass-mutable-default" and top.groups["cls"] == "tdcfg.Inner"
    from torchdoctor.areas.python_runtime import dataclass_default_python311
    from torchdoctor.model.facts import Facts
    facts = Facts({"os": {"system": "Linux"}, "python": {"version": "%d.%d.%d" % sys.version_info[:3]}})
    tailored = dataclass_default_python311(top, facts)
    assert tailored.commands == ["python3.10 -m venv .venv", ".venv/bin/python -m pip install <package>"]
    healed = _run_venv_commands(tailored.commands, "tdcfg", links, tmp_path,
                                "import tdcfg, sys; print(tdcfg.Outer().inner.x, sys.version_info[:2])")
    assert healed.returncode == 0 and healed.stdout.strip() == "1 (3, 10)", healed.stdout + healed.stderr
