"""triage: diagnose what a user pasted into an issue, on the maintainer's machine.

Input, recognised in this order:

1. a torchdoctor JSON report (``report --format json``, ``check --json``,
   ``triage --json``), alone or embedded in the paste;
2. a torchdoctor Markdown report (its embedded facts block; when that was cut
   off, its collect_env section is read instead, and the result says so);
3. the output of ``python -m torch.utils.collect_env`` from any torch version,
   or the issue template's hand-filled checklist (``collect_env.py``);
4. failing all of those, error text alone: it is explained, with no facts.

Facts a paste cannot give stay unknown; the checks that need them are not run
(each check's ``requires``), and the result lists both, so a maintainer sees what to ask for.
The local machine is never looked at: every fact comes from the paste.
"""

import json
import re
from ..model.records import field, record
from typing import Any, Dict, List, Optional, Tuple

from ..model.facts import SCHEMA_VERSION, UNKNOWN, Facts
from ..model.report import Report

MAX_BYTES = 16 * 1024 * 1024

KINDS = {
    "json-report": "a torchdoctor JSON report",
    "markdown-report": "a torchdoctor Markdown report",
    "collect_env": "output of python -m torch.utils.collect_env",
    "checklist": "the issue template's environment checklist",
    "error-text": "error text only (no environment facts)",
}


class TriageError(ValueError):
    """The input cannot be triaged; the message is one line for the user."""


@record
class TriageResult:
    name: str
    kind: str
    report: Report
    explanations: list = field(default_factory=list)
    fields: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    skipped_checks: List[Dict[str, Any]] = field(default_factory=list)
    provenance: Dict[str, str] = field(default_factory=dict)
    lines: Tuple[int, int] = (0, 0)

    @property
    def facts(self) -> Facts:
        return self.report.facts

    def known_and_unknown(self) -> Tuple[List[str], List[str]]:
        known, unknown = [], []
        for label, paths in KEY_FACTS:
            if any(self.facts.state(p) != UNKNOWN for p in paths):
                known.append(label)
            else:
                unknown.append(label)
        return known, unknown

    def to_dict(self) -> Dict[str, Any]:
        known, unknown = self.known_and_unknown()
        out = self.report.to_dict()
        out["matches"] = [e.to_dict() for e in self.explanations]
        out["triage"] = {
            "input": self.name, "format": self.kind, "format_description": KINDS.get(self.kind, self.kind),
            "lines": list(self.lines), "fields": list(self.fields), "known": known, "unknown": unknown,
            "notes": list(self.notes), "skipped_checks": list(self.skipped_checks),
            "provenance": dict(self.provenance),
        }
        return out


KEY_FACTS = (
    ("torch version", ("torch.version", "packages.installed.torch.version")),
    ("CUDA build", ("torch.cuda",)),
    ("GPU(s)", ("driver.gpus", "cuda.devices")),
    ("NVIDIA driver", ("driver.driver_version",)),
    ("cuDNN", ("backends.cudnn.version",)),
    ("OS", ("os.system",)),
    ("Python", ("python.version",)),
    ("packages", ("packages.installed",)),
)


# -- decoding -------------------------------------------------------------------------
def decode_paste(data: bytes, name: str) -> str:
    if len(data) > MAX_BYTES:
        raise TriageError("%s is over %d MB; a paste or report is far smaller" % (name, MAX_BYTES // 2 ** 20))
    if _blank(data):
        raise TriageError("%s is empty: nothing to triage" % name)
    utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
    if b"\x00" in data[:8192] and not utf16:
        raise TriageError("%s is a binary file, not a paste or report" % name)
    from ..userfiles import decode
    text = decode(data)
    sample = text[:20000]
    bad = sum(1 for c in sample if c == "\ufffd" or (ord(c) < 32 and c not in "\r\n\t\x1b\x0c"))
    if sample and bad > len(sample) * 0.05:
        raise TriageError("%s is a binary file, not a paste or report" % name)
    if _blank(text):
        raise TriageError("%s is empty: nothing to triage" % name)
    return text


def _blank(s) -> bool:
    """Empty or all whitespace, without the copy that s.strip() makes of a 16 MB paste."""
    return not s or s.isspace()


# -- reports ----------------------------------------------------------------------------
_EMBEDDED_JSON = re.compile(r'\{\s*"schema_version"\s*:')
_JSON_START = re.compile(r"\s*[\[{]")


def _report_from_json(text: str, name: str) -> Optional[Facts]:
    """Facts from a JSON report; None when the text is not JSON at all."""
    from ..gather.saved import facts_from_report
    data: Any = None
    if _JSON_START.match(text):
        s = text.strip()
        try:
            data = json.loads(s)
        except RecursionError:
            raise TriageError("%s nests JSON too deeply to be a torchdoctor report" % name)
        except ValueError:
            if '"schema_version"' in s[:2000] or '"facts"' in s[:2000]:
                raise TriageError("%s looks like a torchdoctor JSON report but is not valid JSON (cut off?)" % name)
            return None
        if not isinstance(data, dict) or not ("facts" in data or "schema_version" in data):
            raise TriageError("%s is JSON but not a torchdoctor report (no schema_version/facts); "
                              "triage reads torchdoctor reports and collect_env output" % name)
    else:
        m = _EMBEDDED_JSON.search(text)
        if not m:
            return None
        try:
            data, _ = json.JSONDecoder().raw_decode(text, m.start())
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or "facts" not in data:
            return None
    try:
        return facts_from_report(data, name)
    except ValueError as e:
        raise TriageError(str(e))


# -- checks -------------------------------------------------------------------------------
def _diagnose(facts: Facts):
    """Checks whose facts the paste lacks skip themselves (see @check(requires=...))."""
    from ..diagnose import diagnose
    rep = diagnose(facts)
    return rep, rep.skipped


def _explain(text, facts: Optional[Facts], raw: Optional[bytes] = None):
    """Known errors in the paste, read as `explain` reads the same input: in memory up
    to SMALL_INPUT bytes, past it with the stream scanner (`explain --file`'s path:
    linear, flat memory; it does not rejoin lines a paste wrapped)."""
    from ..diagnose import explain
    from ..match.matcher import SMALL_INPUT
    if (len(raw) if raw is not None else len(text)) <= SMALL_INPUT:
        return explain(text, facts=facts)[0]
    import io

    from ..match.logscan import scan_stream
    raw = raw if raw is not None else text.encode("utf-8", "surrogatepass")
    return explain(matches=scan_stream(io.BytesIO(raw)), facts=facts)[0]


# -- entry points ------------------------------------------------------------------------
def triage_file(file: Optional[str]) -> TriageResult:
    """`torchdoctor triage [FILE|-]`: the paste in FILE, or on standard input when it was
    piped (InputError, a ValueError, when there is nothing to read or it cannot be triaged)."""
    import sys

    from ..userfiles import display_name, read_head
    from .common import InputError
    if file is None:
        if sys.stdin.isatty():
            raise InputError("nothing to triage: give a FILE, or pipe the paste into `torchdoctor triage -`")
        file = "-"
    try:
        data, name = read_head(file, MAX_BYTES + 1, "paste or report"), display_name(file)
    except ValueError as e:
        raise InputError(str(e))
    try:
        return triage_bytes(data, name)
    except TriageError as e:
        raise InputError(str(e))


def triage_bytes(data: bytes, name: str = "input") -> TriageResult:
    big = _big_paste(data, name)
    if big is not None:  # never decoded whole: read a piece at a time (triage/lines.py)
        return _from_paste(big, name, [], data)
    return triage_text(decode_paste(data, name), name, _raw=data)


def _big_paste(data: bytes, name: str):
    """A paste past SMALL_INPUT that can only be a collect_env paste or a log, as a
    lines.BytesPaste; None when it must be read as text (UTF-16, anything that may be a
    report). Says what decode_paste says of bad input, without decoding it whole: a 16 MB
    log of emoji-laden lines is 64 MB as a Python string."""
    from ..match.matcher import SMALL_INPUT
    from ..gather.paste.lines import BytesPaste
    if len(data) <= SMALL_INPUT or len(data) > MAX_BYTES or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    if b'"schema_version"' in data or b'"facts"' in data or b"torchdoctor:facts" in data:
        return None  # every report (JSON, embedded, Markdown) holds one of these literally
    if _blank(data) or b"\x00" in data[:8192]:
        return None  # decode_paste says so
    head = data[:SMALL_INPUT].decode("utf-8-sig", "replace")
    sample = head[:20000]
    bad = sum(1 for c in sample if c == "\ufffd" or (ord(c) < 32 and c not in "\r\n\t\x1b\x0c"))
    if sample and bad > len(sample) * 0.05:
        return None
    first = len(head) - len(head.lstrip())
    if first == len(head):
        return None  # all blank so far: the whole text decides
    if head[first] in "{[" and not _fails_early_as_json(head[first:]):
        return None
    paste = BytesPaste(data)
    if paste.isspace():
        return None
    return paste


def _fails_early_as_json(head: str) -> bool:
    """Whether json.loads of the whole text fails as it fails on `head`, its start: at a
    position well inside it ("[INFO] ..." fails at once), not at its cut."""
    try:
        json.loads(head)
    except RecursionError:
        return False
    except ValueError as e:
        pos = getattr(e, "pos", None)
        return pos is not None and pos < len(head) - 1 and not str(e).startswith("Unterminated string")
    return False


def triage_text(text: str, name: str = "input", _raw: Optional[bytes] = None) -> TriageResult:
    """`_raw`: the bytes `text` was decoded from, which a big paste's error scan reads
    (as `explain --file` does) instead of encoding the text again."""
    if _blank(text):
        raise TriageError("%s is empty: nothing to triage" % name)
    notes: List[str] = []
    facts = _report_from_json(text, name)
    if facts is not None:
        # A report of a triaged paste has no probe section: its unknowns still apply.
        report, skipped = _diagnose(facts)
        return TriageResult(name, "json-report", report, notes=["re-diagnosed from the report's facts"],
                            skipped_checks=skipped)
    from ..gather.saved import facts_from_markdown, looks_like_markdown_report
    if looks_like_markdown_report(text):
        try:
            facts = facts_from_markdown(text, name)
        except ValueError as e:
            notes.append("%s; read its collect_env section instead" % e)
        else:
            report, skipped = _diagnose(facts)
            return TriageResult(name, "markdown-report", report, notes=["re-diagnosed from the report's facts"],
                                skipped_checks=skipped)
    return _from_paste(text, name, notes, _raw)


def _from_paste(text, name: str, notes: List[str], raw: Optional[bytes]) -> TriageResult:
    """A collect_env paste, a checklist, or error text alone (`text`: str or lines.BytesPaste)."""
    from ..gather.paste.collect_env import parse
    from ..gather.paste.fields import CHECKLIST_ONLY
    parsed = parse(text)
    if parsed.recognised:
        facts = Facts(parsed.facts)
        report, skipped = _diagnose(facts)
        kind = "checklist" if set(parsed.found) & CHECKLIST_ONLY else "collect_env"
        if notes:
            kind = "markdown-report"
        return TriageResult(name, kind, report, _explain(text, facts, raw), fields=parsed.found,
                            notes=notes + parsed.notes, skipped_checks=skipped, provenance=parsed.provenance,
                            lines=parsed.lines)
    exps = _explain(text, None, raw)
    if exps:
        facts = Facts({"schema_version": SCHEMA_VERSION, "source": "paste without environment facts"})
        return TriageResult(name, "error-text", Report(facts, []), exps,
                            notes=notes + ["no collect_env output or torchdoctor report in the paste: ask the "
                                           "reporter for `torchdoctor report` (or python -m torch.utils.collect_env)"])
    raise TriageError("no collect_env output, torchdoctor report or known PyTorch error recognised in %s" % name)


# -- text output ----------------------------------------------------------------------------
def render_triage_text(result: TriageResult, st) -> str:
    from ..render import safe
    from ..render.markdown import summary_rows
    from ..render.text import render_check, render_explain
    report = safe.view(result.report)  # every string of the paste shown escaped, never raw
    out: List[str] = []
    out.append(st.paint("Triage of %s: %s" % (safe.line(result.name), KINDS.get(result.kind, result.kind)), "title"))
    if result.lines[0]:
        out.append(st.paint("  lines %d-%d, %d field(s) recognised" % (result.lines[0], result.lines[1],
                                                                    len(result.fields)), "dim"))
    if result.kind != "error-text":
        for label, value in summary_rows(report)[:-1]:
            out.append("  %-14s %s" % (label, safe.line(value)))
    known, unknown = result.known_and_unknown()
    if unknown and result.kind != "error-text":
        out.append(st.paint("  Unknown (not in the paste): %s" % ", ".join(unknown), "warning"))
    for n in result.notes:
        out.append("  - " + safe.visible(n))
    if result.skipped_checks and result.kind == "error-text":  # otherwise render_check lists them
        out.append(st.paint("  Checks not run for lack of facts: %s" % ", ".join(
            "%s (needs %s)" % (s["id"], ", ".join(s["needs"])) for s in safe.clean(result.skipped_checks)), "dim"))
    out.append("")
    if result.kind != "error-text":
        out.append(render_check(report, st).rstrip())
        out.append("")
    if result.explanations:
        out.append(st.paint("Known errors in the paste", "title"))
        out.append(render_explain(result.explanations, st).rstrip())
    elif result.kind != "error-text":
        out.append(st.paint("No known PyTorch error text in the paste.", "dim"))
    return "\n".join(out).rstrip() + "\n"
