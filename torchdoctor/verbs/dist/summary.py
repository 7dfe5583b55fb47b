"""One rank's compact facts: what rank 0 needs to compare ranks and place them.

Built inside the rank from the probe's facts (`torchdoctor.gather.probe.gather`, in-process:
the rank has imported torch already) plus what only a rank of a job knows (its GPU by
LOCAL_RANK, its CPU affinity, the NCCL it loaded, its node's interfaces). Redacted with
`torchdoctor.redact` before it leaves the rank; the only names kept are in `where`
(host name, pid), which rank 0 needs to say where a rank runs and which the Markdown
report redacts again.
"""

import hashlib
import os
import re
import socket
import time
from typing import Any, Dict, List, Mapping, Optional

from ... import __version__
from ...model.facts import Facts
from . import topology

SUMMARY_VERSION = 1
EXTRA_ENV = re.compile(r"^(?:NCCL_|TORCH_NCCL_|GLOO_|TORCH_GLOO_|TORCH_DISTRIBUTED_|FI_|UCX_|NVSHMEM_|OMP_NUM_THREADS$)")
NOT_PACKAGES = {"pip", "setuptools", "wheel", "torch"}
NCCL_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
             "/usr/local/cuda/lib64", "/usr/local/lib", "/opt/nccl/lib")


def boot_id() -> str:
    for path in ("/proc/sys/kernel/random/boot_id",):
        try:
            with open(path) as fh:
                return fh.read().strip()
        except OSError:
            pass
    return ""


def pid_namespace() -> Optional[str]:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def where(rank: int, local_rank: Optional[int], local_world: Optional[int], node_rank: Optional[int]) -> Dict[str, Any]:
    host = socket.gethostname()
    return {"rank": rank, "host": host,
            "node_id": hashlib.sha256(("%s|%s" % (host, boot_id())).encode()).hexdigest()[:12],
            "local_rank": local_rank, "local_world_size": local_world, "node_rank": node_rank,
            "pid": os.getpid(), "pidns": pid_namespace(), "started": time.time()}


def cpu_list(cpus) -> str:
    """{0, 1, 2, 5} -> '0-2,5'."""
    from .jobfacts import ranges
    return ranges(cpus)


def device_index(local_rank: Optional[int], count: int) -> Optional[int]:
    """The GPU a rank uses: cuda:LOCAL_RANK, the only one it sees, or LOCAL_RANK wrapped around."""
    if count < 1:
        return None
    if local_rank is None:
        return 0
    if local_rank < count:
        return local_rank
    return 0 if count == 1 else local_rank % count


def loaded_nccl() -> Optional[str]:
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                m = re.search(r"(/\S*libnccl[^/\s]*\.so[^/\s]*)$", line.strip())
                if m:
                    return m.group(1)
    except OSError:
        pass
    return None


def system_nccl(dirs=NCCL_DIRS) -> List[str]:
    found = set()
    for d in dirs:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            m = re.match(r"^libnccl\.so\.(\d+\.\d+\.\d+)$", n)
            if m:
                found.add(m.group(1))
    return sorted(found)


def numpy_state(torch_module=None) -> Dict[str, Any]:
    """Whether NumPy imports here, and whether torch's bridge to it works."""
    try:
        import numpy  # noqa: F401
    except BaseException as e:  # noqa: BLE001 - an ImportError, or a broken NumPy's own error
        return {"ok": False, "error": ("%s: %s" % (type(e).__name__, e))[:300]}
    if torch_module is not None:
        try:
            torch_module.zeros(1).numpy()
        except BaseException as e:  # noqa: BLE001
            return {"ok": False, "error": ("%s: %s" % (type(e).__name__, e))[:300]}
    return {"ok": True}


def build(facts: Optional[Facts], environ: Mapping[str, str], local_rank: Optional[int], torch_module=None,
          probe_error: Optional[str] = None, probe_seconds: Optional[float] = None,
          node: Optional[Dict[str, Any]] = None, ifaces: Optional[List[str]] = None) -> Dict[str, Any]:
    """The rank's summary, not yet redacted. `facts` may be None (the probe failed)."""
    f = facts if facts is not None else Facts({})
    s: Dict[str, Any] = {"v": SUMMARY_VERSION, "tool": __version__}
    s["python"] = {"version": f.value("python.version"), "implementation": f.value("python.implementation")}
    cudnn = f.value("backends.cudnn.version")
    s["torch"] = {"version": f.value("torch.version"), "cuda": f.value("torch.cuda"), "hip": f.value("torch.hip"),
                  "cudnn": cudnn, "git": (f.value("torch.git_version") or "")[:12] or None}
    installed = f.value("packages.installed") or {}
    s["packages"] = {k: (v.get("version") if isinstance(v, dict) and "version" in v else None)
                     for k, v in sorted(installed.items()) if k not in NOT_PACKAGES and not k.startswith("nvidia-nccl")}
    s["nccl"] = {"torch": f.value("cuda.nccl_version") if isinstance(f.value("cuda.nccl_version"), str) else None,
                 "wheels": {k: v.get("version") for k, v in installed.items()
                            if k.startswith("nvidia-nccl") and isinstance(v, dict)},
                 "loaded": loaded_nccl(), "system": system_nccl()}
    s["driver"] = {"version": f.value("driver.driver_version"), "cuda": f.value("driver.cuda_driver_version")}
    env: Dict[str, str] = {}
    for k, v in (f.value("env") or {}).items():
        if isinstance(v, str):
            env[k] = v
    for k, v in environ.items():
        if EXTRA_ENV.match(k):
            env[k] = v
    ours = set(filter(None, (environ.get("TORCHDOCTOR_DIST_SET") or "").split(",")))  # set by the self-launcher
    s["env"] = {k: v for k, v in sorted(env.items()) if k not in ours}
    available = f.value("cuda.is_available") is True
    count = f.value("cuda.device_count") if isinstance(f.value("cuda.device_count"), int) else 0
    s["cuda"] = {"available": available, "device_count": count if available else 0,
                 "visible": environ.get("CUDA_VISIBLE_DEVICES")}
    s["device"] = _device(f, torch_module, device_index(local_rank, count)) if available else None
    try:
        cpus = sorted(os.sched_getaffinity(0))
        s["affinity"] = {"cpus": cpu_list(cpus), "count": len(cpus)}
    except (AttributeError, OSError):
        s["affinity"] = None
    s["cores"] = f.value("cpu.affinity_cores") or f.value("cpu.logical_cores")
    shm = f.value("memory.shm_bytes")
    s["shm_bytes"] = shm if isinstance(shm, int) and not isinstance(shm, bool) else None
    s["numpy"] = numpy_state(torch_module)
    s["ifaces"] = ifaces if ifaces is not None else [i["name"] for i in topology.net_interfaces()]
    s["probe"] = {"ok": probe_error is None and bool(f.value("probe.completed")), "error": probe_error,
                  "seconds": probe_seconds, "mode": "in-process"}
    if node is not None:
        s["node"] = node
    return s


def _device(f: Facts, torch_module, idx: Optional[int]) -> Optional[Dict[str, Any]]:
    if idx is None:
        return None
    dev: Dict[str, Any] = {"index": idx}
    devices = f.value("cuda.devices")
    if isinstance(devices, list) and idx < len(devices) and isinstance(devices[idx], dict):
        d = devices[idx]
        dev["name"] = d.get("name") if isinstance(d.get("name"), str) else None
        cap = d.get("capability")
        if isinstance(cap, (list, tuple)) and len(cap) == 2:
            dev["capability"] = "%d.%d" % tuple(cap)
        if isinstance(d.get("total_memory"), int):
            dev["memory"] = d["total_memory"]
        dev["gpu_hash"] = topology.gpu_hash(d.get("uuid"))
    if torch_module is not None:
        try:
            props = torch_module.cuda.get_device_properties(idx)
            if not dev.get("gpu_hash"):
                dev["gpu_hash"] = topology.gpu_hash(str(getattr(props, "uuid", "") or ""))
            bus = getattr(props, "pci_bus_id", None)
            if isinstance(bus, int):
                dom = getattr(props, "pci_domain_id", 0) or 0
                slot = getattr(props, "pci_device_id", 0) or 0
                dev["pci_bus_id"] = "%04x:%02x:%02x.0" % (dom, bus, slot)
        except Exception:  # noqa: BLE001 - the device facts are a bonus
            pass
    if dev.get("pci_bus_id"):
        try:
            with open("/sys/bus/pci/devices/%s/numa_node" % dev["pci_bus_id"]) as fh:
                dev["numa_node"] = int(fh.read().strip())
        except (OSError, ValueError):
            pass
    return dev


def redact(summary: Dict[str, Any], environ: Mapping[str, str]) -> Dict[str, Any]:
    """The summary as it may leave the rank: torchdoctor.redact's Redactor over every value
    (secrets, user names, host names, addresses, UUIDs), knowing this rank's user and host."""
    from ...redact import Redactor
    r = Redactor()
    r.learn_host(socket.gethostname())
    for k in ("USER", "USERNAME", "LOGNAME"):
        r.learn_user(environ.get(k))
    home = environ.get("HOME")
    if home:
        r.learn_user(home.rstrip("/").split("/")[-1])
    addr = environ.get("MASTER_ADDR")
    if addr and not re.fullmatch(r"[\d.:\[\]a-fA-F]*", addr):
        r.learn_host(addr)
    out = r.value(summary)
    out["redacted"] = dict(sorted(r.counts.items()))
    return out
