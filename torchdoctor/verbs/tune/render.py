"""Text (terminal) and Markdown (issue) renderings of a tune result."""

import json
import os
import re
from typing import Any, Dict, List

from .numbers import FASTER, SAME, SLOWER, TOO_BUSY, TOO_FEW, apart, busy_by_load, drift_value, fmt_drift, fmt_time

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS_DATA = os.path.join(HERE, "data", "settings.json")
STATUS_WORDS = {"same_as_default": "same as default", "not_applicable": "not applicable",
                "unsupported": "not in this build", "not_measurable": "not measurable in-process",
                "not_measured": "not measured", "partial": "not timed", "error": "failed", "crashed": "crashed",
                "hung": "did not return"}


def knowledge() -> Dict[str, Any]:
    with open(SETTINGS_DATA, "r", encoding="utf-8") as fh:
        return json.load(fh)["settings"]


def verdict_text(s: Dict[str, Any]) -> str:
    sp = s.get("speedup")
    if s.get("role") == "default" or (s.get("role") == "reference" and not sp):
        return "reference"
    if not sp:
        return "-"
    rng = "%s (%s-%s)" % (fx(sp["value"]), fn(sp["low"]), fn(sp["high"]))
    v = sp["verdict"]
    if s.get("role") == "control":  # the default against itself: the noise, not a verdict
        return "noise: %s" % fx(sp["value"])
    if v == FASTER:
        return "%s faster" % rng
    if v == SLOWER:
        return "%s slower" % rng
    if v == SAME:
        return "no measurable difference (%s)" % fx(sp["value"])
    if v == TOO_FEW:
        return "%s, too few samples" % fx(sp["value"])
    if v == TOO_BUSY:
        return "no verdict: too noisy (%s)" % fx(sp["value"])
    return rng


def fn(v: float) -> str:
    return ("%.2f" % v) if 0.01 <= v < 1000 else ("%.1e" % v)


def fx(v: float) -> str:
    return fn(v) + "x"


def repro_text(s: Dict[str, Any]) -> str:
    r = s.get("reproducible")
    if r is None:
        return "-"
    return "equal" if r else "DIFFER"


def spread_text(s: Dict[str, Any]) -> str:
    t = s.get("time")
    return "%.0f%%" % (100 * t["spread"]) if t else "-"


def header_lines(result: Dict[str, Any]) -> List[str]:
    env = result.get("environment") or {}
    run, opts = result.get("run") or {}, result.get("options") or {}
    lines = []
    if env:
        dev = env.get("device") or "?"
        name = env.get("name") or ""
        cores = env.get("cores") or {}
        extra = []
        if dev == "cpu" and cores:
            extra.append("%s physical / %s logical cores, torch uses %s thread%s" % (
                cores.get("physical"), cores.get("logical"), env.get("threads"), "" if env.get("threads") == 1 else "s"))
        if dev == "cuda":
            if env.get("capability"):
                extra.append("sm_%s" % "".join(str(x) for x in env["capability"]))
            if env.get("cudnn_version"):
                extra.append("cuDNN %s" % env["cudnn_version"])
        lines.append("%s: %s%s, torch %s, Python %s" % (dev, name, (" (%s)" % ", ".join(extra)) if extra else "",
                                                       env.get("torch"), env.get("python")))
    used = run.get("wall_s")
    lines.append("mode %s, budget %.0f s%s, tolerance %s (relative drift)%s" % (
        opts.get("mode"), float(opts.get("budget") or 0), (" (used %.1f s)" % used) if used is not None else "",
        fmt_drift(opts.get("tolerance")), (", size %s" % env.get("size")) if env.get("size") else ""))
    return lines


def rows(w: Dict[str, Any]) -> List[List[str]]:
    out = []
    for s in w.get("settings") or []:
        st = s.get("status")
        if st in ("measured", "partial", "error", "crashed", "hung") and (s.get("time") or s.get("drift") or st != "measured"):
            if st in ("error", "crashed", "hung") and not s.get("time"):
                out.append([s["label"], "%s: %s" % (STATUS_WORDS[st], s.get("reason") or "")])
                continue
            d = s.get("drift")
            row = [s["label"], fmt_time((s.get("time") or {}).get("median_s")), spread_text(s), verdict_text(s),
                   fmt_drift(drift_value(d)) if d else "-", repro_text(s)]
            if st == "partial":
                row[3] = "not timed (budget)"
            out.append(row)
        elif st == "measured":
            out.append([s["label"], fmt_time(None), "-", verdict_text(s), "-", repro_text(s)])
        else:
            out.append([s["label"], "%s%s" % (STATUS_WORDS.get(st, st), (": %s" % s["reason"]) if s.get("reason") else "")])
    return out


HEAD = ["setting", "median", "IQR", "vs reference", "drift", "2 runs"]


def _control_timed(w: Dict[str, Any]) -> bool:
    return any(s.get("role") == "control" and (s.get("time") or {}).get("n") for s in w.get("settings") or [])


def noise_line(w: Dict[str, Any]) -> str:
    """How noisy the workload's timings were, and the band no verdict fell inside."""
    n = w.get("noise") or {}
    if not n:
        return ""
    load = (", load %.1f on %s cores" % (n["load"], n.get("cores") or "?")) if isinstance(n.get("load"), (int, float)) \
        else ""
    if n.get("measured"):
        text = ("noise: two interleaved timings of the default settings differed by %.1f%%; no verdict within "
                "+-%.0f%%%s" % (100 * apart(n["control"]), 100 * n["band"], load))
    else:
        why = "too few timed blocks of the noise control" if _control_timed(w) else "the noise control was not timed"
        text = "noise: not measured (%s); no verdict within +-%.0f%%%s" % (why, 100 * n["band"], load)
    if not n.get("busy"):
        return text
    return text + ("; TOO BUSY FOR A VERDICT" if busy_by_load(n) else "; TOO NOISY FOR A VERDICT")


def legend(result: Dict[str, Any]) -> str:
    """What the table's numbers mean, said once for every rendering."""
    train = (result.get("options") or {}).get("mode") == "train"
    return ("drift: the normwise relative error from the strict baseline (float32, TF32 off, deterministic), "
            "||setting - baseline|| / ||baseline|| over all outputs%s; IQR: interquartile range of the timed blocks "
            "relative to the median; a speedup counts only when the two IQRs do not overlap by more than the noise "
            "band (twice what two timings of the default settings differed by, at least 3%%)."
            % (" (and, separately, all gradients: the worse of the two)" if train else ""))


# --------------------------------------------------------------------- text --
def render_text(result: Dict[str, Any], style=None) -> str:
    from ...render.safe import clean
    from ...render.style import Style
    result = clean(result)  # `tune --from` renders saved results, perhaps someone else's
    style = style or Style()
    p = style.paint
    out = [p("torchdoctor tune", "title")]
    out.extend("  " + ln for ln in header_lines(result))
    for w in result.get("workloads") or []:
        out.append("")
        desc = w.get("description")
        out.append(p("%s" % w["name"], "title") + ("  %s" % desc if desc else "") +
                   ("  (input %s, %s)" % (w.get("input"), w.get("mode")) if w.get("input") else ""))
        if w.get("status") not in ("measured", "partial", "crashed", "hung") or not w.get("settings"):
            out.append("  %s%s" % (STATUS_WORDS.get(w.get("status"), w.get("status")),
                                   (": %s" % w["reason"]) if w.get("reason") else ""))
            continue
        table = rows(w)
        full = [r for r in table if len(r) == len(HEAD)]
        widths = [max(len(HEAD[i]), *(len(r[i]) for r in full)) if full else len(HEAD[i]) for i in range(len(HEAD))]
        widths[0] = max(widths[0], min(44, max((len(r[0]) for r in table), default=0)))
        out.append("  " + p("  ".join(h.ljust(widths[i]) for i, h in enumerate(HEAD)).rstrip(), "dim"))
        for r in table:
            if len(r) == len(HEAD):
                line = "  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip()
                kind = "ok" if "faster" in r[3] else ("warn" if "slower" in r[3] or r[5] == "DIFFER" else None)
                out.append("  " + (p(line, kind) if kind else line))
            else:
                out.append("  " + p("%s  %s" % (r[0].ljust(widths[0]), r[1]), "dim"))
        if noise_line(w):
            out.append("  " + p(noise_line(w), "warn" if (w.get("noise") or {}).get("busy") else "dim"))
        if w.get("baseline") and w["baseline"].get("reproducible") is False:
            out.append("  " + p("the strict baseline itself was not bitwise reproducible", "warn"))
        rec = w.get("recommendations") or {}
        out.append("")
        out.append("  " + p("For speed:", "title"))
        for item in rec.get("speed") or []:
            out.append("    " + p("+ ", "ok") + item["text"])
        for note in rec.get("speed_notes") or []:
            out.append("    - " + note)
        if rec.get("caveat"):
            out.append("    - " + rec["caveat"])
        if rec.get("code_speed"):
            out.extend("      " + p(ln, "cmd") for ln in rec["code_speed"].splitlines())
        out.append("  " + p("For reproducibility:", "title"))
        for item in rec.get("reproducibility") or []:
            out.append("    - " + item["text"])
        if rec.get("code_reproducibility"):
            out.extend("      " + p(ln, "cmd") for ln in rec["code_reproducibility"].splitlines())
    fs = result.get("findings") or []
    if fs:
        out.append("")
        for f in fs:
            sev = f.get("severity")
            mark = {"error": "ERROR", "warning": "WARNING", "info": "NOTE"}.get(sev, sev)
            out.append(p(mark, sev if sev in ("error", "warning") else "info") + " " + f["title"] +
                       "  [%s]" % f["id"])
            if f.get("detail"):
                out.append("  " + f["detail"])
            fix = f.get("fix") or {}
            if fix.get("summary"):
                out.append("  Fix: " + fix["summary"])
            for c in fix.get("commands") or []:
                out.append("    $ " + c)
    if any(w.get("settings") for w in result.get("workloads") or []):
        out.append("")
        out.append(p(legend(result), "dim"))
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------- markdown --
_MD_ESCAPE = re.compile(r"([\\`*_\[\]<>|#&])")


def md(text: Any) -> str:
    """Escaped for a Markdown paragraph or table cell: a model name holding `<script>`
    or `|` shows as text and cannot break the table or inject HTML."""
    text = str(text)
    out = _MD_ESCAPE.sub(lambda m: {"<": "&lt;", ">": "&gt;", "&": "&amp;", "|": "\\|"}.get(m.group(1), "\\" + m.group(1)),
                         text)
    return out.replace("\r", "").replace("\n", "<br>")


def fence(body: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    f = "`" * (longest + 1)
    return "%s%s\n%s\n%s" % (f, lang, body.rstrip("\n"), f)


def render_markdown(result: Dict[str, Any]) -> str:
    out = ["## torchdoctor tune", ""]
    out.extend(md(ln) + "  " for ln in header_lines(result))
    info = knowledge()
    families = []
    for w in result.get("workloads") or []:
        out.append("")
        out.append("### %s" % md(w["name"]))
        if w.get("description"):
            out.append("")
            out.append("%s%s" % (md(w["description"]), (" (input %s, %s)" % (md(w.get("input")), md(w.get("mode"))))
                                 if w.get("input") else ""))
        if not w.get("settings"):
            out.append("")
            out.append("%s%s" % (md(STATUS_WORDS.get(w.get("status"), w.get("status"))),
                                 (": " + md(w["reason"])) if w.get("reason") else ""))
            continue
        out.append("")
        out.append("| " + " | ".join(HEAD) + " |")
        out.append("|" + "---|" * len(HEAD))
        for r in rows(w):
            cells = r if len(r) == len(HEAD) else [r[0], r[1]] + [""] * (len(HEAD) - 2)
            out.append("| " + " | ".join(md(c) for c in cells) + " |")
        if noise_line(w):
            out.append("")
            out.append(md(noise_line(w)))
        rec = w.get("recommendations") or {}
        out.append("")
        out.append("**For speed**")
        out.append("")
        for item in rec.get("speed") or []:
            out.append("- " + md(item["text"]))
        for note in rec.get("speed_notes") or []:
            out.append("- " + md(note))
        if rec.get("caveat"):
            out.append("- " + md(rec["caveat"]))
        if rec.get("code_speed"):
            out.append("")
            out.append(fence(rec["code_speed"], "python"))
        out.append("")
        out.append("**For reproducibility**")
        out.append("")
        for item in rec.get("reproducibility") or []:
            out.append("- " + md(item["text"]))
        if rec.get("code_reproducibility"):
            out.append("")
            out.append(fence(rec["code_reproducibility"], "python"))
        for s in w.get("settings") or []:
            if s.get("family") in info and s["family"] not in families:
                families.append(s["family"])
    fs = result.get("findings") or []
    if fs:
        out.append("")
        out.append("### Findings")
        out.append("")
        for f in fs:
            out.append("- **%s** %s (`%s`)%s" % (md(f["severity"]), md(f["title"]), md(f["id"]),
                                                ("<br>" + md(f["detail"])) if f.get("detail") else ""))
    if families:
        out.append("")
        out.append("<details><summary>What the settings mean</summary>")
        out.append("")
        for fam in families:
            k = info[fam]
            out.append("- **%s**: %s [docs](%s)" % (md(k["title"]), md(k["meaning"]), k["docs"]))
        out.append("")
        out.append("</details>")
    out.append("")
    out.append("<sub>%s torchdoctor %s</sub>" % (md(legend(result)), md((result.get("tool") or {}).get("version", ""))))
    from ...render.safe import visible
    return visible("\n".join(out) + "\n")


def render_list(result: Dict[str, Any], style=None) -> str:
    """--list-settings: what would be measured here, and why the rest would not."""
    from ...render.safe import clean
    from ...render.style import Style
    result = clean(result)
    style = style or Style()
    p = style.paint
    out = [p("torchdoctor tune --list-settings", "title")]
    out.extend("  " + ln for ln in header_lines(result))
    for w in result.get("workloads") or []:
        out.append("")
        out.append(p(w["name"], "title") + ("  %s" % w["description"] if w.get("description") else ""))
        if not w.get("settings"):
            out.append("  %s%s" % (STATUS_WORDS.get(w.get("status"), w.get("status")),
                                   (": %s" % w["reason"]) if w.get("reason") else ""))
            continue
        width = max(len(s["label"]) for s in w["settings"])
        for s in w["settings"]:
            if s.get("role") in ("default", "control"):
                continue
            st = s.get("status")
            if st in ("planned", "measured", "partial", "not_measured"):
                extra = ["measure"]
                if s.get("api"):
                    extra.append("via %s" % s["api"])
                if s.get("reference") not in (None, "default"):
                    extra.append("against %s" % s["reference"])
                out.append("  " + p("+", "ok") + " %s  %s" % (s["label"].ljust(width), ", ".join(extra)))
            else:
                out.append("  " + p("-", "dim") + " %s  %s%s" % (s["label"].ljust(width), STATUS_WORDS.get(st, st),
                                                                 (": %s" % s["reason"]) if s.get("reason") else ""))
    fs = result.get("findings") or []
    for f in fs:
        out.append("")
        out.append("%s %s  [%s]" % (f["severity"].upper(), f["title"], f["id"]))
        if f.get("detail"):
            out.append("  " + f["detail"])
    return "\n".join(out) + "\n"
