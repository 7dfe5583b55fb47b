"""In-process facts of a running program: the torch *it* imported, with the settings it made.

A good guest: this never imports torch (a program that has not imported it gets the cheap
facts of `explain` only), never initialises CUDA (a CUDA build whose CUDA the program has
not initialised is not asked about devices: `torch.cuda.is_available()` can initialise the
driver and poison later forks), and reads memory statistics only when CUDA is already up.
Driver, OS and toolkit facts load lazily, only if a tailoring hook asks for them.
"""

import os
import sys
from typing import Any, Dict, Optional

from ..model.facts import Facts, absent, failed

LIVE = "live"


def imported_torch():
    """The torch module this process has finished importing, or None."""
    t = sys.modules.get("torch")
    if t is None or not hasattr(t, "__version__"):
        return None
    spec = getattr(t, "__spec__", None)
    if getattr(spec, "_initializing", False):  # the failure happened inside `import torch`
        return None
    return t


def _call(fn, *args):
    try:
        v = fn(*args)
    except Exception as e:  # noqa: BLE001 - a failed read is a fact
        return failed("%s: %s" % (type(e).__name__, e))
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def cuda_initialized(torch) -> bool:
    cuda = getattr(torch, "cuda", None)
    fn = getattr(cuda, "is_initialized", None)
    try:
        return bool(fn()) if callable(fn) else False
    except Exception:  # noqa: BLE001
        return False


def _cuda_built(torch) -> Any:
    tv = getattr(torch, "version", None)
    return bool(getattr(tv, "cuda", None) or getattr(tv, "hip", None))


def memory_stats(torch) -> Any:
    """Allocator figures per device; only called when CUDA is already initialised."""
    cuda = torch.cuda
    out = []
    try:
        n = cuda.device_count()
    except Exception as e:  # noqa: BLE001
        return failed("%s: %s" % (type(e).__name__, e))
    for i in range(min(n, 64)):
        dev: Dict[str, Any] = {"index": i}
        for key, name in (("allocated", "memory_allocated"), ("reserved", "memory_reserved"),
                          ("max_allocated", "max_memory_allocated"), ("max_reserved", "max_memory_reserved")):
            fn = getattr(cuda, name, None)
            dev[key] = _call(fn, i) if callable(fn) else absent("torch.cuda.%s missing" % name)
        fn = getattr(cuda, "mem_get_info", None)
        if callable(fn):
            try:
                free, total = fn(i)
                dev["free"], dev["total"] = int(free), int(total)
            except Exception as e:  # noqa: BLE001
                dev["free"] = failed("%s: %s" % (type(e).__name__, e))
        out.append(dev)
    return out


def kernel_kind() -> Optional[str]:
    """'colab' or 'ipykernel' when this process is a notebook kernel, else None."""
    if "google.colab" in sys.modules:
        return "colab"
    if "ipykernel" in sys.modules:
        try:
            ip = sys.modules["IPython"].get_ipython()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            ip = None
        if ip is not None and type(ip).__name__ == "ZMQInteractiveShell":
            return "ipykernel"
    return None


def settings(torch) -> Dict[str, Any]:
    """What the program set at run time that a fresh probe cannot see."""
    out: Dict[str, Any] = {"torch_imported": True}
    for key, name in (("default_dtype", "get_default_dtype"), ("default_device", "get_default_device")):
        fn = getattr(torch, name, None)
        out[key] = _call(fn) if callable(fn) else absent("torch.%s does not exist in this version" % name)
    init = cuda_initialized(torch)
    out["cuda_initialized"] = init
    v = os.environ.get("CUDA_VISIBLE_DEVICES")
    out["cuda_visible_devices"] = v if v is not None else absent("not set")
    out["cuda_memory"] = memory_stats(torch) if init else absent("CUDA is not initialised in this process")
    return out


def _cuda_section(torch) -> Dict[str, Any]:
    from . import target
    if not _cuda_built(torch) or cuda_initialized(torch):
        return target.cuda_facts(torch)  # nothing to initialise, or already initialised
    return {"initialized": False}  # the rest stays unknown: asking would initialise CUDA


def _accelerators(torch) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name in ("xpu", "mps", "mtia"):
        mod = getattr(torch, name, None)
        if mod is None:
            out[name] = absent("torch.%s does not exist" % name)
            continue
        init = getattr(mod, "is_initialized", None)
        if name != "mps" and callable(init) and _call(init) is not True:
            continue  # asking a device count could initialise it
        fn = getattr(mod, "is_available", None)
        if callable(fn):
            out[name] = {"is_available": _call(fn)}
    return out


def torch_sections(torch) -> Dict[str, Any]:
    from . import target
    sections: Dict[str, Any] = {"torch_import": {"ok": True, "in_process": True}}
    for name, fn in (("torch_location", target.torch_location_facts),
                     ("torch", lambda: target.torch_build_facts(torch)),
                     ("backends", lambda: target.backends_facts(torch)),
                     ("accelerators", lambda: _accelerators(torch)),
                     ("cuda", lambda: _cuda_section(torch))):
        try:
            sections[name] = fn()
        except Exception as e:  # noqa: BLE001
            sections[name] = failed("%s: %s" % (type(e).__name__, e))
    return sections


def live_facts() -> Facts:
    """Facts of this process: explain's cheap facts plus the torch it imported, as it is now."""
    from .light import light_facts
    light = light_facts()
    values: Dict[str, Any] = {"source": LIVE}
    torch = imported_torch()
    live: Dict[str, Any]
    if torch is None:
        live = {"torch_imported": False}
    else:
        values.update(torch_sections(torch))
        try:
            live = settings(torch)
        except Exception as e:  # noqa: BLE001
            live = failed("%s: %s" % (type(e).__name__, e))
    kind = kernel_kind()
    if isinstance(live, dict):
        live["kernel"] = kind if kind else absent("not a notebook kernel")
    values[LIVE] = live
    return light.with_values(values)


def overlay(facts: Facts) -> Facts:
    """A child probe's facts of this interpreter with this process's live settings on top
    (backends flags, runtime settings, what it set), for `%torchdoctor check`: a new Facts."""
    live = live_facts()
    torch = imported_torch()
    values: Dict[str, Any] = {}
    if torch is not None and facts.value("torch_import.ok") is True:
        for key in ("backends",):
            if live.state(key) == "present":
                values[key] = live.data[key]
        runtime = live.value("torch.runtime")
        if isinstance(runtime, dict) and isinstance(facts.value("torch"), dict):
            values["torch.runtime"] = runtime
        env = live.value("env")
        if isinstance(env, dict):
            values["env"] = env  # as this process sees it now
    values[LIVE] = live.data.get(LIVE)
    return facts.with_values(values)
