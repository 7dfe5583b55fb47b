"""The facts a paste's fields are written into, with where each one came from."""

from typing import Any, Dict, List

from ...model.facts import SCHEMA_VERSION


class FactsBuilder:
    """The facts dict, written path by path (``os.system``), and where each value came from."""

    def __init__(self):
        self.data: Dict[str, Any] = {"schema_version": SCHEMA_VERSION, "source": "collect_env paste"}
        self.provenance: Dict[str, str] = {}
        self.notes: List[str] = []

    def set(self, path: str, value: Any, why: str = "") -> None:
        node = self.data
        parts = path.split(".")
        for p in parts[:-1]:
            nxt = node.get(p)
            if not isinstance(nxt, dict) or set(nxt) <= {"_absent", "_failed"} and nxt:
                nxt = {}
                node[p] = nxt
            node = nxt
        node[parts[-1]] = value
        if why:
            self.provenance[path] = why

    def get(self, path: str, default: Any = None) -> Any:
        node: Any = self.data
        for p in path.split("."):
            if not isinstance(node, dict) or p not in node:
                return default
            node = node[p]
        return node

    def has(self, path: str) -> bool:
        return self.get(path, _MISSING) is not _MISSING


_MISSING = object()
