"""Every option README.md and docs/ name exists: `torchdoctor VERB ... --option` anywhere (code
blocks, the commands of captured examples, inline code), the option tables of each verb's page,
`%torchdoctor VERB --option` of the IPython extension and pytest's `--torchdoctor*` options are
held to the real click commands, the magic's parser and pytest's own --help."""

import argparse
import functools
import glob
import os
import re
import shlex
import subprocess
import sys

import click
import pytest

from torchdoctor.cli.group import VERBS, cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
# The page of one verb: its option tables and its inline `--options` are that verb's.
VERB_PAGES = {"docs/check.md": "check", "docs/explain.md": "explain", "docs/lint.md": "lint",
              "docs/tune.md": "tune", "docs/dist.md": "dist", "docs/run.md": "run", "docs/mcp.md": "mcp",
              "docs/fix.md": "fix"}
# docs/report.md holds three verbs: a section is the verb its heading names.
SECTION_VERB = re.compile(r"^#+ .*`torchdoctor (report|triage|diff)\b")
# Options of other programs that a verb's page names in prose, each with where it belongs.
FOREIGN = {
    ("docs/dist.md", "--shm-size"): "docker run, in NCCL's troubleshooting advice",
    ("docs/dist.md", "--standalone"): "torchrun, which --nproc-per-node starts",
    ("docs/dist.md", "--local-addr"): "torchrun, which --nproc-per-node starts",
    ("docs/run.md", "--password"): "a program's own option, redacted in --report's command line",
    ("docs/mcp.md", "--shadow-dir"): "the probe child's own option",
    ("docs/mcp.md", "-P"): "Python's own option, which the isolated probe imitates",
    ("docs/mcp.md", "-I"): "Python's own option, which the isolated probe does not use",
}
# Where a command line ends: what follows is another command, a redirection or a comment.
ENDS = {"|", "||", "&&", ";", "&", ">", ">>", "2>&1", "#", ")", "--"}
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^\s*```")
CAPTURE = re.compile(r"^<!-- capture[^:]*: (.*) -->\s*$")


@functools.lru_cache(maxsize=None)
def verb_options():
    """verb -> every option string its click command accepts (and the group's own)."""
    out = {}
    ctx = click.Context(cli)
    for verb in VERBS:
        cmd = cli.get_command(ctx, verb)
        names = {"--help", "-h"}
        for p in cmd.params:
            names.update(p.opts)
            names.update(p.secondary_opts)
        out[verb] = names
    return out


@functools.lru_cache(maxsize=None)
def magic_options():
    """%torchdoctor subcommand -> its option strings (explain takes the rest of the line as text)."""
    from torchdoctor.surfaces import ipython
    parser = ipython._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = {name: set(p._option_string_actions) for name, p in sub.choices.items()}
    out["explain"] = set()
    return out


@functools.lru_cache(maxsize=None)
def pytest_options():
    """The --torchdoctor* options pytest itself lists with the plugin loaded."""
    # The plugin is loaded through its entry point (pytest11), as for a user.
    p = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    found = set(re.findall(r"^\s+(--torchdoctor[\w-]*)", p.stdout, re.M))
    assert "--torchdoctor" in found, p.stdout[-2000:] + p.stderr[-2000:]
    return found


def words(text):
    try:
        return shlex.split(text, comments=False)
    except ValueError:  # an unbalanced quote in prose: whitespace words are good enough
        return text.split()


def option_name(word):
    """'--format=json' -> '--format'; '--color/--no-color' -> both; None for a non-option."""
    if not word.startswith("-") or word in ("-", "--") or re.match(r"^-\d", word):
        return []
    return [w.split("=", 1)[0] for w in word.split("/") if w.startswith("-")]


def commands_in(text):
    """(verb, option) for every `torchdoctor VERB ...` in a line of text."""
    out = []
    ws = words(text)
    for i, w in enumerate(ws):
        if w != "torchdoctor" or i + 1 >= len(ws) or ws[i + 1] not in VERBS:
            continue
        verb = ws[i + 1]
        for rest in ws[i + 2:]:
            if rest in ENDS or rest.startswith(("#", "<(", "$(")) or re.match(r"^\d?>", rest):
                break
            out += [(verb, o) for o in option_name(rest)]
    return out


def magics_in(text):
    """(subcommand, option) for every `%torchdoctor SUB ...`."""
    out = []
    for m in re.finditer(r"%torchdoctor (\w+)([^`\n]*)", text):
        if m.group(1) == "explain":
            continue
        for w in m.group(2).replace("[", " ").replace("]", " ").split():
            out += [(m.group(1), o) for o in option_name(w)]
    return out


def documented(page, text):
    """Everything a page names, as (kind, subject, option, line number)."""
    found = []
    in_fence = False
    section_verb = VERB_PAGES.get(page)
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        m = SECTION_VERB.match(line)
        if m and page == "docs/report.md":
            section_verb = m.group(1)
        pieces = [line] if in_fence else CODE_SPAN.findall(line)
        cap = CAPTURE.match(line)
        if cap:
            pieces.append(cap.group(1))
        for piece in pieces:
            found += [("verb", v, o, n) for v, o in commands_in(piece)]
            found += [("magic", s, o, n) for s, o in magics_in(piece)]
            found += [("pytest", "pytest", o, n) for o in re.findall(r"(--torchdoctor[\w-]*)", piece)]
        if in_fence or not section_verb:
            continue
        # A verb's page: the spans of an option table's first cell, and `--options` in its prose.
        cells = line.split(" | ") if line.startswith("|") else [line]
        spans = CODE_SPAN.findall(cells[0]) if line.startswith("|") else CODE_SPAN.findall(line)
        for span in spans:
            first = span.split()[0] if span.split() else ""
            if "torchdoctor" in span or not first.startswith("-") or (page, first.split("=")[0]) in FOREIGN:
                continue
            found += [("page", section_verb, o, n) for o in option_name(first)]
    return found


def problems(pages=PAGES, read=None):
    opts, magic, pyt = verb_options(), magic_options(), pytest_options()
    bad = []
    for page in pages:
        text = read(page) if read else open(os.path.join(ROOT, page), encoding="utf-8").read()
        for kind, subject, option, n in documented(page, text):
            if kind in ("verb", "page") and option not in opts[subject]:
                bad.append("%s:%d: torchdoctor %s has no option %s" % (page, n, subject, option))
            elif kind == "magic" and option not in magic.get(subject, ()):
                bad.append("%s:%d: %%torchdoctor %s has no option %s" % (page, n, subject, option))
            elif kind == "pytest" and option not in pyt:
                bad.append("%s:%d: the pytest plugin has no option %s" % (page, n, option))
    return bad


def test_every_documented_option_exists():
    bad = problems()
    assert not bad, "documented options that do not exist:\n" + "\n".join(bad)


def test_the_docs_name_options_of_every_verb():
    """The parser sees the docs at all: each verb has options named somewhere."""
    seen = {}
    for page in PAGES:
        for kind, subject, option, _ in documented(page, open(os.path.join(ROOT, page), encoding="utf-8").read()):
            seen.setdefault(subject, set()).add(option)
    for verb in VERBS:
        assert seen.get(verb), "no option of torchdoctor %s is documented anywhere" % verb
    assert {"--torchdoctor", "--torchdoctor-report"} <= seen.get("pytest", set())
    assert "--python" in seen.get("check", set()) and "--no-redact" in seen.get("report", set())


@pytest.mark.parametrize("planted, says", [
    ("Run `torchdoctor check --bogus-flag`.", "torchdoctor check has no option --bogus-flag"),
    ("```sh\ntorchrun -m torchdoctor dist --pairs --no-such\n```", "torchdoctor dist has no option --no-such"),
    ("<!-- capture: torchdoctor lint --fixx -->\n```\n```", "torchdoctor lint has no option --fixx"),
    ("`%torchdoctor report --format json --outfile X`", "%torchdoctor report has no option --outfile"),
    ("`pytest --torchdoctor-reprot FILE`", "the pytest plugin has no option --torchdoctor-reprot"),
    ("| `--budgett SECONDS` | the budget |", "torchdoctor tune has no option --budgett"),
    ("## `torchdoctor diff`\n\n| `--every` | all facts |", "torchdoctor diff has no option --every"),
])
def test_a_planted_wrong_option_is_named(planted, says):
    page = "docs/report.md" if "diff" in planted else "docs/tune.md"
    bad = problems([page], read=lambda p: planted)
    assert any(says in b for b in bad), bad


def test_what_is_not_an_option_of_the_verb_is_left_alone():
    text = ("```sh\ntorchdoctor run --json 3 3>diag.json -- python train.py --epochs 3\n"
            "torchdoctor lint --format sarif -o x.sarif || true --not-ours\n"
            "pipx inject torchdoctor libcst --verbose\n```\n"
            "`torchdoctor check | head -1`, `pbpaste | torchdoctor triage -`\n")
    assert problems(["docs/index.md"], read=lambda p: text) == []
