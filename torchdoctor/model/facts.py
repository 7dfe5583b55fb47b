"""The facts snapshot: what the probe saw, as one versioned, JSON-serialisable tree.

Every probed value is in one of three states, and the states never share a
representation (``None`` meaning "absent", "failed" and "unknown" at once is the
classic bug of ``collect_env``):

* present - the plain JSON value (which may itself be ``None``, ``False``, ``[]``);
* absent  - ``{"_absent": "why"}``: the thing does not exist here (no GPU, no
  ``torch.backends.mps`` in this torch version, an env var that is not set);
* failed  - ``{"_failed": "error"}``: we tried and the probe raised or timed out.

A path that is not in the tree at all is *unknown*: nobody looked (a triaged
paste that did not mention it, a probe that died before reaching it).
"""

import json
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

SCHEMA_VERSION = 1

PRESENT = "present"
ABSENT = "absent"
FAILED = "failed"
UNKNOWN = "unknown"

_ABSENT_KEY = "_absent"
_FAILED_KEY = "_failed"


def absent(reason: str = "") -> Dict[str, str]:
    return {_ABSENT_KEY: reason}


def failed(error: str = "") -> Dict[str, str]:
    return {_FAILED_KEY: error}


def state_of(node: Any) -> str:
    if isinstance(node, dict) and len(node) == 1:
        if _ABSENT_KEY in node:
            return ABSENT
        if _FAILED_KEY in node:
            return FAILED
    return PRESENT


class Facts:
    """A read-only view over the facts tree with dotted-path access (a gatherer builds the
    tree first; `with_values` gives a changed copy, never a change in place).

    ``facts.value("torch.cuda_version")`` returns the value when present and the
    default otherwise; ``facts.state(...)`` says which of the four states it is
    in and ``facts.reason(...)`` why, so a check never has to guess what a
    missing value means.
    """

    def __init__(self, data: Optional[Dict[str, Any]] = None,
                 loaders: Optional[Dict[str, Callable[[], Any]]] = None):
        self.data: Dict[str, Any] = data if data is not None else {}
        self.data.setdefault("schema_version", SCHEMA_VERSION)
        # Sections gathered only when first asked for (explain reads the
        # driver only if a tailoring hook needs it).
        self._loaders = dict(loaders or {})
        self._reads: Optional[List[str]] = None  # paths asked for while recording (evidence)

    # -- access ---------------------------------------------------------
    def _lookup(self, path: str) -> Tuple[bool, Any]:
        if self._reads is not None:
            self._reads.append(path)
        node: Any = self.data
        head = path.split(".", 1)[0]
        if head in self._loaders and head not in self.data:
            loader = self._loaders.pop(head)
            try:
                self.data[head] = loader()
            except Exception as e:  # noqa: BLE001 - a failed probe is a fact
                self.data[head] = failed("%s: %s" % (type(e).__name__, e))
        for part in path.split("."):
            if state_of(node) != PRESENT:
                # Asking below an absent/failed node inherits its state.
                return True, node
            if isinstance(node, dict):
                if part not in node:
                    return False, None
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return False, None
        return True, node

    def state(self, path: str) -> str:
        found, node = self._lookup(path)
        return state_of(node) if found else UNKNOWN

    def has(self, path: str) -> bool:
        return self.state(path) == PRESENT

    def value(self, path: str, default: Any = None) -> Any:
        found, node = self._lookup(path)
        if found and state_of(node) == PRESENT:
            return node
        return default

    def reason(self, path: str) -> str:
        found, node = self._lookup(path)
        if not found:
            return "not probed"
        st = state_of(node)
        if st == ABSENT:
            return node[_ABSENT_KEY]
        if st == FAILED:
            return node[_FAILED_KEY]
        return ""

    def describe(self, path: str) -> str:
        """The value for humans: the value, or 'absent (why)' / 'failed (why)'."""
        st = self.state(path)
        if st == PRESENT:
            v = self.value(path)
            if isinstance(v, bool):
                return "yes" if v else "no"
            if isinstance(v, list):
                return ", ".join(str(x) for x in v) if v else "none"
            return str(v)
        if st == UNKNOWN:
            return "unknown"
        why = self.reason(path)
        return "%s (%s)" % (st, why) if why else st

    # -- evidence ---------------------------------------------------------------
    def start_recording(self) -> None:
        """Note every path asked for from now on (a check's evidence is what it read)."""
        self._reads = []

    def stop_recording(self, limit: int = 8) -> List[str]:
        """'path: value' for the short facts read since start_recording, in the order asked."""
        reads, self._reads = self._reads or [], None
        out: List[str] = []
        seen = set()
        for path in reads:
            if path in seen:
                continue
            seen.add(path)
            found, node = self._lookup(path)
            if not found or (isinstance(node, (dict, list)) and state_of(node) == PRESENT):
                continue  # whole sections and lists are not evidence lines
            text = self.describe(path)
            if text.strip() and len(text) <= 160:  # an empty text shows nothing
                out.append("%s: %s" % (path, text))
            if len(out) >= limit:
                break
        return out

    # -- a changed copy -----------------------------------------------------
    def with_values(self, values: Mapping[str, Any]) -> "Facts":
        """A new Facts: this tree with each dotted path set to its value (a path through an
        absent, failed or missing node gets a section of its own). This one is left as it
        was: only the sections on the paths are copied, the rest is shared, and sections not
        loaded yet keep their loaders."""
        data = dict(self.data)
        for path, value in values.items():
            node = data
            parts = path.split(".")
            for part in parts[:-1]:
                nxt = node.get(part)
                nxt = dict(nxt) if isinstance(nxt, dict) and state_of(nxt) == PRESENT else {}
                node[part] = nxt
                node = nxt
            node[parts[-1]] = value
        return Facts(data, loaders={k: v for k, v in self._loaders.items() if k not in data})

    def section(self, name: str) -> Dict[str, Any]:
        v = self.value(name)
        return v if isinstance(v, dict) else {}

    def walk(self, prefix: str = "") -> Iterator[Tuple[str, Any]]:
        """(dotted path, node) for every leaf, absent or failed node."""

        def rec(node, path):
            if isinstance(node, dict) and state_of(node) == PRESENT and node:
                for k, v in node.items():
                    yield from rec(v, path + "." + k if path else k)
            else:
                yield path, node

        start = self.value(prefix) if prefix else self.data
        yield from rec(start, prefix)

    # -- serialisation ----------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return self.data

    def to_json(self, **kw) -> str:
        return json.dumps(self.data, sort_keys=False, default=str, **kw)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Facts":
        if not isinstance(data, dict):
            raise ValueError("facts must be a JSON object")
        version = data.get("schema_version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise ValueError(
                "facts have schema_version %r; this torchdoctor reads %d" % (version, SCHEMA_VERSION)
            )
        return cls(json.loads(json.dumps(data)))

    def __repr__(self) -> str:
        return "Facts(%d sections)" % len(self.data)
