"""`torchdoctor explain` without importing click (a third of its cold start).

`parse` reads only argument lists it is sure of, with the option table of the click
command (explain_common.OPTIONS) and click's own rules for them: options and words in any
order, `--` ends the options, `-` is a word, `--opt=value`, `-fLOG`, the last of a
repeated option wins. It declines (None) everything else: --help, an option it does not
know, a flag given a value, a value that looks like an option. `run` also declines where
click.echo would write differently (Windows consoles, an ASCII stdout that click
re-wraps). A declined command line goes to click, so every error message is click's.
tests/cli/test_cli_explain_fast.py holds parse to click's parser on generated lines.
"""

import codecs
import os
import sys
from typing import Optional

from . import explain_common


def _table():
    out = {}
    for flags, param, kind, _, _ in explain_common.OPTIONS:
        if kind == "switch":
            out[flags[0]], out[flags[1]] = (param, "flag", True), (param, "flag", False)
        else:
            for flag in flags:
                out[flag] = (param, kind, True)
    return out


def parse(argv) -> Optional[dict]:
    """The explain command's parameters for `argv`, as click would give them, or None."""
    table = _table()
    params = explain_common.defaults()
    words = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            words.extend(args[i:])
            break
        if arg == "-" or not arg.startswith("-"):
            words.append(arg)
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            attached = value if eq else None
        else:  # a short option: -f LOG, or its value attached (-fLOG, also -f=LOG: value "=LOG")
            name, attached = arg[:2], (arg[2:] or None)
        spec = table.get(name)
        if spec is None:
            return None
        param, kind, on = spec
        if kind == "flag":
            if attached is not None:
                return None
            params[param] = on
            continue
        if attached is None:
            if i >= len(args) or args[i].startswith("-"):
                return None
            attached = args[i]
            i += 1
        params[param] = attached
    params[explain_common.TEXT] = tuple(words)
    return params


def _plain_stdout() -> bool:
    if os.name == "nt":
        return False
    try:
        return codecs.lookup(getattr(sys.stdout, "encoding", None) or "ascii").name != "ascii"
    except LookupError:
        return False


def run(argv) -> Optional[int]:
    """Run `explain argv` without click: its exit code, or None when click should."""
    if not _plain_stdout():
        return None
    params = parse(argv)
    if params is None:
        return None
    out, code = explain_common.run(**params)
    if out:
        sys.stdout.write(out)
    sys.stdout.flush()
    return code
