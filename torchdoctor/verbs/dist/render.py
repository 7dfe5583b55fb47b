"""A job result as text (terminal), Markdown (an issue, redacted like `report`) or JSON.

Pure functions of the job dict, plus `emit`, which writes what the options ask for and
survives a closed or full standard output.
"""

import copy
import json
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

from ...model.findings import Finding
from ...render.style import Style
from . import bandwidth as B
from . import jobfacts as J

SEV_MARK = {"error": "bad", "warning": "warn", "info": "info"}
STEP_MARK = {"ok": "ok", "failed": "bad", "error": "bad", "timeout": "bad", "wrong": "bad", "interrupted": "bad",
             "unsupported": "na", "skipped": "na"}
SEV_ICON = {"error": "\u274c", "warning": "\u26a0\ufe0f", "info": "\u2139\ufe0f"}


def findings_of(job: Dict[str, Any]) -> List[Finding]:
    return [Finding.from_dict(f) for f in job.get("findings") or []]


def counts(job: Dict[str, Any]) -> Dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0}
    for f in job.get("findings") or []:
        out[f.get("severity", "info")] = out.get(f.get("severity", "info"), 0) + 1
    return out


def _torch_line(job: Dict[str, Any]) -> str:
    vals = sorted({(J.summary(job, r).get("torch") or {}).get("version") or "?" for r in J.with_summary(job)})
    return "torch " + " / ".join(vals) if vals else "torch unknown"


def headline(job: Dict[str, Any]) -> str:
    n = J.world(job)
    nodes = job.get("nodes") or []
    backend = job.get("backend")
    bits = ["%d rank%s on %d node%s" % (n, "" if n == 1 else "s", len(nodes), "" if len(nodes) == 1 else "s")]
    if backend:
        bits.append("%s (%s)" % (backend, job.get("backend_why") or ""))
    bits.append(_torch_line(job))
    return "torchdoctor dist: " + ", ".join(bits)


def step_note(job: Dict[str, Any], s: Dict[str, Any]) -> str:
    kind, status = s.get("kind"), s.get("status")
    per = s.get("per_rank") or {}
    if kind == "join" and status == "interrupted":
        got = J.world(job) - len(s.get("missing") or [])
        return "%d/%d ranks when the run was stopped (%s)" % (got, J.world(job), s.get("detail") or "")
    if kind == "join":
        got = J.world(job) - len(s.get("missing") or [])
        return "%d/%d ranks in %.1f s%s" % (got, J.world(job), s.get("seconds") or 0,
                                          "; never joined: %s" % J.ranges(s["missing"]) if s.get("missing") else "")
    if kind == "gather":
        secs = [v for v in (job.get("timings") or {}).get("gather_s", {}).values() if isinstance(v, (int, float))]
        if secs and len(secs) > 1:
            span = " (%.2f-%.2f s per rank)" % (min(secs), max(secs))
        else:
            span = " (%.2f s)" % secs[0] if secs else ""
        return "%d %s%s%s" % (len(secs), "summary" if len(secs) == 1 else "summaries", span,
                              "; missing: %s" % J.ranges(s["missing"]) if s.get("missing") else "")
    if status == "skipped":
        return s.get("detail") or "skipped"
    if status == "interrupted":
        return s.get("detail") or "interrupted"
    if status == "unsupported":
        errs = [v.get("error") for v in per.values() if v.get("error")]
        return "not supported by %s%s" % (s.get("backend") or job.get("backend") or "the backend",
                                          ": " + errs[0] if errs else "")
    if status == "timeout":
        late = [int(r) for r, v in per.items() if v.get("status") in ("timeout", "missing")]
        return "no result within %g s from %s" % (s.get("timeout_s") or 0, J.ranks_text(late))
    if status == "error":
        gone = [int(r) for r, v in per.items() if v.get("status") == "gone"]
        errs = [(int(r), v.get("error")) for r, v in per.items() if v.get("status") == "error"]
        bits = ["%s left" % J.ranks_text(gone)] if gone else []
        if errs:
            from .conditions.common import short_error
            bits.append("failed on %s: %s" % (J.ranks_text(r for r, _ in errs), short_error(errs[0][1] or "", 120)))
        return "; ".join(bits)
    if status == "wrong":
        return "WRONG values (see findings)"
    if kind == "init":
        return "%s process group in %.2f s" % (s.get("backend") or "", s.get("seconds") or 0)
    if kind in ("sweep", "pair"):
        return "%.2f s" % (s.get("seconds") or 0)
    if kind == "groups":
        return "%d pair groups" % len([1 for _ in per])
    return "verified on %d ranks (%.3f s)" % (len(per), s.get("seconds") or 0) if kind != "barrier" else \
        "%d ranks (%.3f s)" % (len(per), s.get("seconds") or 0)


def bandwidth_rows(job: Dict[str, Any]) -> List[Tuple[str, ...]]:
    rows = []
    for r in (job.get("bandwidth") or {}).get("rows") or []:
        rows.append((r["op"], B.human_size(r.get("requested_bytes") or r["bytes"]), _us(r["time_s"]),
                     _gb(r.get("algbw")), _gb(r.get("busbw")),
                     "rank %d" % r["slowest_rank"]))
    return rows


def pair_rows(job: Dict[str, Any]) -> List[Tuple[str, ...]]:
    return [(p["what"], B.human_size(p.get("requested_bytes") or p["bytes"]), _us(p["time_s"]), _gb(p.get("busbw")))
            for p in job.get("pairs") or []]


def _us(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return "%.1f us" % (seconds * 1e6)
    return "%.2f ms" % (seconds * 1e3) if seconds < 1 else "%.3f s" % seconds


def _gb(v: Optional[float]) -> str:
    return "-" if v is None else ("%.2f" % v if v < 100 else "%.1f" % v)


def formula_line(job: Dict[str, Any]) -> str:
    plan = job.get("plan") or {}
    return ("%s, %s iterations after %s warm-up; time is the slowest rank's; algbw = S/t, busbw = algbw x 2(n-1)/n "
            "for all_reduce and x (n-1)/n for all_gather (nccl-tests, doc/PERFORMANCE.md)"
            % (job.get("backend"), plan.get("iters"), plan.get("warmup")))


def expectation_line(job: Dict[str, Any]) -> str:
    exp = job.get("expectation")
    if job.get("backend") != "nccl":
        return "gloo/CPU: measured only; no expectation is derived for it"
    if not exp:
        return "no expectation: the topology could not be read (nvidia-smi topo -m)"
    if not exp.get("gbps"):
        return "no expectation for %s: %s" % (exp.get("link"), exp.get("why"))
    from . import topology
    conf = topology.data()["expectation"]
    judged = ("flagged below %d%% at messages >= %s" % (conf["fraction"] * 100, B.human_size(conf["min_bytes"]))
              if exp.get("judged") else "reported only: %s" % exp.get("why"))
    return "the slowest link %s: %s, nominal %.1f GB/s (%s)" % (exp.get("scope", ""), exp.get("link"), exp["gbps"],
                                                                 judged)


# --------------------------------------------------------------------- text --
def _table(rows: List[Tuple[str, ...]], header: Tuple[str, ...], pad: str = "  ") -> List[str]:
    allrows = [header] + rows
    widths = [max(len(str(r[i])) for r in allrows) for i in range(len(header))]
    return [pad + "  ".join(str(c).ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in allrows]


def render_finding_text(f: Finding, st: Style) -> List[str]:
    from ...render.safe import clean
    f = clean(f)
    out = ["%s %s %s" % (st.mark(SEV_MARK.get(f.severity, "info")), st.paint(f.severity.upper(), f.severity),
                         st.paint(f.title, "title")), st.paint("  [%s]" % f.id, "dim")]
    for ln in (f.detail or "").splitlines():
        out.append("  " + ln if ln.strip() else "")
    if f.fix.summary or f.fix.commands:
        out.append("  Fix: " + f.fix.summary)
        for c in f.fix.commands:
            out.append("    " + st.command(c))
    for link in f.links:
        out.append("  See: " + link)
    return out


def render_text(job: Dict[str, Any], st: Style) -> str:
    from ...render.safe import clean
    job = clean(job)  # the ranks' facts come from other hosts: shown escaped, never raw
    out = [st.paint(headline(job), "title")]
    if job.get("interrupted"):
        out.append(st.paint("  INTERRUPTED: %s" % job["interrupted"], "error"))
    out.append("")
    out.append(st.paint("Nodes", "title"))
    for node in job.get("nodes") or []:
        locals_ = [J.where(job, r).get("local_rank") for r in node["ranks"]]
        loc = " (local %s)" % J.ranges(x for x in locals_ if x is not None) if any(x is not None for x in locals_) \
            else ""
        out.append("  node %s  %s  %s%s" % (node["label"], node.get("host") or "?", J.ranks_text(node["ranks"]), loc))
    out.append("")
    out.append(st.paint("Steps", "title"))
    width = max([len(s.get("name", "")) for s in job.get("steps") or []] + [8])
    for s in job.get("steps") or []:
        out.append("  %s %s  %s" % (st.mark(STEP_MARK.get(s.get("status"), "unknown")), s["name"].ljust(width),
                                    step_note(job, s)))
    rows = bandwidth_rows(job)
    if rows:
        out += ["", st.paint("Bandwidth", "title") + " (" + formula_line(job) + ")"]
        out += _table(rows, ("op", "size", "time", "algbw GB/s", "busbw GB/s", "slowest"))
        out.append("  expected: " + expectation_line(job))
    prs = pair_rows(job)
    if prs:
        out += ["", st.paint("Pairs", "title") + " (all_reduce between two ranks or two nodes)"]
        out += _table(prs, ("pair", "size", "time", "busbw GB/s"))
    c = counts(job)
    out += ["", "Findings: %d error(s), %d warning(s), %d note(s)" % (c["error"], c["warning"], c["info"])]
    for f in findings_of(job):
        out.append("")
        out += render_finding_text(f, st)
    t = job.get("timings") or {}
    out += ["", st.paint("%d ranks in %.1f s (join %.1f s); torchdoctor %s" % (
        J.world(job), t.get("total_s") or 0, t.get("join_s") or 0, (job.get("tool") or {}).get("version")), "dim")]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------- markdown --
_ESCAPE = re.compile(r"([\\`*_\[\]<>|#])")


def esc(text: Any) -> str:
    text = str(text).replace("&", "&amp;")
    return _ESCAPE.sub(lambda m: {"<": "&lt;", ">": "&gt;", "|": "\\|"}.get(m.group(1), "\\" + m.group(1)), text)


def fence(body: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    f = "`" * (longest + 1)
    return "%s%s\n%s\n%s" % (f, lang, body.rstrip("\n"), f)


def _md_table(header: Tuple[str, ...], rows: List[Tuple[str, ...]]) -> List[str]:
    out = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return out + [""]


def redact_job(job: Dict[str, Any]) -> Dict[str, Any]:
    """A copy fit to post: host names become <host>, and every string goes through
    torchdoctor.redact's Redactor (the summaries were redacted on their ranks already)."""
    from ...redact import Redactor
    out = copy.deepcopy(job)
    r = Redactor()
    for rec in out.get("ranks") or []:
        w = rec.get("where")
        if isinstance(w, dict):
            r.learn_host(w.get("host"))
    for node in out.get("nodes") or []:
        r.learn_host(node.get("host"))
    hosts = 0
    for rec in out.get("ranks") or []:
        w = rec.get("where")
        if isinstance(w, dict):
            w.pop("pidns", None)
            if w.get("host") and w["host"] != "<host>":
                w["host"] = "<host>"
                hosts += 1
    for node in out.get("nodes") or []:
        if node.get("host"):
            node["host"] = "<host>"
    red = r.value(out)
    counts_ = dict(r.counts)
    if hosts:
        counts_["hostname"] = counts_.get("hostname", 0) + hosts
    red["redaction"] = {"enabled": True, "counts": dict(sorted(counts_.items()))}
    return red


def render_markdown(job: Dict[str, Any]) -> str:
    red = job.get("redaction") or {}
    if red.get("enabled"):
        cs = red.get("counts") or {}
        rline = "Redacted: " + (", ".join("%d %s" % (n, k) for k, n in sorted(cs.items())) or "nothing found") + "."
    else:
        rline = "NOT REDACTED (--no-redact): host names, addresses and secrets may be in this report."
    c = counts(job)
    out = ["## torchdoctor dist report", "",
           "<sub>torchdoctor %s \u00b7 collected %s</sub>" % ((job.get("tool") or {}).get("version"),
                                                           job.get("collected_at")), "", "> " + esc(rline), ""]
    if job.get("interrupted"):
        out += ["> **Interrupted:** " + esc(job["interrupted"]), ""]
    out += ["| | |", "|---|---|",
            "| **ranks** | %d on %d node(s) |" % (J.world(job), len(job.get("nodes") or [])),
            "| **backend** | %s |" % esc("%s (%s)" % (job.get("backend"), job.get("backend_why") or "")),
            "| **torch** | %s |" % esc(_torch_line(job)[6:]),
            "| **launcher** | %s |" % esc((job.get("launcher") or {}).get("name")),
            "| **findings** | %d error(s), %d warning(s), %d note(s) |" % (c["error"], c["warning"], c["info"]), ""]
    out += ["### Findings", ""]
    for f in findings_of(job):
        out += ["#### %s %s: %s" % (SEV_ICON.get(f.severity, ""), f.severity.capitalize(), esc(f.title)), "",
                "`%s` \u00b7 %s" % (f.id, esc(f.category)), ""]
        if f.detail:
            out += ["  \n".join(esc(x) for x in f.detail.strip().splitlines()), ""]
        if f.fix.summary:
            out += ["**Fix:** " + esc(f.fix.summary), ""]
        if f.fix.commands:
            out += [fence("\n".join(f.fix.commands), "sh"), ""]
        if f.links:
            out += ["See: " + ", ".join("<%s>" % x for x in f.links), ""]
    if not job.get("findings"):
        out += ["None.", ""]
    out += ["### Steps", ""]
    out += _md_table(("step", "status", "note"), [(s["name"], s.get("status", ""), step_note(job, s))
                                                  for s in job.get("steps") or []])
    rows = bandwidth_rows(job)
    if rows:
        out += ["### Bandwidth", "", esc(formula_line(job)) + ".", "", "Expected: " + esc(expectation_line(job)), ""]
        out += _md_table(("op", "size", "time", "algbw GB/s", "busbw GB/s", "slowest"), rows)
    if pair_rows(job):
        out += ["### Pairs", ""] + _md_table(("pair", "size", "time", "busbw GB/s"), pair_rows(job))
    out += ["<details>", "<summary>Nodes and ranks</summary>", ""]
    out += _md_table(("rank", "node", "local", "torch", "GPU", "python"), [
        (str(r), (J.node_of(job, r) or {}).get("label", "?"), str(J.where(job, r).get("local_rank", "?")),
         str(((J.summary(job, r) or {}).get("torch") or {}).get("version")),
         str(((J.summary(job, r) or {}).get("device") or {}).get("name") or "-"),
         str(((J.summary(job, r) or {}).get("python") or {}).get("version"))) for r in J.all_ranks(job)])
    out += ["</details>", "", "<details>", "<summary>The job as JSON (torchdoctor dist --json)</summary>", "",
            fence(json.dumps(job, default=str, separators=(",", ":")), "json"), "", "</details>", ""]
    from ...render.safe import visible  # the JSON block is ASCII already (ensure_ascii): exact
    return visible("\n".join(out))


def render_json(job: Dict[str, Any]) -> str:
    return json.dumps(job, indent=2, default=str) + "\n"


# --------------------------------------------------------------------- emit --
def emit(job: Dict[str, Any], opts, code: int, stream=None) -> int:
    """Print what the options ask for; write --report. A report file that cannot be
    written is one line on stderr and exit 2; a reader that went away is not an error."""
    stream = stream or sys.stdout
    if getattr(opts, "report", None):
        doc = render_markdown(job if opts.no_redact else redact_job(job))
        from ...userfiles import write_output
        try:
            write_output(opts.report, doc, force=opts.force, what="--report")
        except ValueError as e:
            sys.stderr.write("torchdoctor: error: %s\n" % e)
            code = 2
    text = render_json(job) if opts.as_json else render_text(job, Style.for_stream(stream, color=opts.color))
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        _drop_stdout(stream)
    except OSError as e:
        _drop_stdout(stream)
        try:
            sys.stderr.write("torchdoctor: error: cannot write to standard output: %s\n" % (
                e.strerror or e))
        except OSError:
            pass
        return 2
    if getattr(opts, "report", None) and code != 2:
        try:
            sys.stderr.write("torchdoctor: wrote %s (Markdown, %s)\n" % (
                opts.report, "NOT redacted" if opts.no_redact else "redacted"))
        except OSError:
            pass
    return code


def _drop_stdout(stream) -> None:
    """After a failed write, nothing buffered may be flushed again at exit (a second error)."""
    import os
    if stream is sys.stdout:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
