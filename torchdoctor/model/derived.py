"""Derived facts: what every reader of facts (checks, tailoring hooks, advice, renderers,
diff) asks of the raw tree, answered in one place: the torch version and build, the GPUs
and driver, the platform, the interpreter and how to call its pip."""

import math
import re
import shlex
from typing import Any, Dict, List, Optional, Tuple

from . import versions as V
from ..kb import compat
from .facts import ABSENT, FAILED, PRESENT, UNKNOWN, Facts, state_of


def parse_version(text: Any):
    """A packaging Version of a version *string* (None for anything else): torchdoctor.model.versions."""
    return V.parse(text) if isinstance(text, str) else None


def torch_version_str(facts: Facts) -> Optional[str]:
    """The installed torch version: from the import, else from the metadata."""
    v = facts.value("torch.version")
    if isinstance(v, str):
        return v
    meta = facts.value("packages.installed.torch.version")
    return meta if isinstance(meta, str) else None


def torch_version(facts: Facts):
    return parse_version(torch_version_str(facts))


def torch_base_version(facts: Facts) -> Optional[str]:
    v = torch_version(facts)
    return v.base_version if v else None


def torch_imported(facts: Facts) -> bool:
    return facts.value("torch_import.ok") is True


def torch_cuda(facts: Facts) -> Optional[str]:
    """CUDA version torch was built with ('13.0'): the import's answer, else the
    +cuXYZ tag of the installed wheel; None for CPU/ROCm builds."""
    v = facts.value("torch.cuda")
    if isinstance(v, str):
        return v
    if facts.state("torch.cuda") == "absent":
        return None
    return compat.cuda_of_variant(local_tag(facts) or "")


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
    """torch.version.hip is set; when torch did not import (so torch.hip is unknown),
    the +rocmX.Y tag of the installed wheel says it."""
    if isinstance(facts.value("torch.hip"), str):
        return True
    if facts.state("torch.hip") != "unknown":
        return False
    return (local_tag(facts) or "").startswith("rocm")


def is_jetson(facts: Facts) -> bool:
    """An NVIDIA Jetson (L4T): its kernel release ends in -tegra (5.15.148-tegra)."""
    rel = facts.value("os.release")
    return os_name(facts) == "linux" and isinstance(rel, str) and "tegra" in rel.lower()


def python_machine(facts: Facts) -> Optional[str]:
    m = facts.value("python.machine")
    return m if isinstance(m, str) and m else None


def macos_x86_64(facts: Facts) -> bool:
    """An x86_64 Python on macOS (an Intel Mac, or Rosetta): only torch <= 2.2 has wheels."""
    if os_name(facts) != "macos":
        return False
    m = python_machine(facts)
    if m:
        return m.lower() in ("x86_64", "amd64", "i386")
    return facts.value("os.machine") == "x86_64" and facts.value("os.apple_silicon") is not True


def os_name(facts: Facts) -> str:
    system = facts.value("os.system") or ""
    return {"Linux": "linux", "Windows": "windows", "Darwin": "macos"}.get(system, system.lower() or "linux")


def os_of(facts: Facts) -> Optional[str]:
    """linux/windows/macos from the OS facts, else from the interpreter's sys.platform; None
    if unknown (os_name() says "linux" then)."""
    if facts.has("os.system"):
        return os_name(facts)
    plat = facts.value("python.platform")
    if isinstance(plat, str):
        if plat.startswith("win"):
            return "windows"
        if plat == "darwin":
            return "macos"
        if plat.startswith("linux"):
            return "linux"
    return None


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


def driver_cuda(facts: Facts) -> Optional[str]:
    """Newest CUDA the driver supports: as the driver reports it, else from the tables."""
    v = facts.value("driver.cuda_driver_version")
    if isinstance(v, str):
        return v
    drv = driver_version(facts)
    return compat.max_cuda_for_driver(drv, os_name(facts)) if drv else None


def driver_desc(facts: Facts) -> Optional[str]:
    """'NVIDIA driver 550.54.15 (supports CUDA up to 12.4)', None without a driver."""
    drv = driver_version(facts)
    if not drv:
        return None
    return "NVIDIA driver %s (supports CUDA up to %s)" % (drv, driver_cuda(facts) or "?")


def no_driver_desc(facts: Facts) -> str:
    """'no NVIDIA driver found (NVML, nvidia-smi and libcuda all absent)': why no driver
    version is known, said once (the probe's reason may already start with the same words)."""
    why = facts.reason("driver.driver_version") or "nothing answered"
    return why if why.lower().startswith("no nvidia driver") else "no NVIDIA driver found (%s)" % why


def has_nvidia_driver(facts: Facts) -> bool:
    return facts.value("driver.present") is True


def nvcc_version(facts: Facts) -> Optional[str]:
    v = facts.value("toolkit.nvcc")
    return v if isinstance(v, str) else None


def env(facts: Facts, name: str) -> Optional[str]:
    v = facts.value("env." + name)
    return v if isinstance(v, str) else None


def package_absent(facts: Facts, name: str) -> bool:
    """The probe looked for `name` and found none: recorded absent, or one of the names this version's
    probe reports whenever installed, missing from a listing it made. Any other name is unknown."""
    if facts.state("packages.installed.%s" % name) == ABSENT:
        return True
    listing = facts.value("packages.installed")
    if not isinstance(listing, dict) or name in listing:
        return False
    from ..gather.target import COLLECT_ENV_PATTERNS, listing_covers, reported
    rules = facts.value("packages.reported")
    # a pasted listing, or one made under rules older than this name's (rules 3 on only added names,
    # REPORTED_SINCE; what rules 1-2 covered is not recorded): it says nothing of what it left out
    if not isinstance(rules, int) or isinstance(rules, bool) or rules < 3 or not listing_covers(rules, name):
        return False
    return reported(name, COLLECT_ENV_PATTERNS)


def package_installed(facts: Facts, name: str) -> bool:
    """A distribution of that name is installed, whether or not its version could be read."""
    return isinstance(facts.value("packages.installed.%s.version" % name), str)


def package_version(facts: Facts, name: str) -> Optional[str]:
    """The installed version as the probe recorded it ("unknown" for metadata without a Version
    field); None when not installed. To compare or pin, read package_release."""
    v = facts.value("packages.installed.%s.version" % name)
    return v if isinstance(v, str) else None


def package_release(facts: Facts, name: str) -> Optional[str]:
    """The installed version when it was read; None when not installed or unreadable."""
    v = package_version(facts, name)
    return None if v == "unknown" else v


def installed_starting(facts: Facts, prefix: str) -> List[str]:
    """The installed distributions whose name starts with `prefix` (nvidia-cudnn-cu), sorted."""
    inst = facts.value("packages.installed")
    return sorted(k for k in (inst if isinstance(inst, dict) else {}) if isinstance(k, str) and k.startswith(prefix))


def installed_with_conda(facts: Facts, dist: str = "torch", conda_name: str = "pytorch") -> bool:
    """The distribution (torch by default) came from a conda package rather than a pip wheel."""
    if facts.has("packages.installed.conda:" + conda_name):
        return True
    return facts.value("packages.installed.%s.installer" % dist) == "conda"


def conda_torch_variant(facts: Facts) -> Optional[str]:
    """'cpu' / 'cu124' from the build string of conda's pytorch package
    ('py3.11_cpu_0', 'py3.11_cuda12.4_cudnn9.1.0_0'); None when unknown."""
    build = facts.value("packages.installed.conda:pytorch.build")
    if not isinstance(build, str):
        return None
    m = re.search(r"cuda(\d+)\.(\d+)|cuda(\d\d)(\d)(?!\d)", build)  # pytorch: cuda12.4, conda-forge: cuda126
    if m:
        return "cu%s%s" % ((m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4)))
    return "cpu" if re.search(r"(?:^|_)cpu(?:_|$)", build) else None


def shell_path(facts: Facts, path: str) -> str:
    """A program's path quoted for this machine's shell, as the first word of a command."""
    if os_name(facts) == "windows":
        # cmd.exe and PowerShell both take a double-quoted program path.
        return '"%s"' % path if any(c in path for c in " &()[]{}^=;!'+,`~%$@#") else path
    return shlex.quote(path)  # unchanged unless the shell would split or expand it


def python_cmd(facts: Facts) -> str:
    """The target interpreter, quoted for its shell, so fixes hit the right env."""
    return shell_path(facts, facts.value("python.executable") or facts.value("probe.python") or "python")


def pip_cmd(facts: Facts) -> str:
    return python_cmd(facts) + " -m pip"


def backend_state(facts: Facts, backend: str, attr: str) -> str:
    """State of torch.backends.<backend>.<attr> as probed.

    The probe stores dotted attributes ('matmul.allow_tf32',
    'conv.fp32_precision') as single keys, which a dotted facts path cannot
    reach; these helpers can. A missing backend section gives its own state.
    """
    st = facts.state("backends." + backend)
    if st != PRESENT:
        return st
    sec = facts.value("backends." + backend)
    if not isinstance(sec, dict) or attr not in sec:
        return UNKNOWN
    return state_of(sec[attr])


def backend_value(facts: Facts, backend: str, attr: str, default: Any = None) -> Any:
    """torch.backends.<backend>.<attr> when present, else default."""
    if backend_state(facts, backend, attr) != PRESENT:
        return default
    return facts.value("backends." + backend)[attr]


def backend_reason(facts: Facts, backend: str, attr: str) -> str:
    """Why torch.backends.<backend>.<attr> is absent or failed ('' if present)."""
    st = facts.state("backends." + backend)
    if st != PRESENT:
        return facts.reason("backends." + backend)
    node = (facts.value("backends." + backend) or {}).get(attr)
    if backend_state(facts, backend, attr) in (ABSENT, FAILED):
        return next(iter(node.values()))
    return ""


def _count(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def logical_cores(facts: Facts) -> Optional[int]:
    return _count(facts.value("cpu.logical_cores"))


def physical_cores(facts: Facts) -> Optional[int]:
    return _count(facts.value("cpu.physical_cores"))


def usable_cores(facts: Facts) -> Optional[int]:
    """CPUs this process can actually run on: the affinity mask (else the
    logical count), capped by a cgroup CPU quota (containers, Slurm)."""
    n = _count(facts.value("cpu.affinity_cores")) or logical_cores(facts)
    quota = facts.value("cpu.cgroup_cpu_limit")
    if isinstance(quota, (int, float)) and not isinstance(quota, bool) and quota > 0:
        q = max(1, int(math.ceil(quota)))
        n = min(n, q) if n else q
    return n


def cpu_limits_text(facts: Facts) -> str:
    """'2 logical / 2 physical cores, affinity 2, cgroup quota 1.5 CPUs' - the facts behind usable_cores."""
    parts = []
    if logical_cores(facts):
        parts.append("%d logical" % logical_cores(facts))
    if physical_cores(facts):
        parts.append("%d physical cores" % physical_cores(facts))
    if _count(facts.value("cpu.affinity_cores")):
        parts.append("CPU affinity %d" % facts.value("cpu.affinity_cores"))
    quota = facts.value("cpu.cgroup_cpu_limit")
    if isinstance(quota, (int, float)) and not isinstance(quota, bool):
        parts.append("cgroup quota %g CPUs" % quota)
    return ", ".join(parts) or "core count unknown"


def container(facts: Facts) -> Optional[str]:
    """'docker', 'kubepods', ... when the probe ran in a container, else None."""
    c = facts.value("os.container")
    return c if isinstance(c, str) and c else None


def env_int(facts: Facts, name: str) -> Optional[int]:
    v = env(facts, name)
    try:
        return int(v.strip()) if v is not None else None
    except ValueError:
        return None


def distro_family(facts: Facts) -> str:
    """The Linux package manager family of this machine's distribution: apt, dnf or pacman
    (apt where the distribution is unknown)."""
    d = str(facts.value("os.distro") or "").lower()
    if any(k in d for k in ("fedora", "red hat", "rhel", "centos", "rocky", "alma", "amazon")):
        return "dnf"
    if any(k in d for k in ("arch", "manjaro")):
        return "pacman"
    return "apt"


def machine(facts: Facts) -> str:
    """The CPU type the target interpreter runs as ("x86_64", "arm64"), lower-cased; "" if unknown."""
    m = facts.value("python.machine") or facts.value("os.machine") or ""
    return str(m).lower()


def python_minor(facts: Facts) -> Optional[str]:
    """"3.11" of the target's "3.11.7" (or "3.13.0rc1"); None when no version was read."""
    py = facts.value("python.version")
    m = re.match(r"(\d+)\.(\d+)", py) if isinstance(py, str) else None
    return "%s.%s" % m.groups() if m else None


def visible_gpus(facts: Facts) -> List[Dict[str, Any]]:
    """GPUs torch sees (after CUDA_VISIBLE_DEVICES); the driver's list when torch saw none."""
    return torch_gpus(facts) or driver_gpus(facts)


def unset_env_cmd(facts: Facts, name: str) -> str:
    """The shell command that unsets an environment variable on this OS."""
    return "set %s=" % name if os_name(facts) == "windows" else "unset %s" % name


def set_env_cmd(facts: Facts, name: str, value: str) -> str:
    return "set %s=%s" % (name, value) if os_name(facts) == "windows" else "export %s=%s" % (name, value)


def prepend_path_cmd(name: str, entry: str) -> str:
    """The POSIX shell command that puts `entry` first in a path variable; an empty variable gets
    no trailing ':' (an empty entry means the current directory to the loader)."""
    return "export %s=%s${%s:+:$%s}" % (name, entry, name, name)


def path_var(facts: Facts, name: str) -> List[str]:
    """The entries of a path variable (PYTHONPATH, LD_LIBRARY_PATH, LD_PRELOAD, ...) as the
    target interpreter saw them; [] when unset or unknown."""
    v = facts.value("import_env.%s" % name)
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def path_var_read(facts: Facts, name: str) -> Optional[List[str]]:
    """A path variable's entries as the probe read them, else from the environment of the shell
    that ran torchdoctor (the target inherits it: explain's light facts have no probe); None when
    neither was read, [] when it is not set."""
    if facts.state("import_env.%s" % name) in (PRESENT, ABSENT):
        return path_var(facts, name)
    if facts.state("env.%s" % name) == ABSENT:
        return []
    v = facts.value("env.%s" % name)
    if not isinstance(v, str):
        return None
    from ..gather.target import split_path_value
    return split_path_value(name, v, ";" if os_name(facts) == "windows" else ":")


def path_var_without(facts: Facts, name: str, drop: List[str]) -> str:
    """The shell command that takes `drop` out of a path variable (unset when nothing is left)."""
    rest = [e for e in path_var_read(facts, name) or [] if e not in drop]
    if not rest:
        return unset_env_cmd(facts, name)
    windows = os_name(facts) == "windows"
    sep = " " if name == "LD_PRELOAD" and all(":" not in e for e in rest) else (";" if windows else ":")
    value = sep.join(rest)
    return set_env_cmd(facts, name, value if windows else shlex.quote(value))


def gib(n: Any) -> str:
    """Bytes as '0.06 GiB' / '8 GiB' for finding texts."""
    if not isinstance(n, (int, float)) or isinstance(n, bool):
        return "?"
    g = n / float(1 << 30)
    return ("%.0f GiB" % g) if g >= 10 or g == int(g) else ("%.2f GiB" % g)


def gpu_desc(g: Dict[str, Any]) -> str:
    """'NVIDIA GeForce GTX 1080 (sm_61)'."""
    cap = capability(g)
    return "%s (sm_%d%d)" % (g.get("name", "GPU"), cap[0], cap[1]) if cap else str(g.get("name", "GPU"))


def driver_floor(cuda: Optional[str], os_: str) -> Optional[str]:
    """Lowest driver that runs code built with that CUDA (minor-version compatibility counts)."""
    md = compat.min_driver(cuda, os_) if cuda else None
    if not md:
        return None
    if md.get("mvc") or md.get("full"):
        return md.get("mvc") or md.get("full")
    return "the %s branch" % md["full_branch"] if md.get("full_branch") else None


def arch_list(facts: Facts) -> Tuple[Optional[List[str]], str]:
    """torch's arch list and where it came from: the live build, else the published list."""
    al = facts.value("cuda.arch_list")
    if isinstance(al, list) and al:
        return al, "torch.cuda.get_arch_list()"
    base, tag = torch_base_version(facts), local_tag(facts)
    if base and tag and tag.startswith("cu"):
        al = compat.arch_list(base, tag)
        if al:
            return al, "the published arch list of torch %s+%s" % (base, tag)
    return None, ""


def pci_gpus(facts: Facts) -> List[Dict[str, Any]]:
    """NVIDIA devices on the PCI bus (seen even where no driver is loaded)."""
    g = facts.value("driver.pci_gpus")
    return g if isinstance(g, list) else []


def pci_amd_gpus(facts: Facts) -> List[Dict[str, Any]]:
    """AMD GPUs on the PCI bus (discrete or integrated), seen without any driver."""
    g = facts.value("driver.pci_amd_gpus")
    return g if isinstance(g, list) else []


def gpu_names(facts: Facts) -> str:
    """'NVIDIA A100-SXM4-80GB (sm_80), ...' for every GPU the facts know."""
    return ", ".join(gpu_desc(g) for g in all_gpus(facts))


# Values of an environment variable that mean "off" (KMP_DUPLICATE_LIB_OK=0, ...=false).
ENV_FALSE = ("", "0", "false", "no", "off", ".false.", "f", "n")
