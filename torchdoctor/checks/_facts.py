"""Derived facts shared by checks: one place to read the torch version, the
GPUs, the platform and the command that reinstalls torch on this machine."""

import shlex
from typing import Any, Dict, List, Optional, Tuple

from packaging.version import InvalidVersion, Version

from ..facts import Facts


def parse_version(text: Any) -> Optional[Version]:
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


def torch_version_str(facts: Facts) -> Optional[str]:
    """The installed torch version: from the import, else from the metadata."""
    v = facts.value("torch.version")
    if isinstance(v, str):
        return v
    meta = facts.value("packages.installed.torch.version")
    return meta if isinstance(meta, str) else None


def torch_version(facts: Facts) -> Optional[Version]:
    return parse_version(torch_version_str(facts))


def torch_base_version(facts: Facts) -> Optional[str]:
    v = torch_version(facts)
    return v.base_version if v else None


def torch_imported(facts: Facts) -> bool:
    return facts.value("torch_import.ok") is True


def torch_cuda(facts: Facts) -> Optional[str]:
    """CUDA version torch was built with ('13.0'), None for CPU/ROCm builds."""
    v = facts.value("torch.cuda")
    return v if isinstance(v, str) else None


def is_cuda_build(facts: Facts) -> Optional[bool]:
    """True/False when known; None when torch did not import."""
    if torch_cuda(facts):
        return True
    if facts.has("torch.cuda") or facts.state("torch.cuda") == "absent":
        return False
    tag = local_tag(facts)
    if tag:
        return tag.startswith("cu")
    return None


def local_tag(facts: Facts) -> Optional[str]:
    """'cpu', 'cu130', 'rocm6.2'... from the imported version or the metadata."""
    v = torch_version_str(facts)
    return v.split("+", 1)[1] if v and "+" in v else None


def is_rocm_build(facts: Facts) -> bool:
    return isinstance(facts.value("torch.hip"), str)


def os_name(facts: Facts) -> str:
    system = facts.value("os.system") or ""
    return {"Linux": "linux", "Windows": "windows", "Darwin": "macos"}.get(system, system.lower() or "linux")


def driver_gpus(facts: Facts) -> List[Dict[str, Any]]:
    """NVIDIA GPUs the driver sees (independent of torch and of CUDA_VISIBLE_DEVICES)."""
    g = facts.value("driver.gpus")
    return [x for x in g if isinstance(x, dict)] if isinstance(g, list) else []


def torch_gpus(facts: Facts) -> List[Dict[str, Any]]:
    g = facts.value("cuda.devices")
    return [x for x in g if isinstance(x, dict)] if isinstance(g, list) else []


def all_gpus(facts: Facts) -> List[Dict[str, Any]]:
    return driver_gpus(facts) or torch_gpus(facts)


def capability(gpu: Dict[str, Any]) -> Optional[Tuple[int, int]]:
    cap = gpu.get("capability")
    if isinstance(cap, (list, tuple)) and len(cap) == 2 and all(isinstance(x, int) for x in cap):
        return int(cap[0]), int(cap[1])
    return None


def driver_version(facts: Facts) -> Optional[str]:
    v = facts.value("driver.driver_version")
    return v if isinstance(v, str) else None


def has_nvidia_driver(facts: Facts) -> bool:
    return facts.value("driver.present") is True


def nvcc_version(facts: Facts) -> Optional[str]:
    v = facts.value("toolkit.nvcc")
    return v if isinstance(v, str) else None


def env(facts: Facts, name: str) -> Optional[str]:
    v = facts.value("env." + name)
    return v if isinstance(v, str) else None


def package_version(facts: Facts, name: str) -> Optional[str]:
    v = facts.value("packages.installed.%s.version" % name)
    return v if isinstance(v, str) else None


def installed_with_conda(facts: Facts) -> bool:
    """torch came from a conda package rather than a pip wheel."""
    if facts.has("packages.installed.conda:pytorch"):
        return True
    return facts.value("packages.installed.torch.installer") == "conda"


def python_cmd(facts: Facts) -> str:
    """The target interpreter, quoted for its shell, so fixes hit the right env."""
    exe = facts.value("python.executable") or facts.value("probe.python") or "python"
    if not any(c in exe for c in " '\"&()"):
        return exe
    return '"%s"' % exe if os_name(facts) == "windows" else shlex.quote(exe)


def pip_cmd(facts: Facts) -> str:
    return python_cmd(facts) + " -m pip"
