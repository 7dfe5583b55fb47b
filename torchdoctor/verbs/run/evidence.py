"""What `torchdoctor run` keeps of the output it passes on: the last TAIL bytes, and the
log scan of every byte (one logscan.LogScan per channel, so that no line spans two).

The scan runs in a thread of its own: the native engine's pass over a chunk (most of the
scan's time) releases the GIL, so the output moves on while earlier chunks are scanned.
At most BACKLOG chunks wait; beyond that the reader waits for the scan, so memory stays
bounded and no byte goes unscanned. A scan that fails is recorded in `error` and stops;
the output never depends on it.
"""

from collections import deque
from typing import Any, Dict, Iterable, Optional

TAIL = 64 * 1024
BACKLOG = 8  # chunks read and not yet scanned


class Tail:
    def __init__(self, limit: int):
        self.limit, self.parts, self.size = limit, deque(), 0

    def add(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)
        while self.size - len(self.parts[0]) >= self.limit:
            self.size -= len(self.parts.popleft())

    def value(self) -> bytes:
        return b"".join(self.parts)[-self.limit:]


class Evidence:
    def __init__(self, scan: bool = True, tail: int = TAIL):
        self.scan = scan
        self.tail = Tail(tail)
        self.error: Optional[str] = None
        self.scanners: Dict[str, Any] = {}
        self.queue: Any = None
        self.thread: Any = None

    def _failed(self, e: Exception) -> None:
        self.error = "%s: %s" % (type(e).__name__, e)

    def start(self, channels: Iterable[str]) -> None:
        """Load the knowledge base while the program starts up, not on its first output."""
        if not self.scan:
            return
        import queue
        import threading
        try:
            from ...match.logscan import LogScan
            for name in channels:
                self.scanners[name] = LogScan()
        except Exception as e:  # noqa: BLE001 - the output matters more than the scan
            self._failed(e)
        self.queue = queue.Queue(BACKLOG)
        self.thread = threading.Thread(target=self._work, name="torchdoctor-scan", daemon=True)
        self.thread.start()

    def add(self, channel: str, data: bytes) -> None:
        self.tail.add(data)
        if self.queue is not None:
            self.queue.put((channel, data))

    def _work(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            if self.error is not None:
                continue  # keep taking chunks: the reader must never wait on a scan that stopped
            channel, data = item
            try:
                if channel not in self.scanners:
                    from ...match.logscan import LogScan
                    self.scanners[channel] = LogScan()
                self.scanners[channel].feed(data)
            except Exception as e:  # noqa: BLE001
                self._failed(e)

    def close(self) -> None:
        """Once every chunk added has been scanned."""
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join()
            self.thread = None

    def matches(self) -> list:
        """The known errors of all channels, best first (after close())."""
        if not self.scan or self.error is not None:
            return []
        try:
            from ...match.confidence import mark_notices
            from ...match.matcher import rank
            best: Dict[str, Any] = {}
            for scanner in self.scanners.values():
                for m in scanner.close():
                    have = best.get(m.id)
                    if have is None or m.score > have.score:
                        if have is not None:
                            m.count += have.count
                        best[m.id] = m
                    else:
                        have.count += m.count
            # A notice on one stream beside a failure on another (a warning on stdout, the
            # traceback on stderr) is not that failure's cause either.
            mark_notices(best.values(), [f for scanner in self.scanners.values()
                                         for f in scanner.collector.context.failures])
            return rank(list(best.values()))
        except Exception as e:  # noqa: BLE001
            self._failed(e)
            return []
