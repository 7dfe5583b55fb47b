"""Run the tune worker in a child of the target interpreter, under the budget.

The child is started through the probe's launcher (so a too-old Python is reported,
not a SyntaxError) and timed.run (its own process group, killed at the deadline, output
kept in temporary files). timed.run blocks, so it runs on a thread while this one reads
the child's JSONL records as they arrive and drives the progress display.
"""

import json
import os
import sys
import tempfile
import threading
import time
from ...model.records import asdict, field, record
from typing import Any, Callable, Dict, List, Optional

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
POLL_S = 0.1
# What the child keeps back from the deadline for writing its last records and
# exiting: 5% of the budget, at least 0.3 s and at most 2 s.
RESERVE_FRACTION, RESERVE_MIN_S, RESERVE_MAX_S = 0.05, 0.3, 2.0


@record
class TuneOptions:
    python: Optional[str] = None
    model: Optional[str] = None
    inputs: Optional[str] = None
    input_shapes: List[List[int]] = field(default_factory=list)
    mode: str = "train"
    device: str = "auto"
    budget: float = 60.0
    tolerance: float = 1e-3
    workloads: Optional[List[str]] = None
    size: str = "auto"
    list_only: bool = False
    repro_runs: int = 2

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class RecordReader:
    """Reads the complete lines appended to a JSONL file since the last call."""

    def __init__(self, path: str):
        self.path, self.offset, self.partial = path, 0, b""

    def poll(self) -> List[Dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return []
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()  # an unfinished line (the writer was killed mid-write)
        out = []
        for line in lines:
            try:
                obj = json.loads(line.decode("ascii", "replace"))
            except ValueError:
                continue
            if isinstance(obj, dict) and "type" in obj:
                out.append(obj)
        return out


def cpu_info() -> Dict[str, Any]:
    """The CPU's name and the cores the child may use (from the probe's system facts):
    logical = its CPU affinity, physical = physical cores capped by it (a container
    limited to 4 CPUs of a 64-core host has 4)."""
    from ...gather import system
    try:
        facts = system.cpu_facts()
    except Exception:  # noqa: BLE001
        facts = {}

    def num(key):
        v = facts.get(key)
        return v if isinstance(v, int) and v > 0 else None
    logical = num("affinity_cores") or num("logical_cores") or os.cpu_count() or 1
    physical = min(num("physical_cores") or logical, logical)
    model = facts.get("model")
    return {"cores": {"physical": physical, "logical": logical},
            "name": model if isinstance(model, str) else None}


def run_child(opts: TuneOptions, on_record: Optional[Callable[[Dict[str, Any], float], None]] = None,
              on_tick: Optional[Callable[[float], None]] = None):
    """-> (records, timed.ProcResult, wall seconds). `on_record(rec, elapsed)` sees each
    record as it arrives, `on_tick(elapsed)` is called every POLL_S."""
    from ...gather.probe import LAUNCHER
    from ...children import timed
    python = opts.python or sys.executable
    t0 = time.monotonic()
    budget = float(opts.budget)
    reserve = min(RESERVE_MAX_S, max(RESERVE_MIN_S, RESERVE_FRACTION * budget))
    fd, out_path = tempfile.mkstemp(prefix="torchdoctor-tune-", suffix=".jsonl")
    os.close(fd)
    records: List[Dict[str, Any]] = []
    reader = RecordReader(out_path)
    box: Dict[str, Any] = {}
    try:
        cpu = cpu_info()
        timeout = max(0.1, budget - (time.monotonic() - t0))
        cfg = {"deadline": time.time() + timeout, "reserve": reserve, "budget": budget,
               "model": opts.model, "inputs": opts.inputs, "input_shapes": opts.input_shapes,
               "mode": opts.mode, "device": opts.device, "workloads": opts.workloads, "size": opts.size,
               "list_only": opts.list_only, "repro_runs": opts.repro_runs,
               "cores": cpu["cores"], "cpu_name": cpu["name"]}
        argv = [python, "-c", LAUNCHER, WORKER, out_path, json.dumps(cfg)]

        def target():
            try:
                res = timed.run(argv, timeout=timeout)
                res.extra["ended_at"] = time.time()
                box["result"] = res
            except BaseException as e:  # noqa: BLE001 - reported by the caller
                box["error"] = e
        th = threading.Thread(target=target, name="torchdoctor-tune-child", daemon=True)
        th.start()
        try:
            while th.is_alive():
                th.join(POLL_S)
                elapsed = time.monotonic() - t0
                for rec in reader.poll():
                    records.append(rec)
                    if on_record:
                        on_record(rec, elapsed)
                if on_tick:
                    on_tick(elapsed)
        except KeyboardInterrupt:
            # Ctrl-C reaches only this process (the child has its own session): stop the
            # child's group too, by the id it wrote first, rather than leave it measuring.
            records.extend(reader.poll())
            _stop(records)
            raise
        for rec in reader.poll():
            records.append(rec)
            if on_record:
                on_record(rec, time.monotonic() - t0)
    finally:
        try:
            os.unlink(out_path)
        except OSError:
            pass
    if "error" in box:
        raise box["error"]
    return records, box["result"], time.monotonic() - t0


def _stop(records: List[Dict[str, Any]]) -> None:
    pid = next((r.get("pid") for r in records if r.get("type") == "start"), None)
    if not isinstance(pid, int) or pid <= 1:
        return
    import signal
    try:
        if os.name == "posix":
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGTERM)
    except (OSError, ProcessLookupError):
        pass
