"""Files that are not the checkpoint they claim to be: the entry is chosen by the byte the
unpickler names, the generic one says what that byte means, and a NumPy-2 pickle is answered
from the NumPy and torch installed here."""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

WO = ("_pickle.UnpicklingError: Weights only load failed. Re-running `torch.load` with `weights_only` set to `False` "
      "will likely succeed, but it can result in arbitrary code execution.\nPlease file an issue with the following so "
      "that we can make `weights_only=True` compatible with your use case: WeightsUnpickler error: Unsupported operand %s")


def facts(system="Linux", **pkgs):
    data = {"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": system},
            "packages": {"installed": {n: {"version": v} for n, v in pkgs.items()}}}
    return Facts(data)


def top(text):
    found = match_text(text)
    assert found, text
    return found[0]


@pytest.mark.parametrize("text,want", [
    ("_pickle.UnpicklingError: invalid load key, 'v'.", "checkpoint-git-lfs-pointer"),
    (WO % 60, "checkpoint-html-page"),
    (WO % 10, "checkpoint-not-a-torch-file"),
    ("UnpicklingError: invalid load key, '\\x1f'.", "checkpoint-not-a-torch-file"),
])
def test_the_first_byte_picks_the_entry_and_hides_the_weights_only_advice(text, want):
    ids = [m.id for m in match_text(text)]
    assert ids[0] == want
    # "re-run with weights_only=False" is no fix for a file that is no pickle at all
    assert "torch-load-weights-only-failed" not in ids


@pytest.mark.parametrize("op", [128, 149, 99, 40])
def test_a_real_pickle_opcode_is_left_to_the_weights_only_entry(op):
    # a pickle opcode the weights-only unpickler lacks: a trusted file loads with weights_only=False
    ids = [m.id for m in match_text(WO % op)]
    assert ids and ids[0] == "torch-load-weights-only-failed"
    assert "checkpoint-not-a-torch-file" not in ids


@pytest.mark.parametrize("text,kind", [
    (WO % 10, "a text file"),
    ("UnpicklingError: invalid load key, '\\x1f'.", "gzip"),
    ("UnpicklingError: invalid load key, '\\x00'.", "zero bytes"),
    ("UnpicklingError: invalid load key, '{'.", "JSON"),
    ("UnpicklingError: invalid load key, '\\xe8'.", "another format"),
])
def test_the_generic_entry_says_what_the_first_byte_means(text, kind):
    m = top(text)
    e = explain_match(m, facts())
    assert e.hook_error is None and e.tailored
    assert kind in e.cause


def test_the_code_line_that_raises_is_not_the_error():
    text = ("   1035     raise RuntimeError(\"Invalid magic number; corrupt file?\")\n\n"
            "UnpicklingError: invalid load key, '\\x0a'.")
    assert top(text).id == "checkpoint-not-a-torch-file"
    assert top("RuntimeError: Invalid magic number; corrupt file?").id == "checkpoint-plain-pickle"


NP = "ModuleNotFoundError: No module named 'numpy._core'"


def test_numpy_1_beside_a_torch_built_for_numpy_2_says_upgrade_numpy():
    e = explain_match(top(NP), facts(numpy="1.26.4", torch="2.5.1"))
    assert e.tailored and "Upgrade NumPy 1.26.4 to 2.x" in e.fix.summary
    assert any('numpy>=2' in c and "/opt/env/bin/python -m pip install" in c for c in e.fix.commands)


def test_numpy_1_beside_a_torch_built_for_numpy_1_warns_against_upgrading_numpy_alone():
    e = explain_match(top(NP), facts(numpy="1.24.4", torch="2.1.2"))
    assert "built for NumPy 1.x" in e.fix.summary and "re-save" in e.fix.summary
    assert not any("numpy>=2" in c for c in e.fix.commands)


def test_numpy_2_here_means_the_load_ran_elsewhere():
    e = explain_match(top(NP), facts(numpy="2.1.0", torch="2.5.1"))
    assert "another interpreter" in e.fix.summary


def test_without_numpy_facts_the_entry_stays_generic():
    e = explain_match(top(NP), facts())
    assert not e.tailored


# A pickled class that the loading process cannot find: the module the message names decides
# between the saving script's own class and another release of a library.
MAIN = ("  File \"/venv/lib/python3.11/site-packages/torch/serialization.py\", line 1, in _load\n"
        "    result = unpickler.load()\nAttributeError: Can't get attribute 'Net' on <module '__main__' from 'infer.py'>")
LIB = ("  File \"/venv/lib/python3.11/site-packages/torch/serialization.py\", line 1, in _load\n"
       "    result = unpickler.load()\n"
       "AttributeError: Can't get attribute 'DataEdgeAttr' on <module 'torch_geometric.data.data' from "
       "'/venv/lib/python3.11/site-packages/torch_geometric/data/data.py'>")


def test_a_class_of_the_saving_script_is_defined_before_loading():
    e = explain_match(top(MAIN), facts())
    assert top(MAIN).id == "checkpoint-pickled-class-missing" and top(MAIN).confidence == "high"
    assert "'Net' was defined in the main script" in e.fix.summary and "spawn" in e.fix.summary


def test_a_class_of_a_library_names_the_installed_release():
    e = explain_match(top(LIB), facts(**{"torch-geometric": "2.0.0"}))
    assert "torch-geometric 2.0.0 is installed and its torch_geometric.data.data has no DataEdgeAttr" in e.fix.summary


def test_the_pickle_message_alone_is_only_possible():
    # Any program's pickle prints it: without torch in the text it is not claimed.
    assert top("AttributeError: Can't get attribute 'Foo' on <module '__main__'>").confidence == "possible"


def test_a_class_of_the_users_own_code_is_not_called_a_library():
    text = ("AttributeError: Can't get attribute 'C3k2' on <module 'models.common' from "
            "'/content/yolov5/models/common.py'>")
    e = explain_match(top(text), facts())
    assert "models.common here is your own code (/content/yolov5/models/common.py)" in e.fix.summary
    assert "install the release" not in e.fix.summary


def test_a_class_of_torch_itself_means_another_torch_release():
    text = ("  File \"/venv/lib/python3.11/site-packages/torch/serialization.py\", line 1, in _load\n"
            "AttributeError: Can't get attribute 'Conv9d' on <module 'torch.nn.modules.conv' from "
            "'/venv/lib/python3.11/site-packages/torch/nn/modules/conv.py'>")
    e = explain_match(top(text), facts(torch="2.5.1"))
    assert "torch 2.5.1 has no torch.nn.modules.conv.Conv9d" in e.fix.summary and "cached" not in e.fix.summary


def test_a_library_module_is_named_by_its_distribution():
    text = ("  File \"/venv/lib/python3.11/site-packages/torch/serialization.py\", line 1, in _load\n"
            "AttributeError: Can't get attribute 'Foo' on <module 'sklearn.tree._classes' from "
            "'/venv/lib/python3.11/site-packages/sklearn/tree/_classes.py'>")
    e = explain_match(top(text), facts(**{"scikit-learn": "1.5.0"}))
    assert e.fix.summary.startswith("scikit-learn 1.5.0 is installed")


def test_operand_118_is_left_to_the_weights_only_entry_with_the_first_bytes_check():
    # 118 ('v') is a Git LFS pointer's first byte, and real checkpoints that torch 2.5 loads have
    # given it too: the weights-only entry answers, and its hook shows the file's first bytes.
    from torchdoctor.areas.serialization import weights_only_failed
    m = top(WO % 118)
    assert m.id == "torch-load-weights-only-failed"
    t = weights_only_failed(m, facts(torch="2.6.0"))
    assert "git-lfs" in t.summary and "read(120)" in t.commands[0]


# ---------------------------------------------------------------- disk full ---
DOCKER_FULL = ("ApplyLayer exit status 1 stdout:  stderr: write /opt/conda/lib/python3.9/site-packages/torch/lib/"
               "libtorch_cuda.so: no space left on device")


def test_docker_unpacking_a_layer_is_told_which_disk():
    m = top(DOCKER_FULL)
    assert m.id == "no-space-left-on-device"
    ex = explain_match(m, facts())
    assert ex.tailored and "Docker's data root" in ex.fix.summary
    assert ex.fix.commands[0] == "docker system df"


def test_pip_filling_tmp_keeps_the_entrys_own_advice():
    m = top("Collecting torch\nERROR: Could not install packages due to an OSError: [Errno 28] No space left on device")
    ex = explain_match(m, facts())
    assert not ex.tailored and "docker" not in " ".join(ex.fix.commands)


@pytest.mark.parametrize("text", [
    # Go's lower-case wording from a program that is not writing torch's files: not claimed
    "write /var/lib/containerd/io.containerd.content.v1.content/ingest/abc/data: no space left on device",
    "failed to register layer: Error processing tar file(exit status 1): write /usr/share/vim/vim74/syntax/sisu.vim: "
    "no space left on device",
])
def test_a_full_disk_that_writes_no_torch_file_is_not_this_entrys(text):
    assert [m.id for m in match_text(text)] == []


def test_dockers_storage_paths_name_the_disk_too():
    text = ("Step 5/9 : RUN pip install torch torchvision\nfailed to copy: write /var/lib/docker/overlay2/3f2a/diff/"
            "opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: no space left on device")
    m = top(text)
    assert m.id == "no-space-left-on-device"
    ex = explain_match(m, facts())
    assert ex.tailored and ex.fix.commands[-1] == 'docker info -f "{{.DockerRootDir}}"'
