"""The scan of one file costs time linear in its size and memory that does not grow with it
(beyond one top-level statement's syntax tree), whatever shape the code has."""

import contextlib
import signal
import subprocess
import sys
import textwrap
import tracemalloc

import pytest

from torchdoctor.verbs.lint import pyscan
from torchdoctor.verbs.lint.lintfile import Settings, lint_python
from torchdoctor.verbs.lint.located import call
from torchdoctor.verbs.lint.pyevents import FileScan
from torchdoctor.verbs.lint.pyrecords import Event, Func, Pos
from torchdoctor.verbs.lint.rules import all_codes
from torchdoctor.verbs.lint.target import from_option

BLOCK = '''
def step_{i}(model, batch, q, k, v):
    """Seed and run block {i}."""
    torch.manual_seed({i})
    torch.set_deterministic(True)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        dev = "mps"
    for x in batch:
        torch.backends.cuda.matmul.allow_tf32 = True
        y = model(x).to(dev)
    with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    with open("results_{i}.csv", "w") as fh:
        fh.write(str(out.sum().item()))
    return y, out
'''


def generated(size):
    out, i = ["import torch\n"], 0
    while sum(map(len, out)) < size:
        out.append(BLOCK.format(i=i))
        i += 1
    return "".join(out).encode()


def settings(torch="2.4"):
    t = from_option(torch)
    return Settings(targets=list(t.versions), cuda=t.cuda, select=frozenset(all_codes()), want_fixes=True)


def peak_bytes(data):
    tracemalloc.start()
    try:
        res = lint_python("gen.py", settings(), data)
        return tracemalloc.get_traced_memory()[1], res
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_file():
    small, big = generated(100000), generated(400000)
    p_small, r_small = peak_bytes(small)
    p_big, r_big = peak_bytes(big)
    assert len(r_big.findings) > 3.5 * len(r_small.findings) > 0
    # the whole file's tree grows 4x with it; one top-level statement's tree at a time does not
    assert p_big < 1.6 * p_small, (p_small, p_big)


# A file whose findings sit on one long line (columns were sliced from the line per finding),
# and one with many imports, each checked against every other one by the submodule rule
# (TD103): (torch target, repeats, CPU seconds now, before). The quadratic versions ran past
# the test's minute.
SHAPES = {
    "one long line of findings": ("import torch\nx = [", "torch.backends.mps.is_available(), '\xe9', ", "]\n",
                                  "1.11", 80000),   # 5 s; 100 s
    "many distinct imports": ("import torch\n", "from torch import a{i}\ntorch.backends.opt_einsum.enabled\n", "",
                              "2.4", 30000),        # 2.3 s; 150 s
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_pathological_files_scan_in_linear_time(tmp_path, shape):
    head, body, tail, torch, n = SHAPES[shape]
    path = tmp_path / "shape.py"
    path.write_text(head + "".join(body.format(i=i) for i in range(n)) + tail, encoding="utf-8")
    code = textwrap.dedent("""\
        import sys
        from torchdoctor.verbs.lint.lintfile import Settings, lint_python
        from torchdoctor.verbs.lint.rules import all_codes
        from torchdoctor.verbs.lint.target import from_option
        res = lint_python(sys.argv[1], Settings(targets=list(from_option(sys.argv[2]).versions), cuda=None,
                                                select=frozenset(all_codes())))
        print(len(res.findings))
    """)
    p = subprocess.run([sys.executable, "-c", code, str(path), torch], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and int(p.stdout) == n, p.stderr


@contextlib.contextmanager
def _within(seconds):
    """Fails a test that runs past `seconds` (a quadratic rule would run for many minutes)."""
    if not hasattr(signal, "SIGALRM"):  # Windows: no alarm, the test still runs
        yield
        return

    def late(*_):
        raise TimeoutError("still running after %d s: not linear" % seconds)
    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _rules_over(events, targets=((2, 9),)):
    funcs = {}
    for e in events:
        e.func.events.append(e)
        funcs[id(e.func)] = e.func
    found = []
    with _within(60):  # about a second here
        scan = FileScan.of(events, list(funcs.values()), list(targets), None, False)
        for r in pyscan.FILE_RULES:
            found += call(r, scan)
    # TD307 reports each deterministic store (no use_deterministic_algorithms here): one per event
    return [(h.code, h.line) for h in found if h.code != "TD307"]


def _event(path, value, line, func, branch=()):
    return Event("store", path, value, Pos(line, 5), func, 0, tuple(branch), False)


N = 50000  # pairs of events: 2.5e9 pairs took over ten minutes when the rules tried each


def test_settings_rules_pair_events_in_linear_time():
    funcs = [Func("f%d" % i, "", True) for i in range(2 * N)]
    bench = [_event("torch.backends.cudnn.benchmark", True, i, funcs[i]) for i in range(N)]
    det = [_event("torch.backends.cudnn.deterministic", True, N + i, funcs[N + i]) for i in range(N)]
    assert _rules_over(bench + det) == []   # never in one function: no TD302
    same = funcs[-1]
    det.append(_event("torch.backends.cudnn.deterministic", True, 3 * N, same))
    bench.append(_event("torch.backends.cudnn.benchmark", True, 3 * N + 1, same))
    assert _rules_over(bench + det) == [("TD302", 3 * N + 1)]


def test_alternative_branches_are_paired_in_linear_time():
    f = Func("<module>", "", False)
    legacy = [_event("torch.backends.cuda.matmul.allow_tf32", True, i, f, [(0, "body"), (i + 1, "body")])
              for i in range(N)]
    new = [_event("torch.backends.cuda.matmul.fp32_precision", "tf32", N + i, f, [(0, "orelse"), (N + i + 1, "body")])
           for i in range(N)]
    hits = _rules_over(legacy + new)
    assert "TD202" not in {c for c, _ in hits} and len(hits) == N   # TD203 for each legacy store, no mix
    new.append(_event("torch.backends.cuda.matmul.fp32_precision", "tf32", 3 * N, f, [(0, "body")]))
    assert ("TD202", 3 * N) in _rules_over(legacy + new)


def test_cudnn_disabled_many_times_in_one_function_in_linear_time():
    f = Func("setup", "", True)
    stores = [_event("torch.backends.cudnn.enabled", False, i, f) for i in range(N)]
    assert _rules_over(stores) == []
    g = Func("seed_all", "", True)
    assert _rules_over([_event("torch.backends.cudnn.enabled", False, 1, g)]) == [("TD301", 1)]
