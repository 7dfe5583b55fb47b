"""Operations the OS or GPU setup does not offer (CUDA IPC on Windows, the virtual-memory API
under WSL and in VMs, peer access): which one this machine lacks.
"""

from typing import Optional

from ...model.facts import Facts
from ...model import derived as F
from ..config import expandable_segments_off_cmd, expandable_segments_requested
from ..registry import Tailored, hook

IPC_URL = "https://docs.pytorch.org/docs/stable/notes/windows.html#cuda-ipc-operations"


@hook("cuda-platform-unsupported")
def cuda_platform_unsupported(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    os_ = F.os_of(facts)
    wsl = facts.value("os.wsl") is True
    notes = ["OS: %s%s" % (os_ or "unknown", " (WSL2)" if wsl else "")]
    if "peer access" in text:
        return Tailored(summary="These two GPUs cannot access each other's memory directly on this machine: let NCCL "
                                "copy through the host instead (NCCL_P2P_DISABLE=1), and check the topology.",
                        commands=[F.set_env_cmd(facts, "NCCL_P2P_DISABLE", "1"), "nvidia-smi topo -m"], notes=notes)
    if "StorageSharing" in text or os_ == "windows":
        return Tailored(summary="Windows cannot share CUDA tensors between processes (CUDA IPC). Have Dataset/DataLoader "
                                "workers return CPU tensors and move batches to the GPU in the main process "
                                "(batch.to('cuda', non_blocking=True) with pin_memory=True), or use num_workers=0.",
                        commands=[], notes=notes)
    if wsl:
        asked = expandable_segments_requested(facts)
        if asked:
            notes.append("%s=%s" % asked)
        return Tailored(summary="WSL2's GPU driver lacks part of the CUDA virtual-memory and IPC API. Turn off the "
                                "allocator's expandable segments, keep CUDA tensors out of multiprocessing queues (send "
                                "CPU tensors), and keep pinned-memory use moderate.",
                        commands=[expandable_segments_off_cmd(facts)], notes=notes)
    return None
