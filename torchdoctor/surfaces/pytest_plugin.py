"""The pytest plugin (entry point `pytest11: torchdoctor`), inert unless asked:
`pytest --torchdoctor`, or `torchdoctor = true` in the ini file, or
`--torchdoctor-report FILE`.

Then the session header gets one line about the environment (a child probe of this
interpreter: torch and its variant, CUDA/MPS/cuDNN, GPUs), and each failed or errored test
whose exception is a known environment error gets a "torchdoctor" report section with the
diagnosis, tailored to the live torch of the process that ran it. Plain assertion failures
get nothing. Outcomes are never touched. With xdist the diagnosis travels inside the report
(an attribute pytest serialises with it), so the controller sees it and writes the report.

A guest in the test session: every hook runs inside a guest.Visit (nothing it raises
reaches pytest, pytest.fail's exception and SystemExit included; its imports come from the
interpreter's library folders only), and the processes it starts go through the
subprocess.Popen and shutil.which of the moment the plugin was configured, not through
whatever a running test has patched them to.
"""

import sys
from typing import Any, Dict, List, Optional

import pytest

from . import guest

SECTION = "torchdoctor"
ATTR = "torchdoctor_matches"


def pytest_addoption(parser):
    group = parser.getgroup("torchdoctor", "torchdoctor: diagnose environment errors in failed tests")
    group.addoption("--torchdoctor", action="store_true", default=False,
                    help="Add the environment to the header and the diagnosis of known PyTorch environment "
                         "errors to failed tests.")
    group.addoption("--torchdoctor-report", metavar="FILE", default=None,
                    help="Write one redacted report of the session (Markdown, or JSON for *.json); implies "
                         "--torchdoctor.")
    parser.addini("torchdoctor", type="bool", default=False, help="Turn the torchdoctor plugin on (as --torchdoctor).")


def enabled(config) -> bool:
    try:
        if config.getoption("torchdoctor") or config.getoption("torchdoctor_report"):
            return True
        return bool(config.getini("torchdoctor"))
    except (ValueError, AttributeError):
        return False


def pytest_configure(config):
    if enabled(config) and not config.pluginmanager.has_plugin("torchdoctor-session"):
        from ..children import timed
        timed.pin()  # before any test can patch them
        config.pluginmanager.register(Session(config), "torchdoctor-session")


def failure_text(excinfo=None, longrepr_text: str = "") -> str:
    """What the matcher reads: the exception chain as Python prints it when the exception
    object is at hand; otherwise the `E   ` lines of pytest's report (a collection error)."""
    if excinfo is not None and getattr(excinfo, "value", None) is not None:
        from .hook import exception_text
        return exception_text(excinfo.value)
    e_lines = [ln[4:] if ln.startswith("E   ") else ln[1:].lstrip() for ln in longrepr_text.splitlines()
               if ln.startswith("E ")]
    return "\n".join(e_lines) if e_lines else longrepr_text


def diagnose_text(text: str):
    from ..diagnose import explain
    from ..gather.live import live_facts
    return explain(text, gather=live_facts, limit=3)


class Session:
    def __init__(self, config):
        self.config = config
        self.worker = hasattr(config, "workerinput")
        self.diagnosed: List[Dict[str, Any]] = []
        self.counts: Dict[str, int] = {}
        self.report_path: Optional[str] = config.getoption("torchdoctor_report")
        self.wrote: Optional[str] = None

    # -- header ---------------------------------------------------------------------------
    def pytest_report_header(self, config):
        with guest.Visit() as g:
            from ..gather.probe import gather
            from ..render.brief import env_line
            facts = gather(python=sys.executable, timeout=60)
            return "torchdoctor: " + env_line(facts)
        return "torchdoctor: environment unknown (%s)" % g.error

    # -- each test -------------------------------------------------------------------------
    def _attach(self, rep, text_of) -> None:
        """`text_of()`: what to match (computed inside the guard: it formats the test's
        exception, whose __str__ is the test's code)."""
        with guest.Visit() as g:  # a failing diagnosis never fails a test
            exps, facts = diagnose_text(text_of())
            if not exps:
                return
            from ..render.brief import live_line
            from ..render.style import Style
            from ..render.text import render_explain
            body = render_explain(exps, Style(color=False), lines=False)
            live = live_line(facts)
            rep.sections.append((SECTION, body + (live + "\n" if live else "")))
            setattr(rep, ATTR, [x.to_dict() for x in exps])
        if g.error:
            rep.sections.append((SECTION, "torchdoctor: the diagnosis failed (%s)\n" % g.error))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        try:
            rep = outcome.get_result()
        except Exception:  # noqa: BLE001
            return
        if rep.failed and call.excinfo is not None and not hasattr(rep, "wasxfail"):
            self._attach(rep, lambda: failure_text(call.excinfo))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report):
        if report.failed and not getattr(report, ATTR, None):
            self._attach(report, lambda: failure_text(None, getattr(report, "longreprtext", "") or ""))
            self._record(report, "collect")

    def pytest_runtest_logreport(self, report):
        with guest.Visit():
            if report.when == "call" or (report.when in ("setup", "teardown") and not report.passed):
                key = "error" if report.when != "call" and report.failed else report.outcome
                self.counts[key] = self.counts.get(key, 0) + 1
            self._record(report, report.when)

    def _record(self, report, when: str) -> None:
        found = getattr(report, ATTR, None)
        if found and not self.worker:
            self.diagnosed.append({"nodeid": report.nodeid, "when": when, "matches": found})

    # -- the end -------------------------------------------------------------------------------
    def pytest_sessionfinish(self, session, exitstatus):
        if self.worker or not self.report_path:
            return
        with guest.Visit() as g:
            from ..userfiles import write_output
            from . import attachment
            data = {"args": [str(a) for a in self.config.invocation_params.args], "exit_status": int(exitstatus),
                    "counts": dict(self.counts), "diagnosed": self.diagnosed}
            rep = attachment.build("pytest", data, python=sys.executable)
            try:
                write_output(self.report_path, attachment.render(rep, attachment.fmt_for(self.report_path), "pytest"),
                             what="--torchdoctor-report", forcible=False)
            except ValueError as e:  # write_output's one line: a link, a missing folder...
                g.error = str(e)
            else:
                self.wrote = self.report_path
        if g.error:
            self.wrote = None
            self.error = g.error

    def pytest_terminal_summary(self, terminalreporter):
        if self.worker:
            return
        with guest.Visit():
            self._summary(terminalreporter)

    def _summary(self, terminalreporter):
        tr = terminalreporter
        if self.diagnosed:
            ids = sorted({m["id"] for d in self.diagnosed for m in d["matches"]})
            tr.write_line("torchdoctor: %d failure(s) are known environment errors: %s" % (len(self.diagnosed), ", ".join(ids)))
        if self.wrote:
            tr.write_line("torchdoctor: wrote %s (redacted)" % self.wrote)
        elif self.report_path and getattr(self, "error", None):
            tr.write_line("torchdoctor: could not write %s (%s)" % (self.report_path, self.error))
