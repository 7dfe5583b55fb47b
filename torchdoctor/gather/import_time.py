"""Where `import torch` spent its time: the probe's -X importtime lines (target.py keeps
them apart) split into torch's own modules, the packages it imported and why they were
there (the standard library, torch's declared dependencies, optional packages imported
because they are installed, modules looked for and not found), and the process clock
(on a CPU, waiting for one, blocked on the file system). A second, warm import in a child of
its own, only when the first was slow and spent its time blocked: the cold/warm difference
is what the file system cost.
"""

import os
import re
from typing import Any, Dict, Iterable, List, Optional, Tuple

# Slower than this, check explains where the time went (a warm `import torch` takes 1-3 s).
SLOW_S = 5.0
# Blocked for this share of the time (and at least BLOCKED_MIN_S), a warm second import shows
# what the file system cost; otherwise the time was CPU, which a second import only repeats.
BLOCKED_SHARE = 0.25
BLOCKED_MIN_S = 1.0
# Top-level packages of the torch wheel itself.
TORCH_OWN = ("torch", "torchgen", "functorch")
C_EXTENSION = "torch._C"
MARK = "import time:"
_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)\s*$")


class Node:
    __slots__ = ("name", "depth", "self_us", "cum_us", "children")

    def __init__(self, name: str, depth: int, self_us: int, cum_us: int):
        self.name, self.depth, self.self_us, self.cum_us = name, depth, self_us, cum_us
        self.children: List["Node"] = []


def parse(lines: Iterable[str]) -> List[Node]:
    """The import tree from -X importtime lines. Python writes each module when its import
    ends, children before their parent, indented two spaces a level."""
    stack: List[Node] = []
    for line in lines:
        m = _LINE.match(line.rstrip("\n"))
        if not m:
            continue
        node = Node(m.group(4), len(m.group(3)) // 2, int(m.group(1)), int(m.group(2)))
        while stack and stack[-1].depth > node.depth:
            node.children.insert(0, stack.pop())
        stack.append(node)
    return stack


def read_lines(path: str) -> Tuple[List[str], List[str]]:
    """(timing lines, everything else) of the probe's imports file."""
    from collections import deque
    from ..children.timed import TAIL_BYTES
    timing: List[str] = []
    other: "deque[str]" = deque()
    held = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            # read in bounded pieces, and keep only the tail of what is not a timing line: an
            # import may print megabytes without a newline, as it may to any stream
            while True:
                piece = fh.readline(65536)
                if not piece:
                    break
                line = piece.rstrip("\n")
                if line.startswith(MARK):
                    timing.append(line)
                    continue
                other.append(line)
                held += len(line)
                while held > TAIL_BYTES and len(other) > 1:
                    held -= len(other.popleft())
    except OSError:
        return [], []
    return timing, list(other)


def _top(name: str) -> str:
    return name.split(".", 1)[0]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _requires(info_dir: str) -> List[str]:
    """Unconditional Requires-Dist names of an installed distribution (extras aside)."""
    out = []
    try:
        with open(os.path.join(info_dir, "METADATA"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break
                if line.startswith("Requires-Dist:") and "extra ==" not in line:
                    m = re.match(r"Requires-Dist:\s*([A-Za-z0-9_.-]+)", line)
                    if m:
                        out.append(m.group(1))
    except OSError:
        pass
    return out


def _info_dir(location: str, dist: str) -> Optional[str]:
    want = _norm(dist)
    try:
        names = os.listdir(location)
    except OSError:
        return None
    for d in names:
        if d.endswith(".dist-info") and _norm(d.split("-", 1)[0]) == want:
            return os.path.join(location, d)
    return None


def declared(packages: Any) -> Dict[str, str]:
    """Import names torch brings in by declaration: its Requires-Dist and theirs (one level
    down: sympy's mpmath, jinja2's markupsafe), mapped to the distribution that wants them."""
    torch = (packages or {}).get("installed", {}).get("torch") if isinstance(packages, dict) else None
    if not isinstance(torch, dict) or not torch.get("location"):
        return {}
    loc = torch["location"]
    info = _info_dir(loc, "torch")
    out: Dict[str, str] = {}
    for dist in _requires(info) if info else []:
        out.setdefault(_norm(dist), "torch")
        sub = _info_dir(loc, dist)
        for dep in _requires(sub) if sub else []:
            out.setdefault(_norm(dep), dist)
    # import names that are not their distribution's
    for dist, name in (("typing_extensions", "typing_extensions"), ("setuptools", "pkg_resources"),
                       ("setuptools", "_distutils_hack"), ("pyyaml", "yaml"), ("pillow", "PIL")):
        if dist in out:
            out.setdefault(_norm(name), out[dist])
    if any(k.startswith("nvidia_") for k in out):
        out.setdefault("nvidia", "torch")
    return out


def _roots(node: Node, out: List[Node]) -> int:
    """Collect the subtrees where the import chain leaves torch's own code; return the
    self time of torch's own modules below (and including) `node`."""
    own = node.self_us
    for c in node.children:
        if _top(c.name) in TORCH_OWN:
            own += _roots(c, out)
        else:
            out.append(c)
    return own


def attribute(lines: List[str], imp: Dict[str, Any], packages: Any = None) -> Optional[Dict[str, Any]]:
    """The import's wall time split by who spent it; None without timing lines."""
    tree = [n for n in parse(lines) if _top(n.name) in TORCH_OWN]
    if not tree:
        return None
    root = max(tree, key=lambda n: n.cum_us)
    outside: List[Node] = []
    own_us = _roots(root, outside)
    c_ext = sum(n.self_us for n in _walk(root) if n.name == C_EXTENSION)
    loaded = imp.get("loaded") if isinstance(imp.get("loaded"), dict) else {}
    wanted = declared(packages)
    groups: Dict[str, Dict[str, Any]] = {}
    for n in outside:
        top = _top(n.name)
        g = groups.setdefault(top, {"name": top, "s": 0.0, "kind": _kind(top, loaded, wanted)})
        g["s"] += n.cum_us / 1e6
        if g["kind"] == "dependency":
            g["wanted_by"] = wanted.get(_norm(top))
    wall = imp.get("duration_s") if isinstance(imp.get("duration_s"), (int, float)) else root.cum_us / 1e6
    parts = [{"name": "torch", "kind": "own", "s": round(own_us / 1e6, 3), "c_extension_s": round(c_ext / 1e6, 3)}]
    parts += sorted(({**g, "s": round(g["s"], 3)} for g in groups.values()), key=lambda g: -g["s"])
    attributed = sum(p["s"] for p in parts)
    return {"wall_s": round(wall, 3), "measured_s": round(root.cum_us / 1e6, 3),
            "attributed_share": round(min(1.0, attributed / wall), 3) if wall else None,
            "parts": parts[:40], "modules": sum(1 for _ in _walk(root))}


def _walk(node: Node):
    yield node
    for c in node.children:
        yield from _walk(c)


def _kind(top: str, loaded: Dict[str, str], wanted: Dict[str, str]) -> str:
    kind = loaded.get(top)
    if kind is None:
        return "not-found"  # looked for on every sys.path entry, and not there (or there before)
    if kind in ("stdlib", "builtin"):
        return "stdlib"
    return "dependency" if _norm(top) in wanted else "optional"


def resources(clock: Dict[str, Any], wall: float) -> Dict[str, Any]:
    """The clock as shares of the wall time: on a CPU, waiting for one, blocked (I/O)."""
    out: Dict[str, Any] = {}
    on_cpu = clock.get("on_cpu", clock.get("cpu"))
    if isinstance(on_cpu, (int, float)):
        out["cpu_s"] = round(on_cpu, 3)
        wait = clock.get("runqueue") if isinstance(clock.get("runqueue"), (int, float)) else None
        if wait is not None:
            out["waiting_for_cpu_s"] = round(wait, 3)
        out["blocked_s"] = round(max(0.0, wall - on_cpu - (wait or 0.0)), 3)
    for key in ("major_faults", "disk_read_bytes"):
        if isinstance(clock.get(key), int):
            out[key] = clock[key]
    return out


def worth_a_warm_import(imp: Dict[str, Any]) -> bool:
    a = imp.get("attribution") or {}
    res = a.get("resources") or {}
    wall, blocked = a.get("wall_s") or 0.0, res.get("blocked_s")
    return wall >= SLOW_S and isinstance(blocked, (int, float)) and blocked >= BLOCKED_MIN_S \
        and blocked >= BLOCKED_SHARE * wall


WARM_IMPORT = ("import time, sys\n"
               "t = time.perf_counter()\n"
               "import torch\n"
               "sys.stdout.write('%.6f\\n' % (time.perf_counter() - t))\n"
               "sys.stdout.flush()\n"
               "import os; os._exit(0)\n")


def warm_import_s(python: str, timeout: float) -> Optional[float]:
    """`import torch` again in a fresh child: the files are in the page cache now."""
    from ..children import timed
    r = timed.run([python, "-c", WARM_IMPORT], timeout=timeout)
    try:
        return round(float(r.stdout.strip().splitlines()[-1]), 3) if r.ok else None
    except (ValueError, IndexError):
        return None


def add_attribution(sections: Dict[str, Any], out_path: str, python: str, timeout: float) -> List[str]:
    """Put the attribution into sections['torch_import'] (the probe wrote its imports file
    beside `out_path`); returns the lines torch itself printed to stderr while importing,
    for a probe that died there. Runs the warm import when it is worth it."""
    from .mounts import mount_of
    path = out_path + ".imports"
    timing, other = read_lines(path)
    try:
        os.unlink(path)
    except OSError:
        pass
    imp = sections.get("torch_import")
    if not isinstance(imp, dict) or "_failed" in imp or "_absent" in imp:
        return other
    imp.pop("import_times_file", None)
    a = attribute(timing, imp, sections.get("packages"))
    if a is None:
        return other
    if isinstance(imp.get("clock"), dict):
        a["resources"] = resources(imp["clock"], a["wall_s"])
    loc = ((sections.get("packages") or {}).get("installed", {}).get("torch") or {}).get("location") \
        if isinstance(sections.get("packages"), dict) else None
    if isinstance(loc, str):
        m = mount_of(loc)
        if m:
            a["site_packages_mount"] = m
    imp["attribution"] = a
    if worth_a_warm_import(imp):
        a["warm_import_s"] = warm_import_s(python, timeout)
    return other
