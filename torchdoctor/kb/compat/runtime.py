"""What torch does at run time, from the tables' runtime_rules: cuDNN's GPU floor, the
cuBLAS workspace setting deterministic ops need, the macOS MPS needs, torch.compile's
Pythons, Inductor on Windows, allocator keys; and the torch.backends API history.
"""

import copy
from typing import Any, Dict, List, Optional, Tuple

from ...model import versions as V
from .tables import data, source


def _rule(name: str) -> Dict[str, Any]:
    return data()["runtime_rules"][name]


def cudnn_sm_floor() -> Dict[str, Any]:
    """cuDNN >= cudnn_int_min refuses GPUs below `sm` on torch >= torch_min."""
    r = _rule("cudnn_sm_floor")
    return {"cudnn_int_min": r["cudnn_int_min"], "torch_min": r["torch_min"], "sm": tuple(r["sm"]),
            "source": source(r["source"])}


def cublas_env_required(torch_version: Any) -> Optional[bool]:
    """Whether deterministic cuBLAS ops still demand CUBLAS_WORKSPACE_CONFIG in this torch."""
    minor = V.minor(torch_version)
    if minor is None:
        return None
    return V.parse(minor) <= V.parse(_rule("cublas_workspace_config_required")["torch_max"])


def cublas_deterministic_values() -> Tuple[str, ...]:
    return tuple(_rule("cublas_workspace_config_required")["values"])


def mps_min_macos(torch_version: Any = None) -> Tuple[int, int]:
    """Oldest macOS whose MPS this torch can use; without a version, the oldest of all."""
    rows = _rule("mps_min_macos")["by_torch"]
    minor = V.minor(torch_version) if torch_version is not None else None
    for row in rows:
        if minor is None or (("torch_max" not in row or V.parse(minor) <= V.parse(row["torch_max"])) and
                             ("torch_min" not in row or V.parse(minor) >= V.parse(row["torch_min"]))):
            return int(row["macos"][0]), int(row["macos"][1])
    return int(rows[-1]["macos"][0]), int(rows[-1]["macos"][1])


def last_torch_for_macos(macos: Tuple[int, int]) -> Optional[str]:
    """Newest torch minor whose MPS still runs on that macOS; None when every release does."""
    rows = _rule("mps_min_macos")["by_torch"]
    fits = [r for r in rows if tuple(r["macos"]) <= tuple(macos)]
    if len(fits) == len(rows):
        return None
    return max((r["torch_max"] for r in fits if "torch_max" in r), key=V.parse, default=None)


def compile_min_torch_for_python(python_version: Any) -> Optional[str]:
    """First torch minor whose torch.compile accepts this Python (None: any, or unknown)."""
    py = ".".join(str(python_version or "").split(".")[:2])
    return _rule("compile_python_support")["by_python"].get(py)


def windows_inductor_min() -> str:
    return _rule("windows_inductor")["torch_min"]


def alloc_conf_keys() -> Tuple[str, ...]:
    return tuple(_rule("alloc_conf_keys")["keys"])


def backend_paths() -> List[str]:
    """Every dotted torch.backends path the API history knows."""
    return list(data()["backends"])


def backend_api(dotted_path: Any) -> Optional[dict]:
    """{"added", "deprecated", "removed", "replacement", "note", "source"} of a torch.backends
    (or torch.nn.attention) name; added_or_earlier: already in the oldest sampled wheel (1.11)."""
    e = data()["backends"].get(str(dotted_path or "").strip())
    return copy.deepcopy(e) if e else None
