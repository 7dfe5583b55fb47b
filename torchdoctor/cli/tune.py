"""The `torchdoctor tune` command: its options, each checked as click reads it; the verb is
verbs/tune/verb.py. Importing this module costs click only: everything else loads when the
command runs."""

import math
import os
import re
import sys

import click

from .common import InputError
from .options import positive

WORKLOADS = ("convnet", "attention", "matmul", "lstm")
SPEC_RE = re.compile(r"^[^:\s][^:]*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
REPORT_SUFFIXES = (".md", ".markdown", ".html", ".htm")


def _spec(ctx, param, value):
    if value is None:
        return value
    # A Windows drive letter (C:\m.py:make) has a colon too: split at the last one.
    if not SPEC_RE.match(value) and not re.match(r"^[A-Za-z]:[\\/].+:[A-Za-z_][\w.]*$", value):
        raise InputError("%s %r: give MODULE:CALLABLE (a module name or a .py path, a colon, a function or class "
                         "name), e.g. mymodels.py:make_model" % (param.opts[0], value))
    return value


def _shapes(ctx, param, values):
    out = []
    for v in values or ():
        # Every part a size: "8,3," or "8,,3" is a typo, not a 2-d shape.
        parts = v.replace("x", ",").split(",")
        dims = [int(x) for x in parts if x.strip().isdecimal()]
        if len(dims) != len(parts) or not all(dims):
            raise InputError("--input-shape %r: give positive sizes separated by commas, e.g. 8,3,224,224" % v)
        out.append(dims)
    return out


def _tolerance(ctx, param, value):
    if value is not None and not (value >= 0 and math.isfinite(value)):
        raise InputError("--tolerance must be a relative error of 0 or more, e.g. 1e-3")
    return value


def _reports(ctx, param, values):
    for v in values or ():
        if not v.lower().endswith(REPORT_SUFFIXES):
            raise InputError("--report %s: the name must end in .md (Markdown for an issue) or .html "
                             "(a page with the chart)" % v)
        if os.path.isdir(v):
            raise InputError("--report %s is a directory; give a file name" % v)
        parent = os.path.dirname(os.path.abspath(v))
        if not os.path.isdir(parent):
            raise InputError("--report %s: the folder %s does not exist" % (v, parent))
    return list(values or ())


@click.command("tune")
@click.option("--python", "python", metavar="PATH", help="Interpreter whose torch to tune (default: this one).")
@click.option("--model", metavar="MODULE:CALLABLE", callback=_spec,
              help="Your model: a function or class that returns an nn.Module (MODULE a module name or a .py path).")
@click.option("--inputs", metavar="MODULE:CALLABLE", callback=_spec,
              help="Returns the model's input: a tensor, a tuple of arguments or a dict of keyword arguments.")
@click.option("--input-shape", "input_shapes", multiple=True, metavar="8,3,224,224", callback=_shapes,
              help="A random float32 input of this shape (repeat for more positional inputs).")
@click.option("--mode", type=click.Choice(["train", "infer"]), default="train", show_default=True,
              help="train: forward and backward; infer: forward under no_grad (and inference_mode on the CPU).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda", "mps"]), default="auto", show_default=True,
              help="auto: CUDA if available, else MPS, else the CPU.")
@click.option("--budget", type=float, default=60.0, show_default=True, callback=positive, metavar="SECONDS",
              help="Wall time for the whole run, torch start-up included; what is measured by then is kept.")
@click.option("--tolerance", type=float, default=1e-3, show_default=True, callback=_tolerance,
              help="Largest acceptable drift (relative to the largest value) from the strict float32 baseline.")
@click.option("--workload", "workloads", multiple=True, type=click.Choice(WORKLOADS),
              help="Built-in workloads to run (repeatable; default: all four). Ignored with --model.")
@click.option("--size", type=click.Choice(["auto", "tiny", "small", "large"]), default="auto", show_default=True,
              help="Size of the built-in workloads (auto: from the device and the budget).")
@click.option("--list-settings", "list_only", is_flag=True,
              help="Show which settings apply to this device, build and model, and measure nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (schema_version 1, see README).")
@click.option("--report", "reports", multiple=True, metavar="FILE.md|FILE.html", callback=_reports,
              help="Also write a report: .md (Markdown for an issue) or .html (self-contained page with the chart). "
                   "Repeatable. Redacted like `torchdoctor report`.")
@click.option("--no-redact", is_flag=True, help="Write --report files without redaction.")
@click.option("--force", is_flag=True, help="With --report: replace a symbolic link (not its target), or write into a "
                                            "pipe or device.")
@click.option("--from", "from_json", metavar="RESULT.json", help="Render a saved --json result instead of measuring.")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on a TTY, unless NO_COLOR).")
def tune(python, model, inputs, input_shapes, mode, device, budget, tolerance, workloads, size, list_only, as_json,
         reports, no_redact, force, from_json, color):
    """Measure what torch.backends settings do here, and recommend settings.

    Runs the built-in workloads (or your --model) in a child of the target interpreter,
    times every setting that applies to the device and build interleaved with the
    others, checks its drift against a strict float32 baseline and whether two seeded
    runs are bitwise equal, and prints a table and the settings to use, with the numbers.

    Exit status: 0 measured, 1 the model raised, hung or crashed, or nothing was measured
    (a finding says why), 2 usage or input error.
    """
    from ..verbs.tune import api, verb
    try:
        result = verb.tune(python, model, inputs, input_shapes, mode, device, budget, tolerance, workloads, size,
                           list_only, reports, no_redact, force, from_json)
        if as_json:
            api.echo(api.to_json(result))
        else:
            from ..render.style import Style
            from ..verbs.tune.render import render_list, render_text
            style = Style.for_stream(sys.stdout, color=color)
            api.echo(render_list(result, style) if result["options"].get("list_only") else render_text(result, style))
    except api.UsageError as e:
        raise InputError(str(e))
    sys.exit(api.exit_code(result))
