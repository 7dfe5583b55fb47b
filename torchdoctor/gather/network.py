"""Which TCP ports this machine listens on, and which process holds each: what decides
whether a rendezvous port that failed to bind is still taken, and by whom.

Gathered only when a tailoring hook asks (a lazy section of the facts): listing sockets
costs a scan of /proc, and reports that never needed it should not carry it.
"""

from typing import Any, Dict, List

from ..model.facts import failed

LISTEN = "LISTEN"


def listening_facts() -> Dict[str, Any]:
    """{"tcp": [{"port", "address", "pid", "process"}...]}: one row per listening socket (process:
    the program's name). pid and process are None where the system does not say (another user's process without root;
    macOS lists no sockets at all without root, which is a failed fact)."""
    try:
        import psutil
        conns = psutil.net_connections(kind="tcp")
    except (Exception, SystemExit) as e:  # noqa: BLE001 - psutil missing, or AccessDenied: a fact
        return {"tcp": failed("%s: %s" % (type(e).__name__, e))}
    rows: List[Dict[str, Any]] = []
    names: Dict[int, Any] = {}
    for c in conns:
        if c.status != LISTEN or not c.laddr:
            continue
        pid = c.pid
        if pid is not None and pid not in names:
            names[pid] = _process_name(pid)
        rows.append({"port": int(c.laddr.port), "address": str(c.laddr.ip), "pid": pid,
                     "process": names.get(pid) if pid is not None else None})
    rows.sort(key=lambda r: (r["port"], r["address"]))
    return {"tcp": rows}


def _process_name(pid: int) -> Any:
    """The program's name only: a command line can hold secrets, and these facts may end up in
    a report."""
    try:
        import psutil
        return psutil.Process(pid).name()
    except Exception:  # noqa: BLE001 - the process ended or is not ours to read
        return None
