"""`torchdoctor tune` from its options to the result document: the --report names checked
before anything is measured, a saved result (--from) or a run in a child of the target
interpreter (api.run), and the --report files written. The CLI (cli/tune.py) validates each
option, calls `tune` and prints the result; bad input is InputError, or api.UsageError from
what api.py reads and writes."""

import os
import sys
from typing import Any, Dict, List, Optional, Sequence

from ..common import InputError


def tune(python: Optional[str] = None, model: Optional[str] = None, inputs: Optional[str] = None,
         input_shapes: Sequence[List[int]] = (), mode: str = "train", device: str = "auto", budget: float = 60.0,
         tolerance: float = 1e-3, workloads: Sequence[str] = (), size: str = "auto", list_only: bool = False,
         reports: Sequence[str] = (), no_redact: bool = False, force: bool = False,
         from_json: Optional[str] = None, progress_to=None) -> Dict[str, Any]:
    """The result (schema_version 1) measured here, or read from `from_json`; progress goes
    to `progress_to` (default: stderr) while measuring."""
    from . import api
    from ...userfiles import check_output
    for path in reports:  # before measuring: a link or device there is refused now, not after minutes
        try:
            check_output(path, force=force, what="--report")
        except ValueError as e:
            raise InputError(str(e))
    if from_json is not None:  # `--from ""` is an error, not "measure"
        result = api.load_result(from_json)
    else:
        _check_model(model, inputs, input_shapes)
        if python:
            from ...gather.interpreter import resolve
            python = resolve(python).python
        from .progress import Progress
        from .runner import TuneOptions
        opts = TuneOptions(python=python, model=model, inputs=inputs, input_shapes=list(input_shapes), mode=mode,
                           device=device, budget=budget, tolerance=tolerance, workloads=list(workloads) or None,
                           size=size, list_only=list_only)
        progress = Progress(progress_to or sys.stderr, budget)
        try:
            result = api.run(opts, progress=progress)
        finally:
            progress.close()
        usage = api.usage_error(result)
        if usage:
            raise InputError(usage)
    for path in reports:
        api.write_report(result, path, redact=not no_redact, force=force)
    return result


def _check_model(model: Optional[str], inputs: Optional[str], input_shapes: Sequence[List[int]]) -> None:
    """--model, --inputs and --input-shape go together: a model and one way to its input."""
    if model and not (inputs or input_shapes):
        raise InputError("--model needs its input: --inputs MODULE:CALLABLE or --input-shape 8,3,224,224")
    if inputs and input_shapes:
        raise InputError("give --inputs or --input-shape, not both")
    if (inputs or input_shapes) and not model:
        raise InputError("--inputs and --input-shape describe the input of --model; give --model too")
    for opt, spec in (("--model", model), ("--inputs", inputs)):
        path = (spec or "").rpartition(":")[0]
        if path.endswith(".py") and not os.path.isfile(path):
            raise InputError("%s %s: no such file %s" % (opt, spec, path))
