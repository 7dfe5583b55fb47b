"""What the OS or GPU setup does not offer: CUDA IPC on Windows, WSL's virtual-memory API,
peer access between GPUs."""

from torchdoctor.areas.registry import all_hooks
from torchdoctor.match.matcher import match_text

from hook_facts import facts


def tailor(text, f):
    m = [x for x in match_text(text) if x.id == "cuda-platform-unsupported-operation"][0]
    return all_hooks()[m.entry.tailor](m, f)


def test_sharing_cuda_tensors_on_windows():
    text = ("RuntimeError: cuda runtime error (801) : operation not supported at "
            "C:\\w\\1\\s\\windows\\pytorch\\torch/csrc/generic/StorageSharing.cpp:245")
    t = tailor(text, facts(system="Windows"))
    assert "Windows cannot share CUDA tensors between processes" in t.summary


def test_wsl_turns_expandable_segments_off():
    t = tailor("RuntimeError: CUDA error: operation not supported", facts(os={"system": "Linux", "wsl": True}))
    assert "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False" in t.commands


def test_peer_access_and_a_plain_linux_box():
    t = tailor("RuntimeError: CUDA error: peer access is not supported between these two devices", facts())
    assert "export NCCL_P2P_DISABLE=1" in t.commands
    assert tailor("RuntimeError: CUDA error: operation not supported", facts()) is None
