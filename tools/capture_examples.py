#!/usr/bin/env python3
"""Re-capture every example output of README.md and docs/ by running its command.

    python tools/capture_examples.py                      # builds a venv with torch 2.13.0 (CPU), then runs all
    python tools/capture_examples.py --venv .venv          # a venv that has torch and torchdoctor already
    python tools/capture_examples.py --venv .venv docs/lint.md   # one page
    python tools/capture_examples.py --list                # what is marked, without running anything

A page marks what the tool maintains with HTML comments (invisible on GitHub, PyPI and the site):

    <!-- capture: torchdoctor explain --no-env "RuntimeError: ..." -->
    ```
    (rewritten: "$ COMMAND", then what the command printed, stdout and stderr as a terminal shows them)
    ```

    <!-- capture head=12 tail=8 status: torchdoctor run -- python train.py -->
        flags before the colon: head=N / tail=N keep the first / last N lines (a "..." line
        between), lines=1-3,7-9,-2 keeps those lines (1-based; -N: the last N; "..." in gaps), status appends "$ echo $?" and the exit status, noprompt leaves the "$ COMMAND"
        line out, stdout drops stderr, traceback allows a Python traceback in the output (the
        program's own, for run and the hook), expect=N[,N] the exit statuses that are right
        (default 0,1: anything else is a broken example and stops the tool), checkout runs the
        command in this checkout instead of the page's folder (a maintainer tool's example)

    <!-- file: train.py -->
    ```python
    (written as the file train.py into the page's folder before the commands after it run)
    ```

    <!-- copy: tests/fixtures/collect_env/some.txt issue-1234.txt -->
        (a file of this repository copied into the page's folder under another name)

    <!-- generate: torchdoctor lint --list-rules --format github -->
    (everything up to the closing marker is replaced by the command's standard output, as is)
    <!-- /generate -->

Each page runs in a fresh folder, its markers in order, with the venv's bin first on PATH
(`python` and `torchdoctor` are the venv's), VIRTUAL_ENV set to it, an empty HOME, NO_COLOR=1
and no PYTHONPATH. Outputs are redacted of this machine before they are written: the venv, the
page's folder, the checkout, the home folder, the user and host names become /home/me/... and
"host", so a capture made on any machine reads the same. A maintainer tool: not part of the
test run (tests/test_docs_capture.py tests the tool itself on a small page).
"""

import argparse
import getpass
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
# What the venv this tool builds holds: the CPU torch the test extra pins, and what the
# examples of the hook, the pytest plugin, IPython and the MCP server run.
VENV_PACKAGES = ["torch==2.13.0", "numpy", "pytest", "ipython", "mcp; python_version >= '3.10'"]
SHOWN_PROJECT = "/home/me/project"
SHOWN_VENV = SHOWN_PROJECT + "/.venv"
SHOWN_HOME = "/home/me"
TIMEOUT = 600

MARKER = re.compile(r"^<!-- (capture|file|copy|generate)([^:]*): (.*?) -->\s*$")
END_GENERATE = "<!-- /generate -->"
FENCE = re.compile(r"^(`{3,})")
LINES_ITEM = re.compile(r"^(?:(\d+)(-(\d*))?|-(\d+))$")
KNOWN_FLAGS = {"head", "tail", "lines", "status", "noprompt", "stdout", "traceback", "expect", "checkout"}


class ExampleError(Exception):
    """A marked example that is malformed or whose command did not do what it should."""


def parse_flags(text: str, where: str) -> Dict[str, str]:
    """The flags of a marker, checked before anything runs."""
    flags = {}
    for word in text.split():
        key, _, value = word.partition("=")
        if key not in KNOWN_FLAGS:
            raise ExampleError("%s: unknown flag %r (known: %s)" % (where, key, ", ".join(sorted(KNOWN_FLAGS))))
        flags[key] = value
    for key in ("head", "tail"):
        if key in flags and not flags[key].isdigit():
            raise ExampleError("%s: %s= needs a number" % (where, key))
    if "expect" in flags and not re.match(r"^\d+(,\d+)*$", flags["expect"]):
        raise ExampleError("%s: expect= needs exit statuses, comma-separated" % where)
    bad = [i for i in flags.get("lines", "").split(",") if "lines" in flags and not LINES_ITEM.match(i)]
    if bad:
        raise ExampleError("%s: bad lines= item %r (N, A-B, A- or -N)" % (where, bad[0]))
    return flags


def fence_end(lines: List[str], start: int, where: str) -> int:
    """The index of the closing fence of the fenced block opening at lines[start]."""
    m = FENCE.match(lines[start]) if start < len(lines) else None
    if not m:
        raise ExampleError("%s: a fenced block must follow the marker on the next line" % where)
    for i in range(start + 1, len(lines)):
        if lines[i].rstrip() == m.group(1):
            return i
    raise ExampleError("%s: the fenced block is not closed" % where)


def examples(text: str, page: str) -> List[Tuple[str, str, Dict[str, str], int]]:
    """(kind, argument, flags, line number) of every marker of a page, in order."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        m = MARKER.match(line)
        if m:
            kind, flags, arg = m.groups()
            out.append((kind, arg, parse_flags(flags, "%s:%d" % (page, n)), n))
    return out


class Redactor:
    """This machine's paths and names as the docs show them."""

    def __init__(self, venv: str, project: str, extra: Optional[Dict[str, str]] = None):
        pairs = {}
        for real, shown in [(venv, SHOWN_VENV), (project, SHOWN_PROJECT), (ROOT, SHOWN_HOME + "/torchdoctor"),
                            (os.path.expanduser("~"), SHOWN_HOME)] + list((extra or {}).items()):
            for path in {real, os.path.realpath(real)}:
                if path and path != "/" and path not in pairs:
                    pairs[path] = shown
        # longest first, so a venv inside the project is not half-replaced by the project
        self.paths = sorted(pairs.items(), key=lambda kv: -len(kv[0]))
        user = getpass.getuser()
        self.user = re.compile(r"(?<=/home/)%s(?=/|\b)|(?<=/Users/)%s(?=/|\b)" % (re.escape(user), re.escape(user)))
        host = socket.gethostname().split(".")[0]
        self.host = re.compile(r"\b%s\b" % re.escape(host)) if len(host) >= 3 and host not in ("localhost",) else None

    def __call__(self, text: str) -> str:
        for real, shown in self.paths:
            text = re.sub(re.escape(real) + r"(?![\w.-])", shown, text)
        text = self.user.sub("me", text)
        if self.host:
            text = self.host.sub("host", text)
        return text


def command_env(venv: str, home: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONHOME", "COLUMNS",
                        "FORCE_COLOR", "CLICOLOR_FORCE", "PYTHONSTARTUP") and not k.startswith("TORCHDOCTOR_")}
    bindir = os.path.join(venv, "Scripts" if os.name == "nt" else "bin")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not os.path.exists(os.path.join(p, "activate"))]
    env.update(PATH=os.pathsep.join([bindir] + path), VIRTUAL_ENV=venv, HOME=home, NO_COLOR="1", TERM="dumb",
               LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONDONTWRITEBYTECODE="1", PAGER="cat")
    return env


def pick(lines: List[str], spec: str, where: str) -> List[str]:
    """The lines a `lines=` spec keeps, in order, with "..." where lines are left out."""
    keep = set()
    for item in spec.split(","):
        m = LINES_ITEM.match(item)
        if not m:
            raise ExampleError("%s: bad lines= item %r (N, A-B, A- or -N)" % (where, item))
        if m.group(4):
            keep.update(range(max(0, len(lines) - int(m.group(4))), len(lines)))
        else:
            end = len(lines) if m.group(2) and not m.group(3) else int(m.group(3) or m.group(1))
            keep.update(range(int(m.group(1)) - 1, min(end, len(lines))))
    out, last = [], -1
    for i in sorted(keep):
        if i != last + 1:
            out.append("...")
        out.append(lines[i])
        last = i
    if last != len(lines) - 1:
        out.append("...")
    return out


def trim(lines: List[str], flags: Dict[str, str]) -> List[str]:
    head = int(flags["head"]) if flags.get("head") else None
    tail = int(flags["tail"]) if flags.get("tail") else None
    if head is None and tail is None or len(lines) <= (head or 0) + (tail or 0):
        return lines
    return (lines[:head] if head else []) + ["..."] + (lines[-tail:] if tail else [])


def run_capture(cmd: str, flags: Dict[str, str], cwd: str, env: Dict[str, str], redact: Redactor,
                where: str) -> List[str]:
    p = subprocess.run(["bash", "-c", cmd], cwd=ROOT if "checkout" in flags else cwd, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL if "stdout" in flags else subprocess.STDOUT, timeout=TIMEOUT)
    out = p.stdout.decode("utf-8", "replace")
    expect = [int(x) for x in flags["expect"].split(",")] if flags.get("expect") else [0, 1]
    if p.returncode not in expect:
        raise ExampleError("%s: `%s` exited with %d (expected %s):\n%s"
                           % (where, cmd, p.returncode, expect, out[-3000:]))
    if "Traceback (most recent call last)" in out and "traceback" not in flags:
        raise ExampleError("%s: `%s` printed a traceback (flag `traceback` if that is the example):\n%s"
                           % (where, cmd, out[-3000:]))
    lines = redact(out).rstrip("\n").split("\n") if out.strip() else []
    lines = pick(lines, flags["lines"], where) if flags.get("lines") else trim(lines, flags)
    lines = [line.rstrip() for line in lines]
    shown = [] if "noprompt" in flags else ["$ " + cmd]
    shown += lines
    if "status" in flags:
        shown += ["$ echo $?", str(p.returncode)]
    return shown


def run_generate(cmd: str, cwd: str, env: Dict[str, str], redact: Redactor, where: str) -> List[str]:
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    if p.returncode != 0:
        raise ExampleError("%s: `%s` exited with %d:\n%s" % (where, cmd, p.returncode, p.stderr.decode()[-3000:]))
    return redact(p.stdout.decode("utf-8", "replace")).rstrip("\n").split("\n")


def process_page(page: str, venv: str, workdir: str, dry: bool = False) -> int:
    """Rewrite one page in place; the number of blocks rewritten."""
    path = page if os.path.isabs(page) else os.path.join(ROOT, page)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    examples(text, page)  # a malformed marker stops the page before any command runs
    lines = text.split("\n")
    project = os.path.join(workdir, "project")
    home = os.path.join(workdir, "home")
    for d in (project, home):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    env = command_env(venv, home)
    redact = Redactor(venv, project, {home: SHOWN_HOME})
    out: List[str] = []
    i, done = 0, 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        out.append(line)
        i += 1
        if not m:
            continue
        kind, flag_text, arg = m.groups()
        where = "%s:%d" % (page, i)
        flags = parse_flags(flag_text, where)
        if kind == "copy":
            src, _, name = arg.partition(" ")
            if not name.strip():
                raise ExampleError("%s: copy needs a source and a name" % where)
            shutil.copy(os.path.join(ROOT, src), os.path.join(project, name.strip()))
            continue
        if kind == "generate":
            end = next((j for j in range(i, len(lines)) if lines[j].strip() == END_GENERATE), None)
            if end is None:
                raise ExampleError("%s: no %s after the marker" % (where, END_GENERATE))
            body = lines[i:end] if dry else run_generate(arg, project, env, redact, where)
            out.extend(body)
            i, done = end, done + 1
            continue
        end = fence_end(lines, i, where)
        if kind == "file":
            target = os.path.join(project, arg)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines[i + 1:end]) + "\n")
            out.extend(lines[i:end + 1])
        else:
            body = lines[i + 1:end] if dry else run_capture(arg, flags, project, env, redact, where)
            out.append(lines[i])
            out.extend(body)
            out.append(lines[end])
            done += 1
        i = end + 1
    if not dry:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(out))
    return done


def build_venv(workdir: str) -> str:
    """A venv with the CPU torch and a normal (non-editable) install of this checkout."""
    venv = os.path.join(workdir, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    subprocess.run([py, "-m", "pip", "install", "-q"] + VENV_PACKAGES, check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", ROOT], check=True)
    return venv


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pages", nargs="*", help="pages to re-capture (default: README.md and docs/*.md)")
    ap.add_argument("--venv", help="a venv with torch 2.13.0 and torchdoctor installed (default: build one)")
    ap.add_argument("--workdir", help="where the pages' commands run (default: a temporary folder)")
    ap.add_argument("--list", action="store_true", help="list the marked examples and run nothing")
    args = ap.parse_args(argv)
    pages = args.pages or PAGES
    if args.list:
        for page in pages:
            with open(os.path.join(ROOT, page), encoding="utf-8") as fh:
                for kind, arg, flags, n in examples(fh.read(), page):
                    print("%s:%d: %s%s: %s" % (page, n, kind, "".join(" " + k + ("=" + v if v else "")
                                                                        for k, v in flags.items()), arg))
        return 0
    workdir = args.workdir or tempfile.mkdtemp(prefix="td-examples-")
    try:
        venv = os.path.abspath(args.venv) if args.venv else build_venv(workdir)
        if not os.path.exists(os.path.join(venv, "bin", "torchdoctor")):
            print("capture_examples: %s has no bin/torchdoctor (install this checkout into it)" % venv,
                  file=sys.stderr)
            return 2
        total = 0
        for page in pages:
            n = process_page(page, venv, workdir)
            print("%s: %d example(s) captured" % (page, n))
            total += n
        print("%d example(s) in %d page(s)" % (total, len(pages)))
        return 0
    except ExampleError as e:
        print("capture_examples: %s" % e, file=sys.stderr)
        return 1
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
