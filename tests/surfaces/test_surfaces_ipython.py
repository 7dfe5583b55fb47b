"""The IPython extension for real: an `ipython` run of a .ipy script, an nbclient execution
of a small notebook in a real kernel, and the HTML renderer's structure and escaping."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import make_facts, needs_torch, run_notebook

IPY = textwrap.dedent('''
    import sys
    ip = get_ipython()
    def previous(self, etype, value, tb, tb_offset=None):
        print("PREVIOUS HANDLER", etype.__name__, value)
    ip.set_custom_exc((KeyError,), previous)
    %load_ext torchdoctor
    %load_ext torchdoctor
    import torch
    torch.use_deterministic_algorithms(True)
    r = ip.run_cell("torch.zeros(2).cuda()")
    print("CELL ERROR", type(r.error_in_exec).__name__)
    v = ip.run_line_magic("torchdoctor", "explain")
    print("LAST", [x.id for x in v.explanations])
    r = ip.run_cell("assert 1 == 2, 'plain'")
    print("PLAIN", type(r.error_in_exec).__name__)
    r = ip.run_cell("raise KeyError('operator torchvision::nms does not exist')")
    v = ip.run_line_magic("torchdoctor", "explain RuntimeError: operator torchvision::nms does not exist")
    print("TEXT", [x.id for x in v.explanations], "%pip install" in v._repr_html_())
    try:
        ip.run_line_magic("torchdoctor", "frobnicate")
    except Exception as e:
        print("USAGE", type(e).__name__)
    %unload_ext torchdoctor
    print("UNLOADED", ip.custom_exceptions == (KeyError,))
    r = ip.run_cell("raise RuntimeError('Torch not compiled with CUDA enabled')")
    print("END")
''')


def _ipython(tmp_path, body):
    p = tmp_path / "session.ipy"
    p.write_text(body)
    env = dict(os.environ, IPYTHONDIR=str(tmp_path / "ipythondir"))
    return subprocess.run([sys.executable, "-m", "IPython", "--no-banner", "--colors=nocolor", "--quick", str(p)],
                          capture_output=True, timeout=180, env=env, stdin=subprocess.DEVNULL, cwd=str(tmp_path))


@needs_torch
def test_ipy_script(tmp_path):
    pytest.importorskip("IPython", reason="IPython is in the test extra (pip install -e '.[test]')")
    r = _ipython(tmp_path, IPY)
    out = r.stdout.decode() + r.stderr.decode()
    assert "CELL ERROR AssertionError" in out, out
    # the normal traceback, then the diagnosis under it, with the session's live settings
    tb = out.index("AssertionError: Torch not compiled with CUDA enabled")
    diag = out.index("\u2500\u2500\u2500 torchdoctor", tb)
    assert diag < out.index("CELL ERROR")
    assert "[torch-not-compiled-with-cuda, cpu-only-build]" in out[diag:]
    assert "deterministic algorithms on" in out[diag:]
    assert "LAST ['torch-not-compiled-with-cuda']" in out
    plain = out[out.index("LAST"):out.index("PLAIN")]
    assert "AssertionError: plain" in plain and "torchdoctor" not in plain
    # the handler that was there still handles its exceptions, and we add the diagnosis
    keyerr = out[out.index("PLAIN"):out.index("TEXT")]
    assert "PREVIOUS HANDLER KeyError" in keyerr and "torchvision-operator-does-not-exist" in keyerr
    assert "TEXT ['torchvision-operator-does-not-exist'] False" in out  # terminal IPython is no kernel: no %pip
    assert "USAGE UsageError" in out
    assert "UNLOADED True" in out
    after = out[out.index("UNLOADED"):]
    assert "Torch not compiled with CUDA enabled" not in after or "torchdoctor" not in after


@needs_torch
def test_notebook_in_a_real_kernel(tmp_path, monkeypatch):
    nb = run_notebook((
        "%load_ext torchdoctor",
        "import torch\ntorch.use_deterministic_algorithms(True)",
        "raise RuntimeError('operator torchvision::nms does not exist')",
        "%torchdoctor check",
        "%%torchdoctor report --format markdown -o %s" % (tmp_path / "nb-report.md"),
    ), tmp_path, monkeypatch)
    err_cell = nb.cells[2].outputs
    assert err_cell[0]["output_type"] == "error" and err_cell[0]["ename"] == "RuntimeError"
    shown = [o for o in err_cell if o["output_type"] == "display_data"]
    assert len(shown) == 1
    html = shown[0]["data"]["text/html"]
    assert "torchvision-operator-does-not-exist" in html and "%pip install --no-deps torchvision==" in html
    assert "text/markdown" in shown[0]["data"] and "text/plain" in shown[0]["data"]
    check = nb.cells[3].outputs[0]["data"]["text/html"]
    # the kernel's own setting, which a fresh probe process cannot see
    assert 'data-severity="info"' in check and "deterministic-algorithms" in check
    md = (tmp_path / "nb-report.md").read_text()
    assert md.startswith("## torchdoctor report") and "deterministic" in md
    shown = "".join(o.get("text", "") + json.dumps(o.get("data", {})) for o in nb.cells[4].outputs)
    assert "wrote %s" % (tmp_path / "nb-report.md") in shown and "## torchdoctor report" not in shown, shown


def test_html_structure_and_escaping():
    from torchdoctor.model.findings import Finding, Fix
    from torchdoctor.render.html import render_check_html, render_explain_html
    from torchdoctor.model.report import Report
    evil = "<script>alert('x')</script>"
    f = Finding(id="x-id", category="config", severity="error", title="bad " + evil, detail="d " + evil,
                fix=Fix(summary="s " + evil, commands=["pip install '%s'" % evil]),
                links=["https://example.org/?a=<b>", "javascript:alert(1)"])
    facts = make_facts(python={"version": evil, "implementation": "CPython"}, env={"X": evil})
    out = render_check_html(Report(facts, [f]))
    assert "<script" not in out and "&lt;script&gt;" in out
    assert 'data-severity="error"' in out and "#c62828" in out  # severity colour
    assert "<pre" in out and "pip install" in out  # the fix as a code block
    assert "<details>" in out  # details collapsed
    assert 'href="javascript' not in out and 'href="https://example.org/?a=&lt;b&gt;"' in out
    d = {"id": "e", "category": "c", "title": evil, "cause": evil, "matched_text": evil, "line": 1, "count": 1,
         "fix": {"summary": evil, "commands": [evil]}, "links": [], "facts_used": [evil]}
    out = render_explain_html([d], live=evil)
    assert "<script" not in out and out.count("&lt;script&gt;") == 7  # title, line, cause, fix, command, why, live
    assert render_explain_html([]) .startswith("<div")


GUEST = textwrap.dedent(r'''
    import subprocess
    ip = get_ipython()
    %load_ext torchdoctor
    x = !echo shell escape
    print("BANG", list(x))
    obj = 3
    obj?
    r = ip.run_cell("raise RuntimeError('Torch not compiled with CUDA enabled')")
    print("CELL", type(r.error_in_exec).__name__)
    def refuse(*a, **k):
        raise SystemExit("a process was started behind the notebook's back")
    subprocess.Popen = refuse
    r = ip.run_cell("raise RuntimeError('Torch not compiled with CUDA enabled')")
    print("PATCHED CELL", type(r.error_in_exec).__name__)
    # an error pasted after `explain` is read as it is: an apostrophe, quotes kept
    v = ip.run_line_magic("torchdoctor", "explain RuntimeError: CUDA error: an illegal memory access was encountered. Don't sync")
    print("APOSTROPHE", [x.id for x in v.explanations])
    v = ip.run_line_magic("torchdoctor", "explain ImportError: cannot import name '_C' from partially initialized module 'torch'")
    print("QUOTES", [x.id for x in v.explanations])
    print("END")
''')


@needs_torch
def test_a_good_guest_in_an_ipython_session(tmp_path):
    pytest.importorskip("IPython", reason="IPython is in the test extra (pip install -e '.[test]')")
    # The session's folder is on sys.path (''): what lies there is the user's, not the doctor's to import.
    (tmp_path / "packaging.py").write_text("import sys\nsys.stderr.write('PLANTED packaging\\n')\n")
    (tmp_path / "psutil.py").write_text("import sys\nsys.stderr.write('PLANTED psutil\\n')\n")
    bin_dir = tmp_path / "bin"  # an nvcc, so that the diagnosis starts a process
    bin_dir.mkdir()
    (bin_dir / "nvcc").write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    (bin_dir / "nvcc").chmod(0o755)
    p = tmp_path / "session.ipy"
    p.write_text(GUEST)
    env = dict(os.environ, IPYTHONDIR=str(tmp_path / "ipythondir"),
               PATH=str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    r = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", "--colors=nocolor", "--quick", str(p)],
                       capture_output=True, timeout=180, env=env, stdin=subprocess.DEVNULL, cwd=str(tmp_path))
    out = r.stdout.decode() + r.stderr.decode()
    assert "END" in out, out[-3000:]
    assert "PLANTED" not in out and "diagnosis failed" not in out and "tailoring skipped" not in out, out[-3000:]
    assert "BANG ['shell escape']" in out and "Docstring:" in out  # `x = !cmd` and `obj?` as without us
    assert "CELL RuntimeError" in out and "PATCHED CELL RuntimeError" in out
    assert out.count("[torch-not-compiled-with-cuda, cpu-only-build]") == 2, out[-3000:]
    assert "APOSTROPHE ['cuda-illegal-memory-access']" in out, out[-3000:]
    assert "QUOTES ['torch-partially-initialized-circular-import']" in out, out[-3000:]
