"""`import torch` is slow: where its wall time went (gather/import_time.py's attribution in
the torch_import section), and the first CUDA call's cost, with what would help.
"""

from typing import Any, Dict, List

from ..gather.import_time import SLOW_S
from ..model.facts import Facts
from .registry import WARNING, finding, rule

# A package torch imported that is worth naming: this many seconds, or this share of the import.
NAMED_S = 0.5
NAMED_SHARE = 0.1
# The first CUDA call slower than this: the driver starting (no persistence mode) or many GPUs.
CUDA_FIRST_CALL_S = 5.0
KIND_WORDS = {"optional": "optional, imported because it is installed",
              "dependency": "a dependency of %s", "stdlib": "the standard library",
              "not-found": "looked for on every sys.path entry and not found", "own": "torch's own modules"}


def _part_line(p: Dict[str, Any], wall: float) -> str:
    words = KIND_WORDS.get(p.get("kind"), p.get("kind") or "?")
    if p.get("kind") == "dependency":
        words = words % (p.get("wanted_by") or "torch")
    share = " (%.0f%%)" % (100.0 * p["s"] / wall) if wall else ""
    extra = ", of which torch._C %.1f s" % p["c_extension_s"] if p.get("c_extension_s") else ""
    return "%s: %.2f s%s, %s%s" % (p.get("name"), p["s"], share, words, extra)


@rule("check", "slow-torch-import", category="slow-import", severity=WARNING,
      verify=('python -X importtime -c "import torch" 2>&1 | sort -t"|" -k2 -n | tail',
              "the slowest imports, each well under a second"))
def slow_torch_import(facts: Facts):
    """`import torch` took long: split into torch's own modules, the packages it pulled in, and the file system."""
    a = facts.value("torch_import.attribution")
    out: List[Any] = []
    if isinstance(a, dict) and isinstance(a.get("wall_s"), (int, float)) and a["wall_s"] >= SLOW_S:
        out.append(_import_finding(facts, a))
    first = facts.value("cuda.first_call_s")
    if isinstance(first, (int, float)) and first >= CUDA_FIRST_CALL_S:
        out.append(finding(
            "The first CUDA call took %.1f s (torch.cuda.is_available())" % first,
            detail="The first call into CUDA starts the driver for every visible GPU; without persistence mode the "
                   "driver unloads when no process uses the GPUs and every new process pays this again.",
            fix="Keep the driver loaded between processes (persistence mode, as root), or expose only the GPUs the "
                "job uses.", commands=["sudo nvidia-smi -pm 1", "export CUDA_VISIBLE_DEVICES=0"]))
    return out


def _import_finding(facts: Facts, a: Dict[str, Any]):
    wall = float(a["wall_s"])
    parts = [p for p in a.get("parts") or [] if isinstance(p, dict) and isinstance(p.get("s"), (int, float))]
    named = [p for p in parts if p.get("kind") == "own" or p["s"] >= NAMED_S or p["s"] >= NAMED_SHARE * wall]
    lines = [_part_line(p, wall) for p in named]
    res = a.get("resources") if isinstance(a.get("resources"), dict) else {}
    if isinstance(res.get("blocked_s"), (int, float)):
        lines.append("the process: on a CPU %.2f s, waiting for a CPU %.2f s, blocked (disk, network) %.2f s" % (
            res.get("cpu_s") or 0, res.get("waiting_for_cpu_s") or 0, res["blocked_s"]))
    mount = a.get("site_packages_mount") if isinstance(a.get("site_packages_mount"), dict) else {}
    if mount:
        lines.append("torch's site-packages is on %s (%s%s)" % (mount.get("mount_point"), mount.get("fstype"),
                                                              ", a network file system" if mount.get("network") else ""))
    warm = a.get("warm_import_s")
    if isinstance(warm, (int, float)):
        lines.append("a second import, the files cached: %.2f s (the file system cost %.2f s)" % (warm, wall - warm))
    share = a.get("attributed_share")
    head = "import torch took %.1f s" % wall
    if share:
        head += " (%.0f%% attributed below)" % (100 * share)
    fixes, cmds = [], []
    optional = [p for p in named if p.get("kind") == "optional" and p["s"] >= NAMED_SHARE * wall]
    if optional:
        fixes.append("uninstall the optional packages you do not use (%s): torch imports them because they are there"
                     % ", ".join(p["name"] for p in optional))
        cmds.append("%s -m pip uninstall %s" % (facts.value("python.executable") or "python",
                                                " ".join(p["name"] for p in optional)))
    if mount.get("network") or (isinstance(warm, (int, float)) and wall - warm >= 0.5 * wall):
        fixes.append("put the environment on a local disk (a venv under /tmp or the node's scratch space)")
    if isinstance(res.get("waiting_for_cpu_s"), (int, float)) and res["waiting_for_cpu_s"] >= 0.25 * wall:
        fixes.append("the machine was busy: the import waited for a CPU most of the time")
    joined = "; ".join(fixes) + "."
    fix = joined[0].upper() + joined[1:] if fixes else "torch's own modules took the time: nothing on this " \
        "machine slows it; a faster disk or CPU is what would help."
    return finding("%s" % head, detail="\n".join(lines), fix=fix, commands=cmds)
