"""The file-level settings rules, run over the events the Python walker recorded: TD202
and TD203 (legacy TF32 flags beside, or instead of, the fp32_precision API), TD301
(cudnn.enabled = False for reproducibility), TD302 (benchmark beside deterministic),
TD303 (deterministic algorithms with no CUBLAS_WORKSPACE_CONFIG), TD304 (benchmark set
per batch), TD305 (a seeding helper that turns benchmark on).

Each rule costs time linear in the number of events: the rules that pair two kinds of
settings find a pair through Paths, not by trying every pair (a generated file with 10^4
of each took minutes).
"""

import re
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

from . import rules as R
from .pyrecords import CallArgs, Event, Hit, truthy

if TYPE_CHECKING:
    from .pyscan import Analyzer

_PER_BATCH = re.compile(r"(?i)^(forward|training_step|train_step|validation_step|test_step|predict_step|step|"
                        r"__call__|train_one_epoch|train_epoch|run_epoch|run_batch|on_train_batch_start)$|_step$|batch")
_SEEDING_CALLS = ("manual_seed", "manual_seed_all", "seed", "use_deterministic_algorithms", "set_deterministic",
                  "seed_everything", "set_seed")

LEGACY_TF32 = ("torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32", "torch.backends.mkldnn.allow_tf32")
NEW_TF32 = ("torch.backends.fp32_precision", "torch.backends.cuda.matmul.fp32_precision",
            "torch.backends.cudnn.fp32_precision", "torch.backends.cudnn.conv.fp32_precision",
            "torch.backends.cudnn.rnn.fp32_precision", "torch.backends.mkldnn.fp32_precision",
            "torch.backends.mkldnn.matmul.fp32_precision", "torch.backends.mkldnn.conv.fp32_precision",
            "torch.backends.mkldnn.rnn.fp32_precision")


def reads(kind: str, path: str) -> bool:
    """Whether these rules read an event of this kind and torch path: the walker records only
    those (every torch load and call would make the events grow with the file's size)."""
    if kind == "store":
        return True
    if kind == "call":
        return path in ("torch.backends.cudnn.flags", "torch.use_deterministic_algorithms") or \
            path.rsplit(".", 1)[-1] in _SEEDING_CALLS
    return path in LEGACY_TF32


def _exclusive(a: Event, b: Event) -> bool:
    """In different branches of one if/while/try: they never run together."""
    da = dict(a.branch)
    return any(k in da and da[k] != v for k, v in b.branch)


class Paths:
    """The branch paths of some events, as a trie, to tell in time linear in one path's length
    whether any of these events may run together with another (not _exclusive). A path lists
    the branch points above an event, outermost first; two events that share a branch point
    share every one above it too, so the first place where their paths differ decides: the
    same point with another label excludes, another point or the end of either path does not."""

    def __init__(self, events: List[Event]):
        self.root = self._node()
        for e in events:
            node = self.root
            for step in e.branch:
                node[2].add(step[0])
                node = node[1].setdefault(step, self._node())
            node[0] = True

    @staticmethod
    def _node() -> list:
        return [False, {}, set()]   # an event's path ends here; children by (point, label); their points

    def any_together(self, branch: Tuple[Tuple[int, str], ...]) -> bool:
        node = self.root
        for point, label in branch:
            ends, kids, points = node
            if ends or len(points) > 1 or (points and point not in points):
                return True
            node = kids.get((point, label))
            if node is None:
                return False   # only other branches of this point
        return node[0] or bool(node[1])


def _first_together(e: Event, others: List[Event], paths: Paths):
    """The first of `others` that may run together with `e`, or None."""
    if not paths.any_together(e.branch):
        return None
    return next(o for o in others if not _exclusive(e, o))


def _call_flag(e: Event, index: int, name: str) -> Any:
    return e.value.flag(index, name) if isinstance(e.value, CallArgs) else ...


def settings_rules(an: "Analyzer", text_has_cublas: bool) -> None:
    """TD202, TD203, TD301-TD305 from the recorded events."""
    ev = an.events
    stores = [e for e in ev if e.kind == "store"]
    calls = [e for e in ev if e.kind == "call"]
    # cudnn.flags(benchmark=..., deterministic=..., enabled=...) counts as setting them
    for e in calls:
        if e.path == "torch.backends.cudnn.flags":
            for i, name in enumerate(("enabled", "benchmark", "deterministic")):
                v = _call_flag(e, i, name)
                if v is not ...:
                    stores.append(Event("store", "torch.backends.cudnn." + name, v, e.pos, e.func, e.loop, e.branch, e.guarded))

    def flag(path, value):
        return [s for s in stores if s.path == path and truthy(s.value) is value]

    bench_on = flag("torch.backends.cudnn.benchmark", True)
    det_on = flag("torch.backends.cudnn.deterministic", True)
    # TD302: benchmark = True beside deterministic = True (same function, not alternatives)
    det_in: Dict[int, List[Event]] = {}
    for d in det_on:
        det_in.setdefault(id(d.func), []).append(d)
    det_paths = {f: Paths(ds) for f, ds in det_in.items()}
    for b in bench_on:
        d = _first_together(b, det_in[id(b.func)], det_paths[id(b.func)]) if id(b.func) in det_in else None
        if d is not None:
            later = b if (b.pos.line, b.pos.col) > (d.pos.line, d.pos.col) else d
            other = d if later is b else b
            an._hit("TD302", later.pos, "cudnn.benchmark = True and cudnn.deterministic = True (line %d) in one "
                    "place: benchmark's autotuning picks algorithms by timing, so runs are not repeatable"
                    % other.pos.line)
            break
    # TD304: benchmark = True per batch / in a loop
    for b in bench_on:
        if b.loop or (b.func and b.func.is_def and _PER_BATCH.search(b.func.name)):
            where = "inside a loop" if b.loop else "in %s(), which runs per batch" % b.func.name
            an._hit("TD304", b.pos, "cudnn.benchmark = True set %s: it is a process-wide switch, set it once "
                    "before training" % where)
    # TD305: seeding helper that turns benchmark on
    for b in bench_on:
        f = b.func
        if f is not None and f.is_def and f.claims_determinism():
            an._hit("TD305", b.pos, "%s() is about seeding/determinism but sets cudnn.benchmark = True, which "
                    "makes convolution algorithm choice vary between runs" % f.name)
    # TD301: cudnn.enabled = False used for reproducibility
    seeding: Dict[int, bool] = {}   # per function: once, however many stores it has
    for s in flag("torch.backends.cudnn.enabled", False):
        f = s.func
        ctx = f.claims_determinism() if f and f.is_def else False
        if not ctx and f is not None:
            if id(f) not in seeding:
                seeding[id(f)] = any((e.kind == "call" and e.path.rsplit(".", 1)[-1] in _SEEDING_CALLS) or
                                     (e.kind == "store" and e.path == "torch.backends.cudnn.deterministic")
                                     for e in f.events)
            ctx = seeding[id(f)]
        if ctx:
            an._hit("TD301", s.pos, "cudnn.enabled = False does not make runs reproducible, it switches cuDNN off "
                    "(slow fallbacks); set cudnn.deterministic = True, cudnn.benchmark = False and "
                    "torch.use_deterministic_algorithms(True) instead")
    # TD303: deterministic algorithms without CUBLAS_WORKSPACE_CONFIG on a CUDA target <= 2.9
    if an.target_cuda is not False and not text_has_cublas:
        from ...kb import compat
        needs = [t for t in an.targets if compat.cublas_env_required(R.fmt(t))]
        if needs:
            for e in calls:
                if e.path != "torch.use_deterministic_algorithms":
                    continue
                if truthy(_call_flag(e, 0, "mode")) is not True or truthy(_call_flag(e, 1, "warn_only")) is True:
                    continue
                an.hits.append(Hit("TD303", e.pos.line, e.pos.col,
                                   "torch.use_deterministic_algorithms(True) with no CUBLAS_WORKSPACE_CONFIG in sight: "
                                   "on CUDA, torch %s raise%s for cuBLAS ops unless it is :4096:8 or :16:8"
                                   % (R.span(needs), "" if len(needs) > 1 else "s"), needs_absent="CUBLAS_WORKSPACE_CONFIG"))
    # TD202 / TD203: TF32 legacy flags and the fp32_precision API
    legacy = [e for e in ev if e.path in LEGACY_TF32 and e.kind in ("store", "load") and not e.guarded]
    new = [e for e in ev if e.path in NEW_TF32 and e.kind == "store" and not e.guarded]
    legacy_paths = Paths(legacy)
    for n in new:
        l = _first_together(n, legacy, legacy_paths)
        if l is not None:
            later = n if n.pos.line >= l.pos.line else l
            an._hit("TD202", later.pos, "%s (line %d) and %s (line %d) in one file: torch warns or raises about "
                    "'a mix of the legacy and new APIs to set the TF32 flags'; use fp32_precision only"
                    % (l.path, l.pos.line, n.path, n.pos.line))
            break
    if an.targets and all(t >= (2, 9) for t in an.targets):
        for l in legacy:
            if l.kind == "store":
                an._hit("TD203", l.pos, "%s is the legacy TF32 flag; every target release has %s" % (
                    l.path, "torch.backends.cuda.matmul.fp32_precision" if "matmul" in l.path
                    else "torch.backends.cudnn.conv/rnn.fp32_precision"))
