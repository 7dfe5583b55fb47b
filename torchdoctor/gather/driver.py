"""NVIDIA driver facts straight from NVML and libcuda, independent of torch.

Run as a child process (stdlib only) because a wedged driver can hang or crash
whoever loads it; prints one JSON object on stdout. ``nvidia-smi`` is parsed in
the parent (see system.py) and merged with this.
"""

import ctypes
import json
import os
import sys

NVML_NAMES = ("libnvidia-ml.so.1", "libnvidia-ml.so", "nvml.dll", "libnvidia-ml.dylib")
CUDA_NAMES = ("libcuda.so.1", "libcuda.so", "nvcuda.dll")


# Where drivers live when the loader's cache does not list them (WSL, the
# NVIDIA container toolkit, unconfigured ldconfig).
EXTRA_DIRS = ("/usr/lib/wsl/lib", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
              "/usr/lib64/nvidia", "/usr/lib/x86_64-linux-gnu/nvidia/current")


def _load(names):
    errors = []
    for name in names:
        try:
            return ctypes.CDLL(name), None
        except OSError as e:
            errors.append(str(e))
    if sys.platform.startswith("linux"):
        # dlopen already searched LD_LIBRARY_PATH and the ldconfig cache, which
        # is all find_library would do here, at the price of running ldconfig,
        # gcc and ld (80 ms of CPU) on every machine without a driver.
        cands = [os.path.join(d, n) for d in EXTRA_DIRS for n in names[:2]]
    else:
        lib = "nvidia-ml" if names is NVML_NAMES else ("nvcuda" if sys.platform == "win32" else "cuda")
        from ctypes.util import find_library
        found = find_library(lib)
        cands = [found] if found else []
    for path in cands:
        if not os.path.exists(path) and sys.platform.startswith("linux"):
            continue
        try:
            return ctypes.CDLL(path), None
        except OSError as e:
            errors.append(str(e))
    return None, errors[0] if errors else "not found"


def _cuda_ver(v):
    return "%d.%d" % (v // 1000, (v % 1000) // 10)


def nvml_facts():
    lib, err = _load(NVML_NAMES)
    if lib is None:
        return {"_absent": "NVML library not loadable: %s" % err}
    out = {}
    init = getattr(lib, "nvmlInit_v2", None) or lib.nvmlInit
    rc = init()
    if rc != 0:
        return {"_failed": "nvmlInit returned %d" % rc}
    try:
        buf = ctypes.create_string_buffer(96)
        if lib.nvmlSystemGetDriverVersion(buf, 96) == 0:
            out["driver_version"] = buf.value.decode("ascii", "replace")
        v = ctypes.c_int()
        fn = getattr(lib, "nvmlSystemGetCudaDriverVersion_v2", None) or getattr(
            lib, "nvmlSystemGetCudaDriverVersion", None)
        if fn is not None and fn(ctypes.byref(v)) == 0:
            out["cuda_driver_version"] = _cuda_ver(v.value)
        count = ctypes.c_uint()
        get_count = getattr(lib, "nvmlDeviceGetCount_v2", None) or lib.nvmlDeviceGetCount
        gpus = []
        if get_count(ctypes.byref(count)) == 0:
            get_handle = getattr(lib, "nvmlDeviceGetHandleByIndex_v2", None) or lib.nvmlDeviceGetHandleByIndex
            for i in range(count.value):
                h = ctypes.c_void_p()
                if get_handle(i, ctypes.byref(h)) != 0:
                    continue
                gpu = {"index": i}
                if lib.nvmlDeviceGetName(h, buf, 96) == 0:
                    gpu["name"] = buf.value.decode("utf-8", "replace")
                major, minor = ctypes.c_int(), ctypes.c_int()
                if lib.nvmlDeviceGetCudaComputeCapability(h, ctypes.byref(major), ctypes.byref(minor)) == 0:
                    gpu["capability"] = [major.value, minor.value]

                class Mem(ctypes.Structure):
                    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong),
                                ("used", ctypes.c_ulonglong)]
                mem = Mem()
                if lib.nvmlDeviceGetMemoryInfo(h, ctypes.byref(mem)) == 0:
                    gpu["total_memory"] = int(mem.total)
                if lib.nvmlDeviceGetUUID(h, buf, 96) == 0:
                    gpu["uuid"] = buf.value.decode("ascii", "replace")
                gpus.append(gpu)
        out["gpus"] = gpus
    finally:
        try:
            lib.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass
    return out


def libcuda_facts():
    lib, err = _load(CUDA_NAMES)
    if lib is None:
        return {"_absent": "libcuda not loadable: %s" % err}
    v = ctypes.c_int()
    rc = lib.cuDriverGetVersion(ctypes.byref(v))
    if rc != 0:
        return {"_failed": "cuDriverGetVersion returned %d" % rc}
    return {"cuda_driver_version": _cuda_ver(v.value)}


def collect():
    out = {}
    for key, fn in (("nvml", nvml_facts), ("libcuda", libcuda_facts)):
        try:
            out[key] = fn()
        except Exception as e:  # noqa: BLE001
            out[key] = {"_failed": "%s: %s" % (type(e).__name__, e)}
    return out


if __name__ == "__main__":
    sys.stdout.write(json.dumps(collect()))
