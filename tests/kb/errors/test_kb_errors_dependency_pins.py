"""An install that moved a dependency another package pins (pip's `X requires D<spec>, but you have
D W which is incompatible`, numba's own `Numba needs NumPy X or less`): read against the installed
releases, with the one command that lets pip's resolver move X, proven on a real environment."""

import os
import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH, POSSIBLE

PINS = "pip-package-pins-other-dependency"
NUMBA_LINE = "numba 0.57.1 requires numpy<1.25,>=1.21, but you have numpy 1.25.2 which is incompatible."


@pytest.mark.parametrize("text", [
    NUMBA_LINE,
    "river 0.19.0 requires **numpy>=1.25.2**, but you have numpy 1.24.4 which is incompatible.",
    "numba 0.55.1 has requirement numpy<1.22,>=1.18, but you'll have numpy 1.22.3 which is incompatible.",
    "pandas 2.2.2 has requirement numpy>=1.26.0, but you have numpy 1.24.4.",
    'ray 2.9.0 requires pydantic[email]<2,>=1.10; python_version >= "3.8", but you have pydantic 2.5.0 which is '
    'incompatible.',
])
def test_pips_conflict_lines_are_possibly_a_moved_dependency(text):
    m = top(text)
    assert m is not None and m.id == PINS and m.confidence == POSSIBLE, m


def test_torch_pins_stay_with_their_own_entries():
    assert top("torchvision 0.14.1 requires torch==1.13.1, but you have torch 2.0.1+cu118 which is "
               "incompatible").id == "torchvision-requires-other-torch"
    assert top("xformers 0.0.17 requires torch==2.0.0, but you have torch 1.13.1 which is "
               "incompatible.").id == "pip-package-pins-other-torch"


def test_the_installed_releases_decide_the_command():
    f = facts(packages={"numba": {"version": "0.57.1"}, "numpy": {"version": "1.25.2"}})
    m, t = tailored_as(PINS, NUMBA_LINE, f)
    assert t.commands[0] == '/home/u/venv/bin/python -m pip install --upgrade "numba" "numpy==1.25.2"'
    assert t.commands[1] == '/home/u/venv/bin/python -m pip install "numpy<1.25,>=1.21"'
    # numpy put back in numba's range since: nothing to move
    _, t = tailored_as(PINS, NUMBA_LINE, facts(packages={"numba": {"version": "0.57.1"},
                                                         "numpy": {"version": "1.24.4"}}))
    assert "conflict is gone" in t.summary and t.commands == ["/home/u/venv/bin/python -m pip check"]
    # another numba here, or none: another environment printed it
    _, t = tailored_as(PINS, NUMBA_LINE, facts(packages={"numba": {"version": "0.60.0"},
                                                         "numpy": {"version": "1.25.2"}}))
    assert "not 0.57.1" in t.summary
    # numba is a name the probe reports whenever it is installed: missing from its listing is absent
    _, t = tailored_as(PINS, NUMBA_LINE, facts(packages={"numpy": {"version": "1.25.2"}}))
    assert "another environment" in t.summary and "has no numba" in t.summary


def test_a_package_the_probe_does_not_list_is_unknown_and_the_dependency_decides():
    river = "river 0.19.0 requires numpy>=1.25.2, but you have numpy 1.24.4 which is incompatible."
    _, t = tailored_as(PINS, river, facts(packages={"numpy": {"version": "1.24.4"}}))
    assert t.commands[0] == '/home/u/venv/bin/python -m pip install --upgrade "river" "numpy==1.24.4"'
    # the dependency here already inside the range: gone, whatever the package
    _, t = tailored_as(PINS, "gradio 4.0.0 requires typing_extensions~=4.0, but you have typing-extensions 3.10.0.2 "
                       "which is incompatible.", facts(packages={"typing-extensions": {"version": "4.12.2"}}))
    assert "conflict is gone" in t.summary and t.commands == ["/home/u/venv/bin/python -m pip check"]


def test_torch_is_held_in_every_command_that_could_move_it():
    # vllm pins torch and numpy together: letting pip move vllm must not move torch
    _, t = tailored_as(PINS, "vllm 0.6.3 requires numpy<2, but you have numpy 2.0.0 which is incompatible.",
                       facts(torch="2.4.0", packages={"numpy": {"version": "2.0.0"}, "vllm": {"version": "0.6.3"}}))
    assert t.commands[0].endswith('install --upgrade "vllm" "numpy==2.0.0" "torch==2.4.0"')
    assert t.commands[1].endswith('install "numpy<2" "torch==2.4.0"')
    # torchvision put back in range would bring another torch: held, pip says ResolutionImpossible instead
    _, t = tailored_as(PINS, "ultralytics 8.3.0 has requirement torchvision>=0.9.0, but you have torchvision 0.8.2.",
                       facts(torch="1.7.1", packages={"torchvision": {"version": "0.8.2"}}))
    assert all('"torch==1.7.1"' in c for c in t.commands if " install " in c)


def test_a_pin_of_torchs_own_build_is_restored_never_torch_moved():
    text = ('torch 2.9.1+cu130 requires nvidia-cudnn-cu13==9.13.0.50; platform_system == "Linux", but you have '
            'nvidia-cudnn-cu13 9.15.1.9 which is incompatible.')
    _, t = tailored_as(PINS, text, facts(torch="2.9.1+cu130", packages={
        "nvidia-cudnn-cu13": {"version": "9.15.1.9"}}))
    assert t.commands[0] == '/home/u/venv/bin/python -m pip install "nvidia-cudnn-cu13==9.13.0.50"'
    assert not any("--upgrade" in c and "torch" in c for c in t.commands)
    # another package wanting another release of a library torch pins: torch's stays
    _, t = tailored_as(PINS, "tensorflow 2.15.0 requires nvidia-cudnn-cu12==8.9.4.25, but you have nvidia-cudnn-cu12 "
                       "9.1.0.70 which is incompatible.", facts(torch="2.4.1", packages={
                           "nvidia-cudnn-cu12": {"version": "9.1.0.70"}, "tensorflow": {"version": "2.15.0"}}))
    assert "torch 2.4.1 pins nvidia-cudnn-cu12" in t.summary
    assert not any("8.9.4.25" in c and "--upgrade" not in c for c in t.commands)


def test_only_a_cuda_build_on_linux_owns_its_nvidia_libraries():
    line = ("tensorflow 2.15.0 requires nvidia-cudnn-cu12==8.9.4.25, but you have nvidia-cudnn-cu12 9.1.0.70 which is "
            "incompatible.")
    pkgs = {"nvidia-cudnn-cu12": {"version": "9.1.0.70"}, "tensorflow": {"version": "2.15.0"}}
    _, t = tailored_as(PINS, line, facts(torch="2.4.1+cpu", packages=pkgs))
    assert "pins nvidia-cudnn-cu12" not in t.summary and any('"nvidia-cudnn-cu12==8.9.4.25"' in c for c in t.commands)
    # NVML's Python bindings are no library of torch's build
    _, t = tailored_as(PINS, "gpustat 1.1.1 requires nvidia-ml-py>=12.535.108, but you have nvidia-ml-py 11.495.46 "
                       "which is incompatible.", facts(torch="2.4.1", packages={
                           "nvidia-ml-py": {"version": "11.495.46"}}))
    assert "torch 2.4.1 pins" not in t.summary and any('"nvidia-ml-py>=12.535.108"' in c for c in t.commands)


def test_cuda_13_torch_owns_its_cuda_toolkit_pin():
    _, t = tailored_as(PINS, "cupy-cuda13x 14.0.0 requires cuda-toolkit==13.1.0, but you have cuda-toolkit 13.0.3 "
                       "which is incompatible.", facts(torch="2.14.1", packages={
                           "cuda-toolkit": {"version": "13.0.3"}, "cupy-cuda13x": {"version": "14.0.0"}}))
    assert "torch 2.14.1 pins cuda-toolkit 13.0.3" in t.summary
    assert not any('"cuda-toolkit==13.1.0"' in c for c in t.commands)


def test_a_dependency_the_probe_found_absent_means_another_environment():
    _, t = tailored_as(PINS, "sentence-transformers 2.2.2 requires transformers<5.0.0,>=4.6.0, but you have "
                       "transformers 5.0.0 which is incompatible.", facts(torch="2.4.0"))
    assert "has no transformers" in t.summary and t.commands == ["/home/u/venv/bin/python -m pip check"]


def test_a_pasted_or_older_listing_is_not_read_as_complete():
    from torchdoctor.model import derived as F
    from torchdoctor.model.facts import Facts

    pasted = Facts({"packages": {"installed": {"numpy": {"version": "1.25.2"}}}})
    assert not F.package_absent(pasted, "numba")
    assert F.package_absent(facts(packages={"numpy": {"version": "1.25.2"}}), "numba")
    _, t = tailored_as(PINS, "ImportError: Numba needs NumPy 1.24 or less", pasted)
    assert "another environment" not in t.summary and t.commands[0].endswith('"numba" "numpy==1.25.2"')


def test_a_wildcard_specifier_is_read():
    m = top("torchvision 0.20.1 requires pillow!=8.3.*,>=5.3.0, but you have pillow 8.3.1 which is incompatible.")
    assert m is not None and m.id == PINS and m.groups["want"] == "!=8.3.*,>=5.3.0"


def test_numbas_own_check_is_high_and_reads_the_installed_numpy():
    m, t = tailored_as(PINS, "ImportError: Numba needs NumPy 1.24 or less",
                       facts(packages={"numba": {"version": "0.57.1"}, "numpy": {"version": "1.25.2"}}))
    assert m.confidence == HIGH
    assert t.commands[0] == '/home/u/venv/bin/python -m pip install --upgrade "numba" "numpy==1.25.2"'
    assert t.commands[1] == '/home/u/venv/bin/python -m pip install "numpy<1.25"'  # a specifier pip accepts
    # numpy here inside numba's range: the failing process imported another numpy
    _, t = tailored_as(PINS, "ImportError: Numba needs NumPy 1.24 or less",
                       facts(packages={"numba": {"version": "0.57.1"}, "numpy": {"version": "1.24.4"}}))
    assert "imported another NumPy" in t.summary and "import numpy;" in t.commands[0]
    _, t = tailored_as(PINS, "Numba needs NumPy 2.1 or less. Got NumPy 2.2.", facts(packages={}))
    assert t.summary.startswith("The failing process imported numba from another environment")


@pytest.mark.slow
def test_a_real_moved_numpy_breaks_numba_and_the_printed_command_heals_it(tmp_path):
    from torchdoctor.gather.light import light_facts
    from wheelkit import pip_venv

    py = pip_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own packages only

    def pip(*args):
        return subprocess.run([py, "-m", "pip", "install", "-q"] + list(args), capture_output=True, text=True,
                              timeout=900, env=env)

    if pip("numba==0.57.1", "numpy==1.24.4").returncode != 0:
        pytest.skip("pip could not install numba 0.57.1 here")
    moved = pip("numpy==1.25.2")
    assert moved.returncode == 0, moved.stderr[-600:]
    broken = subprocess.run([py, "-c", "import numba"], capture_output=True, text=True, timeout=300, env=env)
    assert broken.returncode != 0 and "Numba needs NumPy 1.24 or less" in broken.stderr
    m, t = tailored_as(PINS, moved.stderr, light_facts(py))
    assert t.commands[0].endswith('-m pip install --upgrade "numba" "numpy==1.25.2"'), t.commands
    healed = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=900, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]
    check = subprocess.run([py, "-m", "pip", "check"], capture_output=True, text=True, timeout=300, env=env)
    assert check.returncode == 0, check.stdout
    done = subprocess.run([py, "-c", "import numba, numpy; print(numpy.__version__)"], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "1.25.2", done.stderr[-600:]



def test_an_older_listing_still_speaks_for_the_names_its_rules_covered():
    # a report made under rules 3 covered numba, not rsl-rl-lib (listed from rules 4 on)
    from torchdoctor.model import derived as F
    from torchdoctor.model.facts import Facts

    rules3 = Facts({"packages": {"installed": {"numpy": {"version": "1.25.2"}}, "reported": 3}})
    assert F.package_absent(rules3, "numba")
    assert not F.package_absent(rules3, "rsl-rl-lib")
    rules2 = Facts({"packages": {"installed": {"numpy": {"version": "1.25.2"}}, "reported": 2}})
    assert not F.package_absent(rules2, "numba")
