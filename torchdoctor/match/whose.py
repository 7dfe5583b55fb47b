"""Whose error a text is: PyTorch's, another framework's, or any program's.

The same CUDA, cuDNN, cuBLAS, compiler, loader and OpenMP messages come out of PyTorch,
TensorFlow, JAX, ONNX Runtime, CTranslate2, llama.cpp and plain CUDA C++ builds alike. What
tells them apart is around the message (kb/data/foreign.json):

* torch's own markers (its name, its C++ namespaces and mangled symbols, its CUDA error
  trailer): the text is PyTorch's;
* another framework's markers and none of torch's: that framework's error, which explain
  names instead of diagnosing; on a line that names a framework carrying torch's name
  (R's torch, Lua Torch7), "torch" is that framework's name, not PyTorch's;
* neither: whoever printed it. A matched line that holds a generic message (a `neutral`
  layer's wording) is then only a possible diagnosis, explained with the cause in words that
  hold for every program.
"""

from __future__ import annotations  # no typing generics built at import: explain's cold start

from functools import lru_cache
from typing import Optional, Tuple

from ..kb.errors import foreign_frameworks
from ..model.records import record


@record
class Layer:
    """Who prints a kind of generic message, and its cause for any program."""
    by: str
    cause: str
    wording: Tuple[str, ...]


@record
class Markers:
    own: Tuple[str, ...]
    foreign: Tuple[Tuple[str, str], ...]  # (marker, framework)
    namesakes: Tuple[Tuple[str, str], ...]  # (marker, framework named like torch)
    # Lines on which torch's name is not PyTorch's but which name no framework (R's load failure
    # of any package, which may be called like torch).
    lines: Tuple[str, ...]
    layers: Tuple[Layer, ...]
    # framework -> what its own traceback frames show (cv2/__init__.py): an entry that declares
    # the framework diagnoses its output only beside them, not beside a pip line naming it.
    frames: Tuple[Tuple[str, Tuple[str, ...]], ...]


@lru_cache(maxsize=1)
def markers() -> Markers:
    data = foreign_frameworks()
    return Markers(
        own=tuple(data["own"]),
        foreign=tuple((m, name) for name, ms in data["frameworks"].items() for m in ms),
        namesakes=tuple((m, name) for name, ms in data["namesakes"].items() for m in ms),
        lines=tuple(data.get("namesake_lines", ())),
        layers=tuple(Layer(by=n["by"], cause=n["cause"], wording=tuple(n["wording"])) for n in data["neutral"]),
        frames=tuple((name, tuple(fs)) for name, fs in data.get("frames", {}).items()),
    )


@lru_cache(maxsize=1)
def _frames_bytes() -> Tuple[Tuple[str, Tuple[bytes, ...]], ...]:
    return tuple((name, tuple(f.encode() for f in fs)) for name, fs in markers().frames)


def frames_in(text) -> set:
    """The frameworks whose own traceback frames `text` (str, or a log's bytes) shows."""
    frames = markers().frames if isinstance(text, str) else _frames_bytes()
    return {name for name, fs in frames if any(f in text for f in fs)}


@record
class Verdict:
    own: bool = False  # torch's own marker found
    other: Optional[str] = None  # the other framework whose marker decides, if any
    marker: str = ""  # that marker

    @property
    def foreign(self) -> bool:
        return self.other is not None


def first(text: str, pairs) -> Tuple[Optional[str], str]:
    for m, name in pairs:
        if m in text:
            return name, m
    return None, ""


def own_outside_namesakes(text, own, namesakes, lines=()) -> bool:
    """Whether torch's own marker is in `text` (str or bytes) on a line that names no
    framework carrying torch's name and holds none of `lines` (namesake_lines). Called only
    when such a name or line is in the text."""
    nl = "\n" if isinstance(text, str) else b"\n"
    return any(any(m in ln for m in own) for ln in text.split(nl)
               if not any(n in ln for n, _ in namesakes) and not any(x in ln for x in lines))


def by_line(text, namesake: Optional[str], lines) -> bool:
    """Whether torch's markers in `text` must be counted line by line: a namesake was found in
    it (`namesake`, from `first`) or it holds one of `lines`, so a line may carry torch's name
    as another's."""
    return namesake is not None or any(x in text for x in lines)


def judge(text: str) -> Verdict:
    """Whose error `text` is (see the module's doc)."""
    mk = markers()
    own = any(m in text for m in mk.own)
    name, marker = first(text, mk.namesakes)
    if own and by_line(text, name, mk.lines):
        own = own_outside_namesakes(text, mk.own, mk.namesakes, mk.lines)
    if not own and name is None:
        name, marker = first(text, mk.foreign)
    return Verdict(own=own, other=None if own else name, marker="" if own else marker)


def neutral_layer(line: str, anchor: str) -> Optional[Layer]:
    """The layer whose generic wording `line` holds where the pattern hit (its `anchor`
    overlaps that wording), if any. A line that also holds something specific (a torch
    kernel's assertion beside 'device-side assert triggered') is judged by what the
    pattern needed."""
    for layer in markers().layers:
        if any(w in line and _overlap(w, anchor) for w in layer.wording):
            return layer
    return None


def _overlap(a: str, b: str, n: int = 8) -> bool:
    """Whether `a` and `b` share a run of min(n, len(a), len(b)) characters."""
    if len(a) > len(b):
        a, b = b, a
    n = min(n, len(a))
    return n > 0 and any(a[i:i + n] in b for i in range(len(a) - n + 1))
