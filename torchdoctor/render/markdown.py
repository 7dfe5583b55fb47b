"""Markdown for bug reports: renders well in a GitHub issue.

Layout: a short summary table (torch, CUDA build, GPUs, driver, cuDNN, OS,
Python, findings), the findings with their fixes, then every fact in
collapsible ``<details>`` sections: the same rows the terminal shows, the
collect_env layout, and the raw facts as JSON (which ``torchdoctor triage`` and
``check --from`` read back, so a pasted Markdown report can be re-diagnosed).
"""

import json
import re
from typing import Any, Dict, List, Optional

from .. import __version__
from ..model import derived as F
from ..model.facts import ABSENT, Facts
from ..model.findings import Finding
from ..model.report import Report
from . import collect_env_view as CE
from . import rows as R
from . import safe

FACTS_MARKER = "<!-- torchdoctor:facts schema_version=%d -->"
TITLE = "## torchdoctor report"
# GitHub rejects issue bodies over 65536 characters.
GITHUB_LIMIT = 65536

MARKS = {"ok": "\u2705", "bad": "\u274c", "warn": "\u26a0\ufe0f", "na": "\u2796", "info": "", "unknown": "\u2754"}
SEV_ICON = {"error": "\u274c", "warning": "\u26a0\ufe0f", "info": "\u2139\ufe0f"}

_ESCAPE = re.compile(r"([\\`*_\[\]<>|#])")


def esc(text: str) -> str:
    """Escape for a Markdown paragraph or table cell (``<user>`` must stay visible)."""
    text = str(text).replace("&", "&amp;")
    text = _ESCAPE.sub(lambda m: {"<": "&lt;", ">": "&gt;", "|": "\\|"}.get(m.group(1), "\\" + m.group(1)), text)
    return text


_SETEXT = re.compile(r"^(\s{0,3})([-=])")


def line(text: str) -> str:
    """One line of a paragraph: escaped, and a line of only dashes or equals signs (a
    separator in a pasted log) can no longer turn the line above into a heading."""
    out = esc(text)
    if re.fullmatch(r"\s*[-=][-=\s]*", text):
        out = _SETEXT.sub(lambda m: m.group(1) + "\\" + m.group(2), out, count=1)
    return out


def cell(text: str) -> str:
    return esc(text).replace("\r", "").replace("\n", "<br>")


def fence(body: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    f = "`" * (longest + 1)
    return "%s%s\n%s\n%s" % (f, lang, body.rstrip("\n"), f)


# -- summary --------------------------------------------------------------------
def _torch(facts: Facts) -> str:
    v = F.torch_version_str(facts)
    if facts.value("torch_import.ok") is False:
        return "%s (does not import: %s)" % (v or "not installed", facts.value("torch_import.error_type", "?"))
    return v or facts.describe("torch.version")


def _cuda_build(facts: Facts) -> str:
    if F.torch_cuda(facts):
        return "CUDA %s" % F.torch_cuda(facts)
    if F.is_rocm_build(facts):
        return "ROCm/HIP %s" % facts.value("torch.hip")
    if isinstance(facts.value("torch.xpu"), str):
        return "XPU %s" % facts.value("torch.xpu")
    b = F.is_cuda_build(facts)
    if b is False:
        return "none (CPU-only build)"
    return "unknown"


def _gpus(facts: Facts) -> str:
    gpus = F.all_gpus(facts)
    if not gpus:
        if facts.value("accelerators.mps.is_available") is True:
            return "Apple GPU (MPS available)"
        st = facts.state("driver.gpus")
        return "none visible" if st == ABSENT or F.os_name(facts) == "macos" else "unknown"
    names = {}
    for g in gpus:
        cap = F.capability(g)
        key = "%s%s" % (g.get("name", "GPU"), " (sm_%d%d)" % cap if cap else "")
        names[key] = names.get(key, 0) + 1
    return ", ".join("%d\u00d7 %s" % (n, k) if n > 1 else k for k, n in names.items())


def _driver(facts: Facts) -> str:
    d = F.driver_version(facts)
    if d:
        cdv = F.driver_cuda(facts)
        return "%s%s" % (d, " (supports CUDA %s)" % cdv if cdv else "")
    return "none" if facts.state("driver.driver_version") == ABSENT else "unknown"


def _cudnn(facts: Facts) -> str:
    v = facts.value("backends.cudnn.version")
    if isinstance(v, int):
        return CE.cudnn_str(v)
    st = facts.state("backends.cudnn.version")
    if (st == "present" and v is None) or facts.value("backends.cudnn.is_available") is False:
        return "none (not available to this torch)"
    if st == ABSENT or facts.state("backends.cudnn") == ABSENT:
        return "none"
    return "unknown" if st == "unknown" else facts.describe("backends.cudnn.version")


def _os(facts: Facts) -> str:
    text = CE.os_text(facts)
    extras = []
    if facts.value("os.wsl") is True:
        extras.append("WSL")
    if isinstance(facts.value("os.container"), str):
        extras.append("container: %s" % facts.value("os.container"))
    return text + (" [%s]" % ", ".join(extras) if extras else "")


def _python(facts: Facts) -> str:
    py = facts.section("python")
    if not py:
        return "unknown"
    env = "conda" if py.get("conda") is True else ("virtualenv" if py.get("virtualenv") is True else "")
    return "%s %s%s" % (py.get("implementation", ""), py.get("version", "?"), " (%s)" % env if env else "")


def summary_rows(report: Report) -> List[tuple]:
    f = report.facts
    c = report.counts()
    findings = "%d error(s), %d warning(s), %d note(s)" % (c["error"], c["warning"], c["info"])
    return [("torch", _torch(f)), ("CUDA build", _cuda_build(f)), ("GPU(s)", _gpus(f)), ("NVIDIA driver", _driver(f)),
            ("cuDNN", _cudnn(f)), ("OS", _os(f)), ("Python", _python(f)), ("Findings", findings)]


# -- findings -------------------------------------------------------------------
def render_finding(f: Finding) -> List[str]:
    f = safe.clean(f)
    out = ["#### %s %s: %s" % (SEV_ICON.get(f.severity, ""), f.severity.capitalize(), esc(f.title)), "",
           "`%s` \u00b7 %s" % (f.id, esc(f.category)), ""]
    if f.detail:
        out.append("  \n".join(line(ln) for ln in f.detail.strip().splitlines()))
        out.append("")
    if f.fix.summary:
        out.append("**Fix:** " + esc(f.fix.summary))
        out.append("")
    if f.fix.commands:
        out.append(fence("\n".join(f.fix.commands), "sh"))
        out.append("")
    if f.fix.resolution:
        out += ["<sub>%s</sub>" % esc(f.fix.resolution), ""]
    if f.verify:
        out += [_verify_line(f.verify.command, f.verify.expect), ""]
    if f.evidence:
        out.append("<sub>Evidence: %s%s</sub>" % ("; ".join(esc(x) for x in f.evidence),
                                                  "" if f.confidence == "high" else " \u00b7 confidence: %s" % esc(f.confidence)))
        out.append("")
    if f.links:
        out.append("See: " + ", ".join("<%s>" % x if x.startswith("http") else esc(x) for x in f.links))
        out.append("")
    return out


def _verify_line(command: str, expect: str) -> str:
    return "**Verify:** `%s`%s" % (command.replace("`", "'"), " \u2192 %s" % esc(expect) if expect else "")


def _details(title: str, body: List[str]) -> List[str]:
    return ["<details>", "<summary>%s</summary>" % esc(title), ""] + body + ["", "</details>", ""]


def facts_json(facts: Facts) -> str:
    return json.dumps(facts.to_dict(), separators=(",", ":"), sort_keys=False, default=str)


def render_match(d: Dict[str, Any], heading: str = "####", lines: bool = True) -> List[str]:
    """One known error, from an explanation's to_dict() (what a redacted report carries);
    `lines=False` when the text was a traceback the doctor formatted (no line numbers)."""
    where = "line %s" % d.get("line") + (", %s times" % d["count"] if (d.get("count") or 1) > 1 else "")
    possibly = "Possibly: " if d.get("confidence", "high") != "high" else ""  # as text and HTML say it
    out = ["%s %s%s" % (heading, possibly, esc(d.get("title", ""))), "",
           "`%s` \u00b7 %s%s" % (d.get("id", ""), esc(d.get("category", "")), " \u00b7 matched " + where if lines else ""), ""]
    if d.get("matched_text"):
        out += [fence(str(d["matched_text"]), "text"), ""]
    if d.get("cause"):
        out += ["  \n".join(line(ln) for ln in str(d["cause"]).strip().splitlines()), ""]
    fix = d.get("fix") or {}
    if fix.get("summary"):
        out += ["**Fix:** " + esc(fix["summary"]), ""]
    if fix.get("commands"):
        out += [fence("\n".join(fix["commands"]), "sh"), ""]
    verify = d.get("verify") or {}
    if verify.get("command"):
        out += [_verify_line(str(verify["command"]), str(verify.get("expect") or "")), ""]
    if d.get("facts_used"):
        out += ["Why: " + "; ".join(esc(x) for x in d["facts_used"]), ""]
    if d.get("links"):
        out += ["See: " + ", ".join("<%s>" % x if str(x).startswith("http") else esc(x) for x in d["links"]), ""]
    return out


def render_signal(sig: Dict[str, Any], heading: str = "####") -> List[str]:
    """A death by signal with no known error (surfaces/signals.py's dict)."""
    out = ["%s %s" % (heading, esc(sig.get("title", ""))), ""]
    if sig.get("exit_note"):
        out += [esc(sig["exit_note"]), ""]
    out += ["- " + esc(m) for m in sig.get("meaning", [])] + [""]
    out += [esc(n) for n in sig.get("notes", [])]
    for step in sig.get("steps", []):
        out += ["", esc(step.get("what", "")), "", fence("\n".join(step.get("commands", [])), "sh")]
    if sig.get("links"):
        out += ["", "See: " + ", ".join("<%s>" % x for x in sig["links"])]
    return out + [""]


def render_markdown(report: Report, include_json: bool = True, extra: Optional[List[str]] = None) -> str:
    """`extra`: Markdown lines a surface adds between the findings and the details (the
    diagnosis of a run, the failed tests of a session)."""
    from ..redact import redaction_summary
    raw_facts, report = report.facts, safe.view(report)  # the JSON block carries the exact facts
    f = report.facts
    out = [TITLE, ""]
    tool = f.value("tool.version") or __version__
    when = f.value("collected_at")
    src = f.value("source")
    meta = ["torchdoctor %s" % tool]
    if when:
        meta.append("collected %s" % when)
    if src and src != "probe":
        meta.append("from %s" % src)
    out.append("<sub>%s</sub>" % esc(" \u00b7 ".join(meta)))
    out.append("")
    red = redaction_summary(f)
    out.append(("> [!WARNING]\n> " + esc(red)) if red.startswith("NOT REDACTED") else "> " + esc(red))
    out.append("")
    out += ["| | |", "|---|---|"]
    out += ["| **%s** | %s |" % (k, cell(v)) for k, v in summary_rows(report)]
    out.append("")
    out.append("### Findings")
    out.append("")
    if report.findings:
        for fi in report.findings:
            out += render_finding(fi)
    else:
        out += ["\u2705 No problems found.", ""]
    if extra:
        out += list(extra) + [""]
    out.append("### Details")
    out.append("")
    for title, rws in R.build(f, report.findings):
        body = ["| | Item | Value |", "|---|---|---|"]
        body += ["| %s | %s | %s |" % (MARKS.get(r.mark, ""), cell(r.label), cell(r.value)) for r in rws]
        out += _details(title, body)
    out += _details("collect_env fields (the layout of python -m torch.utils.collect_env)",
                    [fence(CE.render_text(f), "text")])
    if include_json:
        body = [FACTS_MARKER % (f.value("schema_version") or 1), fence(facts_json(raw_facts), "json")]
        text = "\n".join(out + _details("Raw facts (JSON: torchdoctor triage / check --from read it back)", body))
        if len(text) <= GITHUB_LIMIT - 200:
            return text.rstrip() + "\n"
        out.append("<sub>Raw facts left out: the report would exceed GitHub's %d-character limit; attach "
                   "`torchdoctor report --format json` as a file instead.</sub>" % GITHUB_LIMIT)
    return "\n".join(out).rstrip() + "\n"
