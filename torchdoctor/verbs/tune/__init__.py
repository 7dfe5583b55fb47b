"""torchdoctor tune: measure what torch.backends settings do on this machine and model,
and recommend settings with the numbers.

The measuring happens in worker.py, run in a child of the target interpreter (it imports
torch); runner.py starts it under the budget, analysis.py turns its records into the
result (schema_version 1) with numbers.py (statistics, verdicts, drift), recommend.py (the
advice per workload) and run_findings.py (the findings of the run), render.py / html.py
print it; verb.py goes from the command's options to the result. Nothing heavy loads on
import.
"""

__all__ = ["run", "TuneOptions"]


def __getattr__(name):
    if name == "run":
        from .api import run
        return run
    if name == "TuneOptions":
        from .runner import TuneOptions
        return TuneOptions
    raise AttributeError("module 'torchdoctor.verbs.tune' has no attribute %r" % name)
