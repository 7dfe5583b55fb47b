"""What `torchdoctor explain`'s click command (cli/explain.py) and its click-free fast path
(cli/explain_fast.py) share: one option table, and the verb's result (verbs/explain.py) as
the text to print and the exit code."""

import json
from typing import Tuple

from .common import EXIT_INTERRUPTED, style

# (flags, parameter, kind, metavar, help), in --help order. kind: "value" takes one
# argument, "flag" is True when given, "switch" is "--x/--no-x" (True, False, None).
OPTIONS = (
    (("--file", "-f"), "file", "value", "LOG", "Read the error text or log from a file (any size)."),
    (("--json",), "as_json", "flag", None, "Print matches as JSON (schema_version 1)."),
    (("--all",), "show_all", "flag", None, "Explain every match in full, not just the best."),
    (("--list",), "list_entries", "flag", None, "List the known errors and exit."),
    (("--probe",), "deep", "flag", None, "Run the full check probe for deeper tailoring (slower)."),
    (("--python",), "python", "value", "PATH",
     "The interpreter whose environment the fix is for (default: as for check)."),
    (("--no-env",), "no_env", "flag", None, "Do not look at this machine at all: generic fixes only."),
    (("--color", "--no-color"), "color", "switch", None, "Force colour on or off."),
)
TEXT = "text"  # the positional words (nargs=-1)
HELP = """Explain a PyTorch error: TEXT, --file LOG, or '-' for standard input.

    TEXT may also be a known-error id, to show that entry.
    """


def defaults() -> dict:
    out = {param: (False if kind == "flag" else None) for _, param, kind, _, _ in OPTIONS}
    out[TEXT] = ()
    return out


def run(text=(), file=None, as_json=False, show_all=False, list_entries=False, deep=False, python=None,
        no_env=False, color=None) -> Tuple[str, int]:
    """The command: -> (what to print on stdout, exit code). Bad input raises InputError."""
    from ..verbs import explain as verb
    found = verb.explain(text, file=file, list_entries=list_entries, deep=deep, python=python, no_env=no_env)
    if found.entries is not None:
        if as_json:
            return json.dumps({"schema_version": 1, "entries": verb.entry_rows(found.entries)}, indent=2) + "\n", 0
        from ..render import text as T
        return T.render_entry_list(found.entries), 0
    if found.entry is not None:
        if as_json:
            return json.dumps({"schema_version": 1, "entry": found.entry.raw}, indent=2) + "\n", 0
        from ..render import text as T
        return T.render_entry(found.entry, style(color)), 0
    exps = found.explanations
    if as_json:
        out = json.dumps({"schema_version": 1, "matches": [e.to_dict() for e in exps]}, indent=2) + "\n"
    else:
        from ..render import text as T
        out = T.render_explain(exps, style(color), show_all=show_all)
    return out, EXIT_INTERRUPTED if found.interrupted else 0 if exps else 1
