"""diff: what differs between two environments ("works on my machine").

Either side may be a torchdoctor report (JSON or Markdown) or a collect_env
paste: all are read by ``triage``, so they become the same facts tree and are
diagnosed by the same checks. Values are compared as facts, not as text: a
path that one side does not know (a paste that lacks it) is listed as *not
comparable*, not as a difference.
"""

from ..model.records import field, record
from typing import Any, Dict, List, Optional, Tuple

from ..model.facts import ABSENT, FAILED, PRESENT, UNKNOWN, Facts
from .triage import TriageError, TriageResult, triage_bytes

# (area, label, facts path) compared by default; --all adds every other leaf.
FIELDS: Tuple[Tuple[str, str, str], ...] = (
    ("torch", "version", "torch.version"),
    ("torch", "CUDA build", "torch.cuda"),
    ("torch", "ROCm/HIP build", "torch.hip"),
    ("torch", "XPU build", "torch.xpu"),
    ("torch", "debug build", "torch.debug"),
    ("torch", "imports", "torch_import.ok"),
    ("CUDA", "torch.cuda.is_available()", "cuda.is_available"),
    ("CUDA", "device count", "cuda.device_count"),
    ("CUDA", "arch list", "cuda.arch_list"),
    ("CUDA", "NCCL", "cuda.nccl_version"),
    ("CUDA", "toolkit (nvcc)", "toolkit.nvcc"),
    ("driver", "NVIDIA driver", "driver.driver_version"),
    ("driver", "driver's CUDA", "driver.cuda_driver_version"),
    ("cuDNN", "loaded by torch", "backends.cudnn.version"),
    ("cuDNN", "enabled", "backends.cudnn.enabled"),
    ("python", "version", "python.version"),
    ("python", "implementation", "python.implementation"),
    ("python", "conda", "python.conda"),
    ("python", "virtualenv", "python.virtualenv"),
    ("OS", "system", "os.system"),
    ("OS", "distribution", "os.distro"),
    ("OS", "macOS", "os.macos_version"),
    ("OS", "Windows", "os.windows"),
    ("OS", "kernel", "os.release"),
    ("OS", "machine", "os.machine"),
    ("OS", "libc", "os.libc"),
    ("OS", "WSL", "os.wsl"),
    ("OS", "container", "os.container"),
    ("CPU", "model", "cpu.model"),
    ("CPU", "cores", "cpu.logical_cores"),
)
SKIP_ALL = ("probe", "collected_at", "tool", "source", "redaction", "python.sys_path", "python.cwd",
            "torch_location.cwd", "torch_import.duration_s", "memory.available_bytes", "cpu.lscpu")


@record
class Change:
    area: str
    key: str
    a: str
    b: str

    def to_dict(self) -> Dict[str, str]:
        return {"area": self.area, "key": self.key, "a": self.a, "b": self.b}


@record
class Diff:
    a: TriageResult
    b: TriageResult
    name_a: str
    name_b: str
    changes: List[Change] = field(default_factory=list)
    not_comparable: List[Change] = field(default_factory=list)
    same: int = 0
    findings_only_a: List[Dict[str, str]] = field(default_factory=list)
    findings_only_b: List[Dict[str, str]] = field(default_factory=list)
    findings_both: List[str] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema_version": 1,
            "a": {"input": self.name_a, "format": self.a.kind},
            "b": {"input": self.name_b, "format": self.b.kind},
            "changes": [c.to_dict() for c in self.changes],
            "not_comparable": [c.to_dict() for c in self.not_comparable],
            "same": self.same,
            "findings": {"only_a": self.findings_only_a, "only_b": self.findings_only_b, "both": self.findings_both},
        }


def diff_files(a: str, b: str, show_all: bool = False) -> "Diff":
    """`torchdoctor diff A B`: InputError (a ValueError) when either cannot be read as a report
    or paste with facts."""
    from .common import InputError
    try:
        ra, rb = load_any(a), load_any(b)
    except TriageError as e:
        raise InputError(str(e))
    return diff_reports(ra, rb, a, b, show_all=show_all)


def load_any(path: str) -> TriageResult:
    """A report or paste from a file, through triage (TriageError on bad input)."""
    from ..userfiles import read_head
    from .triage import MAX_BYTES
    try:
        data = read_head(path, MAX_BYTES + 1)
    except ValueError as e:
        raise TriageError(str(e))
    result = triage_bytes(data, path)
    if result.kind == "error-text":
        raise TriageError("%s has no environment facts to compare (only error text)" % path)
    return result


def _show(facts: Facts, path: str) -> Tuple[str, str]:
    """(state, text) of one path."""
    st = facts.state(path)
    if st == PRESENT:
        v = facts.value(path)
        if v is None:
            return ABSENT, "(none)"
        if isinstance(v, bool):
            return st, "yes" if v else "no"
        if isinstance(v, list):
            return st, " ".join(str(x) for x in v) if v else "none"
        if isinstance(v, dict):
            return st, "present"
        return st, str(v)
    if st == ABSENT:
        return st, "(none)"
    if st == FAILED:
        return st, "(failed: %s)" % facts.reason(path)[:120]
    return st, "(unknown)"


def _gpus(facts: Facts) -> Tuple[str, str]:
    from ..model import derived as F
    gpus = F.all_gpus(facts)
    if gpus:
        names = []
        for g in gpus:
            cap = F.capability(g)
            names.append("%s%s" % (g.get("name", "GPU"), " (sm_%d%d)" % cap if cap else ""))
        return PRESENT, ", ".join(names)
    if facts.state("driver.gpus") == UNKNOWN and facts.state("cuda.devices") == UNKNOWN:
        return UNKNOWN, "(unknown)"
    return ABSENT, "(none)"


def _compare(d: Diff, area: str, key: str, sa: Tuple[str, str], sb: Tuple[str, str]) -> None:
    (sta, va), (stb, vb) = sa, sb
    if sta == UNKNOWN and stb == UNKNOWN:
        return
    if va == vb:
        d.same += 1
        return
    if sta == ABSENT and stb == ABSENT:
        d.same += 1  # both absent, for different stated reasons
        return
    c = Change(area, key, va, vb)
    (d.not_comparable if UNKNOWN in (sta, stb) else d.changes).append(c)


def _package_versions(facts: Facts) -> Tuple[bool, Dict[str, Tuple[str, str]]]:
    inst = facts.value("packages.installed")
    if not isinstance(inst, dict):
        return False, {}
    out = {}
    for name, rec in inst.items():
        if isinstance(rec, dict) and "version" in rec:
            out[name] = (PRESENT, str(rec["version"]))
        elif isinstance(rec, dict) and "_absent" in rec:
            out[name] = (ABSENT, "(not installed)")
    return True, out


# Every collect_env release lists the pip and conda packages whose names hold these words
# (newer ones add triton, optree, onnx, cuda/cudnn/nccl libraries...).
COLLECT_ENV_ALWAYS_LISTED = ("torch", "numpy")


def _missing(facts: Facts, area: str, name: str, known: bool, missing_word: str) -> Tuple[str, str]:
    """State of a package or env var one side does not list: absent when that side would
    have listed it; unknown when it lists only some (collect_env names only packages that
    match its patterns, and prints no environment variables but a few)."""
    if not known:
        return UNKNOWN, "(unknown)"
    if area == "packages" and not _listed_under(facts, name):
        return UNKNOWN, "(not listed)"
    if str(facts.value("source") or "").startswith("collect_env"):
        if area != "packages" or not any(w in name for w in COLLECT_ENV_ALWAYS_LISTED):
            return UNKNOWN, "(not listed)"
    return ABSENT, missing_word


def _listed_under(facts: Facts, name: str) -> bool:
    """Whether this side's listing rules covered `name`: a torchdoctor report made before a name joined the
    listing says nothing of it (a pasted or collect_env listing is judged by the caller)."""
    from ..gather.target import listing_covers
    rules = facts.value("packages.reported")
    return not isinstance(rules, int) or listing_covers(rules, name)


def _env(facts: Facts) -> Tuple[bool, Dict[str, Tuple[str, str]]]:
    env = facts.value("env")
    if not isinstance(env, dict):
        return False, {}
    out = {}
    for k, v in env.items():
        if isinstance(v, str):
            out[k] = (PRESENT, v)
        elif isinstance(v, dict) and "_absent" in v:
            out[k] = (ABSENT, "(unset)")
    return True, out


def _leaves(facts: Facts) -> Dict[str, Any]:
    out = {}
    for path, node in facts.walk():
        if any(path == s or path.startswith(s + ".") for s in SKIP_ALL):
            continue
        if path.startswith(("packages.", "env.", "driver.gpus", "cuda.devices")):
            continue
        out[path] = node
    return out


def diff_reports(a: TriageResult, b: TriageResult, name_a: str = "A", name_b: str = "B",
                 show_all: bool = False) -> Diff:
    d = Diff(a, b, name_a, name_b)
    fa, fb = a.facts, b.facts
    for area, key, path in FIELDS:
        _compare(d, area, key, _show(fa, path), _show(fb, path))
    _compare(d, "driver", "GPUs", _gpus(fa), _gpus(fb))
    for area, getter, missing_word in (("packages", _package_versions, "(not installed)"), ("env", _env, "(unset)")):
        ka, pa = getter(fa)
        kb, pb = getter(fb)
        for name in sorted(set(pa) | set(pb)):
            sa = pa.get(name, _missing(fa, area, name, ka, missing_word))
            sb = pb.get(name, _missing(fb, area, name, kb, missing_word))
            _compare(d, area, name, sa, sb)
    if show_all:
        la, lb = _leaves(fa), _leaves(fb)
        shown = {p for _, _, p in FIELDS}
        for path in sorted((set(la) | set(lb)) - shown):
            _compare(d, "all", path, _show(fa, path), _show(fb, path))
    ids_a = {f.id: f for f in a.report.findings}
    ids_b = {f.id: f for f in b.report.findings}
    for fid in sorted(set(ids_a) - set(ids_b)):
        d.findings_only_a.append({"id": fid, "severity": ids_a[fid].severity, "title": ids_a[fid].title})
    for fid in sorted(set(ids_b) - set(ids_a)):
        d.findings_only_b.append({"id": fid, "severity": ids_b[fid].severity, "title": ids_b[fid].title})
    d.findings_both = sorted(set(ids_a) & set(ids_b))
    for f in d.findings_only_a:
        d.changes.append(Change("findings", f["id"], "%s: %s" % (f["severity"], f["title"]), "(not found)"))
    for f in d.findings_only_b:
        d.changes.append(Change("findings", f["id"], "(not found)", "%s: %s" % (f["severity"], f["title"])))
    return d


def _clip(s: str, n: int) -> str:
    s = s.replace("\n", " ")
    return s if len(s) <= n else s[: n - 3] + "..."


def render_diff_text(d: Diff, width: Optional[int] = None) -> str:
    """Plain text (no colour): every value of both reports, and their names, pass through
    render.safe at the end, so neither report can drive the terminal."""
    from ..render.safe import line, visible
    out = ["torchdoctor diff", "  A: %s (%s)" % (d.name_a, d.a.kind), "  B: %s (%s)" % (d.name_b, d.b.kind), ""]
    if not d.changes:
        out.append("No differences in what both reports know (%d value(s) compared)." % d.same)
    else:
        areas: Dict[str, List[Change]] = {}
        for c in d.changes:
            areas.setdefault(c.area, []).append(c)
        kw = min(max(len(line(c.key)) for c in d.changes), 32)
        vw = 40
        for area, cs in areas.items():
            out.append(area)
            for c in cs:  # escaped before they are cut and padded, so the columns line up
                out.append("  %s  %s  ->  %s" % (_clip(line(c.key), kw).ljust(kw), _clip(line(c.a), vw).ljust(vw),
                                                 _clip(line(c.b), 70)))
            out.append("")
        out.append("%d difference(s); %d value(s) the same." % (len(d.changes), d.same))
    if d.not_comparable:
        out.append("")
        out.append("Not comparable (one side does not know): " +
                   ", ".join("%s %s" % (c.area, c.key) for c in d.not_comparable[:30]) +
                   (" and %d more" % (len(d.not_comparable) - 30) if len(d.not_comparable) > 30 else ""))
    if d.findings_both:
        out.append("Findings in both: %s" % ", ".join(d.findings_both))
    return visible("\n".join(out).rstrip() + "\n")
