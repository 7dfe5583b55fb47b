"""A package's console script the shell does not find (torchrun, accelerate, hf...). A real venv
from this machine's pip whose bin folder is off PATH fails `hf` for real in bash; both printed
fixes (the PATH line and the `python -m` form) run as printed and the command works."""

import shlex
import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.gather.scripts import SCRIPTS as PROBED, script_dirs, scripts_facts
from torchdoctor.areas.install.scripts import SCRIPTS
from torchdoctor.match.matcher import HIGH, POSSIBLE
from torchdoctor.model.facts import ABSENT, absent, state_of

ENTRY = "console-script-not-found"
BIN = "/home/u/venv/bin"


def test_every_script_read_is_one_the_probe_looks_for():
    assert set(SCRIPTS) == set(PROBED)


@pytest.mark.parametrize("text, prog", [
    ("bash: torchrun: command not found", "torchrun"),
    ("/bin/sh: 1: torchrun: not found", "torchrun"),
    ("sh: 1: /home/gyn/miniconda/envs/ct/bin/torchrun: not found", "torchrun"),
    ("./scripts/TimeLLM_ETTm2.sh: line 14: accelerate: command not found", "accelerate"),
    ("zsh: command not found: huggingface-cli", "huggingface-cli"),
    ("'huggingface-cli' is not recognized as an internal or external command,", "huggingface-cli"),
    ("accelerate : The term 'accelerate' is not recognized as the name of a cmdlet, function", "accelerate"),
    ("nohup: failed to run command 'deepspeed': No such file or directory", "deepspeed"),
    ("hf: command not found", "hf"),
    ("zsh:1: command not found: torchrun", "torchrun"),
    ("./run.sh:12: command not found: torchrun", "torchrun"),
    ("fish: Unknown command: torchrun", "torchrun"),
    ("torchrun: Command not found.", "torchrun"),
    ("sudo: torchrun: command not found", "torchrun"),
    ("slurmstepd: error: execve(): torchrun: No such file or directory", "torchrun"),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'deepspeed'", "deepspeed"),
    ("Command 'hf' not found, did you mean:", "hf"),
    ("'torchrun.exe' is not recognized as an internal or external command,", "torchrun"),
])
def test_the_shells_wordings_name_the_script(text, prog):
    m = top(text)
    assert m is not None and m.id == ENTRY, text
    assert m.confidence == HIGH
    assert m.groups.get("prog") == prog


@pytest.mark.parametrize("text, prog", [
    ("WARNING: The script huggingface-cli is installed in '/home/u/.local/bin' which is not on PATH.",
     "huggingface-cli"),
    ("  WARNING: The scripts convert-caffe2-to-onnx, convert-onnx-to-caffe2 and torchrun are installed in "
     "'/home/u/.local/bin' which is not on PATH.", "torchrun"),
    ("  WARNING: The scripts convert-caffe2-to-onnx.exe and torchrun.exe are installed in "
     "'C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\Scripts' which is not on PATH.", "torchrun"),
])
def test_pips_warning_is_only_a_possibility(text, prog):
    # a warning of a successful install: the cause of a later "command not found", not of any error
    m = top(text)
    assert m is not None and m.id == ENTRY and m.confidence == POSSIBLE and m.groups.get("prog") == prog


@pytest.mark.parametrize("text", [
    "th: command not found",  # Lua Torch's interpreter
    "bash: conda: command not found",
    "hf_transfer: command not found",
    "bash: torchrunner: command not found",
    "WARNING: The script tqdm is installed in '/home/u/.local/bin' which is not on PATH.",
    "zsh: command not found: hfx",
    "Plugin tensorboard: not found",
    "Error: dependency accelerate: not found",
    "ERROR: hf: not found in registry",
    "WARNING: The script mhf is installed in '/x' which is not on PATH.",
    "WARNING: The scripts gguf-to-hf and tqdm are installed in '/x' which is not on PATH.",
])
def test_other_programs_are_not_read_as_these(text):
    m = top(text)
    assert m is None or m.id != ENTRY, text


def _facts(found=None, on_path=(), packages=None, torch="2.5.1"):
    found = found or {}
    scripts = {"dirs": [BIN, "/home/u/.local/bin"], "on_path": list(on_path),
               "found": {n: found.get(n, absent("not there")) for n in PROBED}}
    return facts(torch=torch, packages=packages, scripts=scripts)


def test_a_script_in_a_folder_off_path_gets_the_path_line_and_the_module_form():
    _, t = tailored_as(ENTRY, "bash: torchrun: command not found", _facts({"torchrun": BIN + "/torchrun"}))
    assert "is installed at %s/torchrun, in a folder this shell's PATH does not hold" % BIN in t.summary
    assert t.commands == ["export PATH=%s${PATH:+:$PATH}" % BIN, "/home/u/venv/bin/python -m torch.distributed.run --help"]


def test_a_script_this_shell_finds_means_the_failing_shell_had_another_path():
    _, t = tailored_as(ENTRY, "/bin/sh: 1: torchrun: not found",
                       _facts({"torchrun": BIN + "/torchrun"}, on_path=[BIN]))
    assert t.summary.startswith("This shell finds torchrun")
    assert t.commands == ["/home/u/venv/bin/python -m torch.distributed.run --help"]


def test_a_package_not_installed_here_is_said_so_with_its_install():
    _, t = tailored_as(ENTRY, "accelerate: command not found", _facts())
    assert t.summary.startswith("accelerate is not installed in /home/u/venv/bin/python")
    assert t.commands == ['/home/u/venv/bin/python -m pip install "accelerate"']


def test_torch_not_installed_prints_no_bare_pip_install_of_torch():
    _, t = tailored_as(ENTRY, "torchrun: command not found", _facts(torch=None))
    assert t.summary.startswith("torch is not installed") and t.commands == []


def test_torch_older_than_torchrun_gets_the_launch_module():
    _, t = tailored_as(ENTRY, "bash: torchrun: command not found", _facts(torch="1.9.1"))
    assert t.summary.startswith("torch 1.9.1 predates torchrun (added in 1.10.0)")
    assert t.commands == ["/home/u/venv/bin/python -m torch.distributed.run --help"]  # there since 1.9
    _, t = tailored_as(ENTRY, "bash: torchrun: command not found", _facts(torch="1.8.1"))
    assert t.commands == ["/home/u/venv/bin/python -m torch.distributed.launch --use_env --help"]


def test_hf_before_its_release_and_huggingface_cli_after_its_removal():
    _, t = tailored_as(ENTRY, "hf: command not found",
                       _facts(packages={"huggingface-hub": {"version": "0.33.5"}}))
    assert t.summary.startswith("huggingface-hub 0.33.5 predates hf (added in 0.34.0)")
    assert t.commands == ["/home/u/venv/bin/python -m huggingface_hub.commands.huggingface_cli --help",
                          '/home/u/venv/bin/python -m pip install "huggingface-hub>=0.34.0"']
    _, t = tailored_as(ENTRY, "zsh: command not found: huggingface-cli",
                       _facts(packages={"huggingface-hub": {"version": "1.2.0"}}))
    assert t.summary.startswith("huggingface-hub 1.2.0 no longer has huggingface-cli (gone in 1.0.0): its command "
                                "is `hf`") and "`hf auth login`" in t.summary
    # not installed: plain pip would bring 1.x, which has no huggingface-cli
    _, t = tailored_as(ENTRY, "zsh: command not found: huggingface-cli", _facts())
    assert t.commands == ['/home/u/venv/bin/python -m pip install "huggingface-hub<1.0"']


def test_pips_warning_names_the_folder():
    text = ("WARNING: The scripts convert-caffe2-to-onnx, convert-onnx-to-caffe2 and torchrun are installed in "
            "'/home/u/.local/bin' which is not on PATH.")
    _, t = tailored_as(ENTRY, text, _facts())
    assert t.commands == ["export PATH=/home/u/.local/bin${PATH:+:$PATH}",
                          "/home/u/venv/bin/python -m torch.distributed.run --help"]
    _, t = tailored_as(ENTRY, text.replace("/home/u/.local/bin", "/opt/other/bin"), _facts())
    assert t.commands[1] == "python -m torch.distributed.run --help"  # not this interpreter's folder


WIN = dict(system="Windows", exe="C:\\venv\\Scripts\\python.exe")


@pytest.mark.parametrize("text, path_line, module_form", [
    ("'torchrun' is not recognized as an internal or external command,",
     "set PATH=C:\\venv\\Scripts;%PATH%", "C:\\venv\\Scripts\\python.exe -m torch.distributed.run --help"),
    ("torchrun : The term 'torchrun' is not recognized as the name of a cmdlet, function",
     "$env:Path = 'C:\\venv\\Scripts;' + $env:Path", "C:\\venv\\Scripts\\python.exe -m torch.distributed.run --help"),
    # Git for Windows' bash: /c/ paths, quoted so that bash keeps them
    ("bash: torchrun: command not found",
     'export PATH="/c/venv/Scripts:$PATH"', "/c/venv/Scripts/python.exe -m torch.distributed.run --help"),
])
def test_windows_commands_are_in_the_dialect_of_the_shell_that_failed(text, path_line, module_form):
    f = facts(torch="2.5.1", prefix="C:\\Python311", scripts={
        "dirs": ["C:\\Python311\\Scripts", "C:\\venv\\Scripts"], "on_path": [],
        "found": {"torchrun": "C:\\venv\\Scripts\\torchrun.exe"}}, **WIN)
    _, t = tailored_as(ENTRY, text, f)
    assert t.commands == [path_line, module_form]


def test_csh_and_fish_get_their_own_path_lines():
    f = _facts({"torchrun": "/home/u/.local/bin/torchrun"})
    _, t = tailored_as(ENTRY, "torchrun: Command not found.", f)
    assert t.commands[0] == 'setenv PATH "/home/u/.local/bin:$PATH"'
    _, t = tailored_as(ENTRY, "fish: Unknown command: torchrun", f)
    assert t.commands[0] == "set -gx PATH /home/u/.local/bin $PATH"


def test_an_environment_not_activated_is_activated():
    f = _facts({"torchrun": BIN + "/torchrun"})
    f.data["python"].update({"virtualenv": True})
    _, t = tailored_as(ENTRY, "bash: torchrun: command not found", f)
    assert t.commands[0] == ". /home/u/venv/bin/activate"  # dash has no `source`
    f.data["python"].update({"virtualenv": False, "conda": True})
    _, t = tailored_as(ENTRY, "bash: torchrun: command not found", f)
    assert t.commands[0] == "conda activate /home/u/venv"


def test_a_launcher_whose_interpreter_is_gone_is_not_blamed_on_path():
    f = _facts({"torchrun": BIN + "/torchrun"}, on_path=[BIN])
    f.data["scripts"]["interpreters"] = {"torchrun": {"path": "/old/venv/bin/python", "exists": False}}
    _, t = tailored_as(ENTRY, "sh: 1: torchrun: not found", f)
    assert "starts with #!/old/venv/bin/python, which no longer exists" in t.summary
    assert "another PATH" not in t.summary


def test_a_full_path_in_the_paste_means_path_played_no_part():
    _, t = tailored_as(ENTRY, "sh: 1: /home/gyn/miniconda/envs/ct/bin/torchrun: not found",
                       _facts({"torchrun": BIN + "/torchrun"}, on_path=[BIN]))
    assert t.summary.startswith("The command named a full path (/home/gyn/miniconda/envs/ct/bin/torchrun)")


def test_every_scripts_package_is_one_the_probe_reports():
    from torchdoctor.gather.target import reported
    for script in SCRIPTS.values():
        assert reported(script.package, ()), script.package


def test_script_dirs_per_layout():
    venv = {"prefix": "/home/u/venv", "executable": "/home/u/venv/bin/python", "version": "3.11.7",
            "platform": "linux"}
    assert script_dirs(venv, {"HOME": "/home/u"}) == [BIN, "/home/u/.local/bin"]
    system = {"prefix": "/usr", "executable": "/usr/bin/python3", "version": "3.11.7", "platform": "linux"}
    assert script_dirs(system, {"HOME": "/home/u", "PYTHONUSERBASE": "/data/pyuser"}) == [
        "/usr/bin", "/usr/local/bin", "/data/pyuser/bin"]
    mac = {"prefix": "/Library/Frameworks/Python.framework/Versions/3.12",
           "executable": "/Library/Frameworks/Python.framework/Versions/3.12/bin/python3", "version": "3.12.1",
           "platform": "darwin"}
    assert script_dirs(mac, {"HOME": "/Users/u"})[-1] == "/Users/u/Library/Python/3.12/bin"
    win = {"prefix": "C:\\Python311", "executable": "C:\\Python311\\python.exe", "version": "3.11.7",
           "platform": "win32"}
    assert script_dirs(win, {"APPDATA": "C:\\Users\\u\\AppData\\Roaming"}) == [
        "C:\\Python311\\Scripts", "C:\\Python311", "C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\Scripts"]
    win32 = dict(win, bits=32)
    assert script_dirs(win32, {"APPDATA": "C:\\A"})[-1] == "C:\\A\\Python\\Python311-32\\Scripts"


def test_scripts_facts_reads_the_folders_and_path(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "torchrun").write_text("#!/bin/sh\n")
    py = {"prefix": str(tmp_path), "executable": str(tmp_path / "bin" / "python"), "version": "3.11.7",
          "platform": "linux"}
    out = scripts_facts(py, {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"})
    assert out["found"]["torchrun"] == str(tmp_path / "bin" / "torchrun")
    assert state_of(out["found"]["hf"]) == ABSENT and out["on_path"] == []
    out = scripts_facts(py, {"HOME": str(tmp_path / "home"), "PATH": str(tmp_path / "bin") + ":/usr/bin"})
    assert out["on_path"] == [str(tmp_path / "bin")]


@pytest.mark.slow
def test_hf_off_path_fails_for_real_and_both_printed_fixes_run(tmp_path, monkeypatch):
    from torchdoctor.gather.light import light_facts
    from wheelkit import pip_venv

    py = pip_venv(tmp_path / "venv")
    done = subprocess.run([py, "-m", "pip", "install", "-q", "huggingface_hub>=0.34,<1"], capture_output=True,
                          text=True, timeout=900)
    if done.returncode != 0:
        pytest.skip("pip could not install huggingface_hub here: %s" % done.stderr.strip()[-300:])
    path = "/usr/bin:/bin"
    monkeypatch.setenv("PATH", path)  # the shell that reads the facts: the venv is not activated
    failed = subprocess.run(["bash", "-c", "hf --help"], capture_output=True, text=True, env={"PATH": path})
    assert failed.returncode == 127, failed.stderr
    m, t = tailored_as(ENTRY, failed.stderr, light_facts(py))
    assert m.confidence == HIGH
    assert "in a folder this shell's PATH does not hold" in t.summary, t.summary
    path_line, module_form = t.commands
    healed = subprocess.run(["bash", "-c", path_line + " && hf --help"], capture_output=True, text=True,
                            env={"PATH": path})
    assert healed.returncode == 0, healed.stderr[-600:]
    healed = subprocess.run(shlex.split(module_form) + ["--help"], capture_output=True, text=True, env={"PATH": path})
    assert healed.returncode == 0, healed.stderr[-600:]


def test_scripts_facts_reads_a_launchers_interpreter(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "torchrun").write_text("#!%s/gone/bin/python3.11\nimport sys\n" % tmp_path)
    (tmp_path / "bin" / "hf").write_text("#!/usr/bin/env python3\n")
    py = {"prefix": str(tmp_path), "executable": str(tmp_path / "bin" / "python"), "version": "3.11.7",
          "platform": "linux"}
    out = scripts_facts(py, {"HOME": str(tmp_path / "home"), "PATH": "~/bin:/usr/bin"})
    assert out["interpreters"] == {"torchrun": {"path": "%s/gone/bin/python3.11" % tmp_path, "exists": False}}
    # a symlinked or ~ PATH entry is the same folder
    (tmp_path / "link").symlink_to(tmp_path / "bin")
    out = scripts_facts(py, {"HOME": str(tmp_path), "PATH": "~/link:/usr/bin"})
    assert out["on_path"] == [str(tmp_path / "bin")]


def test_pips_warning_on_windows_gets_cmds_and_powershells_path_lines():
    text = ("WARNING: The scripts convert-caffe2-to-onnx.exe and torchrun.exe are installed in "
            "'C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\Scripts' which is not on PATH.")
    _, t = tailored_as(ENTRY, text, facts(torch="2.5.1", **WIN))
    assert t.commands[:2] == ["set PATH=C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\Scripts;%PATH%",
                              "$env:Path = 'C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\Scripts;' + $env:Path"]


def test_a_bare_command_not_found_on_windows_is_git_bash():
    f = facts(torch="2.5.1", scripts={"dirs": ["C:\\venv\\Scripts"], "on_path": [],
                                      "found": {"torchrun": "C:\\venv\\Scripts\\torchrun.exe"}}, **WIN)
    _, t = tailored_as(ENTRY, "./run.sh: line 3: torchrun: command not found", f)
    assert t.commands[0] == 'export PATH="/c/venv/Scripts:$PATH"'


def test_a_full_path_to_a_launcher_that_exists_here_is_one_that_cannot_start():
    _, t = tailored_as(ENTRY, "sh: 1: /home/u/venv/bin/torchrun: not found",
                       _facts({"torchrun": BIN + "/torchrun"}, on_path=[BIN]))
    assert t.summary.startswith("torchrun exists in that folder now (%s/torchrun)" % BIN)
    f = _facts({"torchrun": BIN + "/torchrun"}, on_path=[BIN])
    f.data["scripts"]["interpreters"] = {"torchrun": {"path": "/old/venv/bin/python", "exists": False}}
    _, t = tailored_as(ENTRY, "sh: 1: /home/u/venv/bin/torchrun: not found", f)
    assert "its #! line names /old/venv/bin/python, which is gone" in t.summary
    # another environment's full path: this venv's stale launcher is not the one that failed
    _, t = tailored_as(ENTRY, "sh: 1: /home/gyn/envs/ct/bin/torchrun: not found", f)
    assert t.summary.startswith("The command named a full path (/home/gyn/envs/ct/bin/torchrun)")


def test_bashs_command_not_found_is_paths_even_with_a_stale_launcher():
    # bash says "bad interpreter" for a launcher it found; "command not found" means it found none
    f = _facts({"torchrun": BIN + "/torchrun"})
    f.data["scripts"]["interpreters"] = {"torchrun": {"path": "/old/venv/bin/python", "exists": False}}
    _, t = tailored_as(ENTRY, "bash: torchrun: command not found", f)
    assert "in a folder this shell's PATH does not hold" in t.summary


def test_csh_with_the_launcher_on_path_needs_a_rehash():
    _, t = tailored_as(ENTRY, "torchrun: Command not found.", _facts({"torchrun": BIN + "/torchrun"}, on_path=[BIN]))
    assert t.commands == ["rehash"]
