"""Short forms for the surfaces that live inside someone else's output (`torchdoctor run`,
the exception hook, the pytest plugin): a rule that sets the diagnosis apart, the
one-line environment summary, the live settings of a process, and the explanation of a
child that died by a signal. The explanations themselves render with render/text.py."""

from typing import Any, Dict, List, Optional

from ..model.facts import Facts
from ..model.report import Report
from .style import Style


def rule(title: str, st: Style, width: int = 72) -> str:
    bar = "\u2500" if st.marks.get("ok") == "\u2713" else "-"
    head = bar * 3 + " " + title + " "
    return st.paint(head + bar * max(3, width - len(head)), "title")


def _state(facts: Facts, path: str, yes: str, no: str) -> Optional[str]:
    v = facts.value(path)
    if v is True:
        return yes
    if v is False:
        return no
    return None


def env_line(facts: Facts) -> str:
    """torch, its variant, CUDA/MPS/cuDNN and the GPUs, in one line (the pytest header):
    "torch 2.13.0+cpu (CPU-only build), CUDA not available, no cuDNN, no GPU visible"."""
    from .markdown import summary_rows
    rows = dict(summary_rows(Report(facts, [])))
    build = rows.get("CUDA build", "unknown")
    build = "CPU-only build" if build.startswith("none") else ("%s build" % build if build != "unknown" else "variant unknown")
    parts = ["torch %s (%s)" % (rows.get("torch", "unknown"), build)]
    n = facts.value("cuda.device_count")
    cuda = _state(facts, "cuda.is_available", "CUDA available" + (" (%d device%s)" % (n, "" if n == 1 else "s")
                                                                  if isinstance(n, int) else ""),
                  "CUDA not available")
    if cuda is None and facts.value("cuda.initialized") is False:
        cuda = "CUDA not initialised"
    parts.append(cuda or "CUDA unknown")
    mps = _state(facts, "accelerators.mps.is_available", "MPS available", "MPS not available")
    if mps and (mps == "MPS available" or facts.value("os.system") == "Darwin"):
        parts.append(mps)
    cudnn = rows.get("cuDNN", "unknown")
    parts.append("no cuDNN" if cudnn.startswith("none") else "cuDNN %s" % cudnn)
    gpus = rows.get("GPU(s)", "unknown")
    parts.append("no GPU visible" if gpus == "none visible" else "GPUs: %s" % gpus)
    return ", ".join(parts)


def _onoff(v: Any) -> str:
    return {True: "on", False: "off"}.get(v, "?")


def live_line(facts: Facts) -> Optional[str]:
    """What the running program has set, as the tailoring saw it; None without torch."""
    live = facts.value("live")
    if not isinstance(live, dict) or not live.get("torch_imported"):
        return None
    out = ["torch %s" % facts.value("torch.version", "?")]
    dev, dtype = facts.value("live.default_device"), facts.value("live.default_dtype")
    if dev or dtype:
        out.append("default device %s, dtype %s" % (dev or "?", str(dtype or "?").replace("torch.", "")))
    out.append("deterministic algorithms %s" % _onoff(facts.value("torch.runtime.are_deterministic_algorithms_enabled")))
    prec = facts.value("torch.runtime.get_float32_matmul_precision")
    if prec:
        out.append("float32 matmul precision %s" % prec)
    cudnn = facts.value("backends.cudnn")
    if isinstance(cudnn, dict):
        out.append("cudnn.benchmark %s, cudnn.deterministic %s" % (_onoff(cudnn.get("benchmark")),
                                                                   _onoff(cudnn.get("deterministic"))))
    if live.get("cuda_initialized") is True:
        mem = live.get("cuda_memory")
        if isinstance(mem, list) and mem:
            out.append("CUDA initialised; " + "; ".join(
                "cuda:%s %s allocated / %s reserved" % (d.get("index"), _gib(d.get("allocated")), _gib(d.get("reserved")))
                for d in mem[:8]))
        else:
            out.append("CUDA initialised")
    elif live.get("cuda_initialized") is False:
        out.append("CUDA not initialised")
    cvd = facts.value("live.cuda_visible_devices")
    out.append("CUDA_VISIBLE_DEVICES=%s" % cvd if isinstance(cvd, str) else "CUDA_VISIBLE_DEVICES unset")
    return "in this process: " + ", ".join(out)


def _gib(n: Any) -> str:
    if isinstance(n, int):
        return "%.2f GiB" % (n / 2 ** 30)
    return "?"


def render_signal(sig: Dict[str, Any], st: Style) -> List[str]:
    """A child that died by a signal with no known error in its output (surfaces/signals.py)."""
    out = [st.paint(sig["title"], "title")]
    if sig.get("exit_note"):
        out.append(st.paint("  " + sig["exit_note"], "dim"))
    out.append("")
    out.append("  What it usually means:")
    for p in sig.get("meaning", []):
        out.append("    - " + p)
    for note in sig.get("notes", []):
        out.append("  " + note)
    if sig.get("steps"):
        out.append("  Next steps:")
        for s in sig["steps"]:
            out.append("    " + s["what"])
            for c in s.get("commands", []):
                out.append("      " + st.command(c))
    for link in sig.get("links", []):
        out.append("  See: " + link)
    return out
