"""What the file-level rules (the settings rules, rules/td2xx and td3xx) read: the events the
Python walker recorded, as one FileScan, and the questions they share about them (which
settings were stored with which value, which events may run together).

Each rule costs time linear in the number of events: the rules that pair two kinds of
settings find a pair through Paths, not by trying every pair (a generated file with 10^4
of each took minutes).
"""

import re
from typing import Any, FrozenSet, List, Optional, Tuple

from ...model.records import field, record
from .pyrecords import CallArgs, Event, Func, truthy

PER_BATCH = re.compile(r"(?i)^(forward|training_step|train_step|validation_step|test_step|predict_step|step|"
                        r"__call__|train_one_epoch|train_epoch|run_epoch|run_batch|on_train_batch_start)$|_step$|batch")
SEEDING_CALLS = ("manual_seed", "manual_seed_all", "seed", "use_deterministic_algorithms", "set_deterministic",
                  "seed_everything", "set_seed")

DATALOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
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
        return path in ("torch.backends.cudnn.flags", "torch.use_deterministic_algorithms",
                        "torch.set_float32_matmul_precision") or path in DATALOADERS or path.rsplit(".", 1)[-1] in SEEDING_CALLS
    return path in LEGACY_TF32


def exclusive(a: Event, b: Event) -> bool:
    """In different branches of one if/while/try: they never run together."""
    da = dict(a.branch)
    return any(k in da and da[k] != v for k, v in b.branch)


class Paths:
    """The branch paths of some events, as a trie, to tell in time linear in one path's length
    whether any of these events may run together with another (not exclusive). A path lists
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


def first_together(e: Event, others: List[Event], paths: Paths):
    """The first of `others` that may run together with `e`, or None."""
    if not paths.any_together(e.branch):
        return None
    return next(o for o in others if not exclusive(e, o))


def call_flag(e: Event, index: int, name: str) -> Any:
    return e.value.flag(index, name) if isinstance(e.value, CallArgs) else ...




@record
class FileScan:
    """The subject of the file-level rules: what the walker recorded of one file."""
    events: List[Event]
    funcs: List[Func]
    targets: List[Tuple[int, int]]
    target_cuda: Optional[bool]
    text_has_cublas: bool = False
    comment_claims: FrozenSet[int] = frozenset()   # lines whose comment names determinism
    stores: List[Event] = field(default_factory=list)   # cudnn.flags(...) calls count as stores
    calls: List[Event] = field(default_factory=list)

    @classmethod
    def of(cls, events: List[Event], funcs: List[Func], targets, target_cuda, text_has_cublas: bool,
           comment_claims: FrozenSet[int] = frozenset()) -> "FileScan":
        scan = cls(events, funcs, targets, target_cuda, text_has_cublas, comment_claims)
        scan.stores = [e for e in events if e.kind == "store"]
        scan.calls = [e for e in events if e.kind == "call"]
        # cudnn.flags(benchmark=..., deterministic=..., enabled=...) counts as setting them;
        # None there means "leave it as it is" (set_flags skips it), not a value
        for e in scan.calls:
            if e.path == "torch.backends.cudnn.flags":
                for i, name in enumerate(("enabled", "benchmark", "deterministic")):
                    v = call_flag(e, i, name)
                    if v is not ... and v is not None:
                        scan.stores.append(Event("store", "torch.backends.cudnn." + name, v, e.pos, e.func, e.loop,
                                                 e.branch, e.guarded, e.claimed))
        return scan

    def claimed(self, e: Event) -> bool:
        """Whether the code around `e` presents it as about determinism: a comment on its line or
        the two above, an if-test naming it, or its function's name or docstring."""
        return e.claimed or any(n in self.comment_claims for n in (e.pos.line, e.pos.line - 1, e.pos.line - 2)) or \
            bool(e.func and e.func.is_def and e.func.claims_determinism())

    def flag(self, path: str, value: bool) -> List[Event]:
        """The stores of `path` whose literal value is truthy (`value`) or falsy."""
        return [s for s in self.stores if s.path == path and truthy(s.value) is value]
