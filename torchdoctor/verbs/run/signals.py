"""Why a program died by a signal when its output names no known error: what each fatal
signal usually means for torch, and how to see where it died (the data, with its sources,
is surfaces/data/signals.json). Also reads the kernel's OOM-kill counter of this cgroup,
so SIGKILL from the OOM killer is said as a fact, not a guess."""

import json
import os
import re
import shlex
import signal
from functools import lru_cache
from typing import Any, Dict, List, Optional

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "signals.json")


@lru_cache(maxsize=1)
def load() -> Dict[str, Any]:
    with open(DATA, encoding="utf-8") as fh:
        return json.load(fh)


def signal_name(number: int) -> Optional[str]:
    try:
        return signal.Signals(number).name
    except (ValueError, AttributeError):
        return None


def oom_kill_count(proc_root: str = "/proc", cgroup_root: str = "/sys/fs/cgroup") -> Optional[int]:
    """The cgroup's count of processes the OOM killer killed (v2 memory.events `oom_kill`,
    v1 memory.oom_control `oom_kill`); None where it cannot be read."""
    try:
        with open(os.path.join(proc_root, "self", "cgroup"), encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    cands = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        rel = parts[2].lstrip("/")
        if parts[0] == "0" and parts[1] == "":
            cands.append(os.path.join(cgroup_root, rel, "memory.events"))
        elif "memory" in parts[1].split(","):
            cands.append(os.path.join(cgroup_root, "memory", rel, "memory.oom_control"))
    for path in cands:
        try:
            with open(path, encoding="ascii", errors="replace") as fh:
                for row in fh:
                    key, _, val = row.partition(" ")
                    if key == "oom_kill" and val.strip().isdigit():
                        return int(val.strip())
        except OSError:
            continue
    return None


def _who_from_torchrun(tail: str) -> Optional[Dict[str, str]]:
    """The worker torchrun's summary says a signal killed, as a rank: the failure it calls the
    root cause first (the others were mostly stopped by torchrun itself)."""
    from ..dist.torchrun import parse_torchrun_failures
    spec = load()["torchrun"]
    failed = parse_torchrun_failures(tail or "")
    killed = sorted(((not v["root"], r) for r, v in failed.items() if v.get("signal") and v["exitcode"] < 0))
    if killed:
        r = killed[0][1]
        v = failed[r]
        return {"name": v["signal"], "number": str(-v["exitcode"]), "rank": str(r),
                "who": spec["who_rank"].format(rank=r, local_rank=v["local_rank"], pid=v["pid"])}
    found = None
    for m in re.finditer(spec["pattern"], tail or ""):
        found = m
    if found is None:
        return None
    return {"name": found.group("name"), "number": found.group("number"),
            "who": spec["who"].format(pid=found.group("pid"))}


TORCHRUN = ("torchrun", "torch.distributed.run", "torch.distributed.launch")


def torchrun_script_at(argv: List[str]) -> Optional[int]:
    """Where the training script starts in a torchrun command line (after torchrun's own options):
    the first .py argument, or the -m before a module; None for another command (or --no-python)."""
    at = [i for i, a in enumerate(argv[:3]) if os.path.basename(a) == "torchrun" or a in TORCHRUN]
    if not at or "--no-python" in argv:
        return None
    for i in range(at[0] + 1, len(argv)):
        if argv[i] in ("-m", "--module") and i + 1 < len(argv):
            return i
        if argv[i].endswith(".py"):
            return i
    return None


def rank_under_gdb(argv: List[str]) -> Optional[str]:
    """The same torchrun job with every rank run under gdb (torchrun --no-python starts any
    program per rank): gdb on torchrun itself would debug the launcher, not the rank that died."""
    i = torchrun_script_at(argv or [])
    if i is None:
        return None
    module = argv[i] in ("-m", "--module")
    script = argv[i + 1:] if module else argv[i:]
    return shlex.join(argv[:i] + ["--no-python", "gdb", "-q", "-batch", "-ex", "run", "-ex", "bt", "--args",
                                  "python"] + (["-m"] if module else []) + script)


REPORT_LINES = 50  # how far back from the end of the output a shell's report of the death is looked for


def reported_death(tail: str, number: int) -> bool:
    """Whether the end of the output says that a process died of signal `number`: as a
    shell says it (the C library's description, "Segmentation fault", "Killed"; zsh
    writes it in lower case) or as a launcher names it ("SIGSEGV", "signal 11")."""
    words = ["signal %d" % number]
    name = signal_name(number)
    if name:
        words.append(name)
    try:
        said = signal.strsignal(number)
    except (ValueError, AttributeError):
        said = None
    if said:
        words.append(said)
    end = "\n".join((tail or "").splitlines()[-REPORT_LINES:])
    return re.search(r"(?i)\b(?:%s)\b" % "|".join(re.escape(w) for w in words), end) is not None


def explain_death(returncode: int, tail: str = "", argv: Optional[List[str]] = None,
                  forwarded: Optional[int] = None, oom_before: Optional[int] = None,
                  oom_after: Optional[int] = None) -> Optional[Dict[str, Any]]:
    """A dict to render (render/brief.render_signal) or None when the exit says nothing
    worth explaining. `returncode` as subprocess gives it (-N: killed by signal N);
    `forwarded`: a signal the doctor itself passed on (the user asked for it)."""
    data = load()
    who, exit_note, name, number = "the program", None, None, None
    if returncode < 0:
        number = -returncode
        name = signal_name(number)
        if forwarded is not None and forwarded == number:
            return None
    else:
        tr = _who_from_torchrun(tail)
        if tr is not None:
            name, number, who = tr["name"], int(tr["number"]), tr["who"]
        elif returncode > 128 and signal_name(returncode - 128) in data["signals"] \
                and reported_death(tail, returncode - 128):
            # Only where the output says so: `sys.exit(139)` is a program's own choice.
            number = returncode - 128
            name = signal_name(number)
            who = "a process it ran"
            exit_note = data["exit_codes"]["note"].format(code=returncode, name=name, number=number)
            if forwarded is not None and forwarded == number:
                return None
    if name not in data["signals"]:
        return None
    spec = data["signals"][name]
    cmd = shlex.join(argv) if argv else "python your_script.py"
    run = "torchdoctor run -- " + cmd
    title = spec["title"].format(who=who)
    out: Dict[str, Any] = {"signal": name, "number": number, "who": who, "title": title[0].upper() + title[1:],
                           "exit_note": exit_note, "meaning": list(spec["meaning"]), "notes": []}
    if oom_before is not None and oom_after is not None and oom_after > oom_before:
        out["notes"].append("The kernel's OOM killer killed %d process(es) in this cgroup during the run "
                            "(memory.events oom_kill %d -> %d)." % (oom_after - oom_before, oom_before, oom_after))
        out["oom_kills"] = oom_after - oom_before
    elif name == "SIGKILL" and oom_before is not None and oom_after == oom_before:
        out["notes"].append("No process of this cgroup was OOM-killed during the run (memory.events oom_kill "
                            "still %d): a scheduler, a container runtime or `kill -9` is more likely, unless the "
                            "program moved itself to another cgroup." % oom_after)
        out["oom_kills"] = 0
    from ...kb.errors import get_entry
    related = []
    for eid in spec.get("related", []):
        e = get_entry(eid)
        if e is not None:
            related.append({"id": e.id, "title": e.title})
    if related:
        out["notes"].append("Known errors of this kind (details: `torchdoctor explain ID`): " + "; ".join(
            "%s (%s)" % (r["id"], r["title"]) for r in related))
    out["related"] = related
    steps = list(spec.get("steps", []))
    if "Fatal Python error:" in (tail or "") and "faulthandler" in steps:
        steps.remove("faulthandler")  # it is on already: its stack is in the output above
        out["notes"].append("Python's stack at the crash is in the output above (faulthandler's "
                            "'Fatal Python error' block).")
    out["steps"] = [{"what": data["steps"][s]["what"],
                     "commands": [c.format(run=run, cmd=cmd) for c in data["steps"][s]["commands"]]}
                    for s in steps]
    under_gdb = rank_under_gdb(argv or []) if who.startswith("rank ") else None
    for st in out["steps"]:
        if under_gdb and any(c.startswith("gdb ") for c in st["commands"]):
            st["what"] = data["steps"]["gdb"]["what_rank"]
            st["commands"] = [under_gdb]
    srcs = data["sources"]
    links = []
    for key in list(spec.get("sources", [])) + [k for s in spec.get("steps", []) for k in data["steps"][s]["sources"]]:
        url = srcs.get(key, "")
        if url.startswith("http") and url not in links:
            links.append(url)
    out["links"] = links
    return out
