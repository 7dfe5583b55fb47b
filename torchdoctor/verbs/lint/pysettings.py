"""The file-level settings rules, run over the events the Python walker recorded: TD202
and TD203 (legacy TF32 flags beside, or instead of, the fp32_precision API), TD301
(cudnn.enabled = False for reproducibility), TD302 (benchmark beside deterministic),
TD303 (deterministic algorithms with no CUBLAS_WORKSPACE_CONFIG), TD304 (benchmark set
per batch), TD305 (a seeding helper that turns benchmark on).
"""

import ast
import re
from typing import TYPE_CHECKING, Any

from . import rules as R
from .pyrecords import Event, Hit, const, truthy

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


def _exclusive(a: Event, b: Event) -> bool:
    da = dict(a.branch)
    return any(k in da and da[k] != v for k, v in b.branch)


def _call_flag(e: Event, index: int, name: str) -> Any:
    call = e.value
    if not isinstance(call, ast.Call):
        return ...
    for kw in call.keywords:
        if kw.arg == name:
            return const(kw.value)
    return const(call.args[index]) if len(call.args) > index else ...


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
                    stores.append(Event("store", "torch.backends.cudnn." + name, v, e.node, e.func, e.loop, e.branch, e.guarded))

    def flag(path, value):
        return [s for s in stores if s.path == path and truthy(s.value) is value]

    bench_on = flag("torch.backends.cudnn.benchmark", True)
    det_on = flag("torch.backends.cudnn.deterministic", True)
    # TD302: benchmark = True beside deterministic = True (same function, not alternatives)
    for b in bench_on:
        for d in det_on:
            if b.func is d.func and not _exclusive(b, d):
                later = b if (b.node.lineno, b.node.col_offset) > (d.node.lineno, d.node.col_offset) else d
                other = d if later is b else b
                an._hit("TD302", later.node, "cudnn.benchmark = True and cudnn.deterministic = True (line %d) in one "
                        "place: benchmark's autotuning picks algorithms by timing, so runs are not repeatable"
                        % other.node.lineno)
                break
        else:
            continue
        break
    # TD304: benchmark = True per batch / in a loop
    for b in bench_on:
        if b.loop or (b.func and b.func.node is not None and _PER_BATCH.search(b.func.name)):
            where = "inside a loop" if b.loop else "in %s(), which runs per batch" % b.func.name
            an._hit("TD304", b.node, "cudnn.benchmark = True set %s: it is a process-wide switch, set it once "
                    "before training" % where)
    # TD305: seeding helper that turns benchmark on
    for b in bench_on:
        f = b.func
        if f is not None and f.node is not None and f.claims_determinism():
            an._hit("TD305", b.node, "%s() is about seeding/determinism but sets cudnn.benchmark = True, which "
                    "makes convolution algorithm choice vary between runs" % f.name)
    # TD301: cudnn.enabled = False used for reproducibility
    for s in flag("torch.backends.cudnn.enabled", False):
        f = s.func
        ctx = f.claims_determinism() if f and f.node is not None else False
        if not ctx and f is not None:
            ctx = any((e.kind == "call" and e.path.rsplit(".", 1)[-1] in _SEEDING_CALLS) or
                      (e.kind == "store" and e.path == "torch.backends.cudnn.deterministic") for e in f.events)
        if ctx:
            an._hit("TD301", s.node, "cudnn.enabled = False does not make runs reproducible, it switches cuDNN off "
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
                an.hits.append(Hit("TD303", e.node.lineno, an._col(e.node.lineno, e.node.col_offset),
                                   "torch.use_deterministic_algorithms(True) with no CUBLAS_WORKSPACE_CONFIG in sight: "
                                   "on CUDA, torch %s raise%s for cuBLAS ops unless it is :4096:8 or :16:8"
                                   % (R.span(needs), "" if len(needs) > 1 else "s"), needs_absent="CUBLAS_WORKSPACE_CONFIG"))
    # TD202 / TD203: TF32 legacy flags and the fp32_precision API
    legacy = [e for e in ev if e.path in LEGACY_TF32 and e.kind in ("store", "load") and not e.guarded]
    new = [e for e in ev if e.path in NEW_TF32 and e.kind == "store" and not e.guarded]
    for n in new:
        mates = [l for l in legacy if not _exclusive(l, n)]
        if mates:
            l = mates[0]
            later = n if n.node.lineno >= l.node.lineno else l
            an._hit("TD202", later.node, "%s (line %d) and %s (line %d) in one file: torch warns or raises about "
                    "'a mix of the legacy and new APIs to set the TF32 flags'; use fp32_precision only"
                    % (l.path, l.node.lineno, n.path, n.node.lineno))
            break
    if an.targets and all(t >= (2, 9) for t in an.targets):
        for l in legacy:
            if l.kind == "store":
                an._hit("TD203", l.node, "%s is the legacy TF32 flag; every target release has %s" % (
                    l.path, "torch.backends.cuda.matmul.fp32_precision" if "matmul" in l.path
                    else "torch.backends.cudnn.conv/rnn.fp32_precision"))
