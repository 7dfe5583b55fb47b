"""`torchdoctor dist` from its options to its exit status. Under a launcher (torchrun, srun,
env:// variables) this process is one rank (rank.py); with `--nproc-per-node` and no launcher
it starts `torchrun --standalone` itself (launch.py), forwarding the options every rank needs.
The CLI (cli/dist.py) reads the options into `Options` and calls `run`; bad input is
InputError, raised before anything starts."""

import os
import sys
from typing import List, Mapping, Optional

from ..common import InputError


def check_options(sizes: Optional[str], report: Optional[str], force: bool) -> None:
    """What can be refused before any rank starts: --sizes that do not parse, a --report
    name that cannot be written."""
    from . import bandwidth as B
    if sizes is not None:
        try:
            B.parse_sizes(sizes)
        except ValueError as e:
            raise InputError("--sizes: %s" % e)
    if report is not None:
        from ...userfiles import check_output
        try:
            check_output(report, force=force, what="--report")
        except ValueError as e:
            raise InputError(str(e))


def run(nproc: Optional[str], opts, environ: Mapping[str, str]) -> int:
    """One rank under a launcher (it ends the process itself), else torchrun with `nproc`
    ranks started here: -> the exit status."""
    from . import env as E
    try:
        job = E.detect(environ)
    except ValueError as e:
        raise InputError("the launcher's variables do not add up: %s" % e)
    if job is not None:
        if nproc is not None:
            raise InputError("--nproc-per-node starts torchrun itself; this process already is rank %d of %d "
                             "(leave the option out under a launcher)" % (job.rank, job.world_size))
        from .rank import Rank, leave
        leave(Rank(job, opts, dict(environ)).run())
    if nproc is None:
        raise InputError("not started by a launcher (no RANK/WORLD_SIZE, no srun step): run it under torchrun "
                         "(`torchrun --nproc-per-node 2 -m torchdoctor dist`), or give --nproc-per-node N to start "
                         "torchrun here")
    if not (str(nproc).isdigit() and int(nproc) >= 1) and nproc not in ("gpu", "auto", "cpu"):
        raise InputError("--nproc-per-node must be a positive number or 'gpu' (got %r)" % nproc)
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        raise InputError("torch is not installed in %s: torchdoctor dist runs torch.distributed" % sys.executable)
    from . import launch
    try:
        return launch.run(nproc, opts, forwarded(opts))
    except Exception as e:  # noqa: BLE001 - a bug of ours: one line, the traceback only on request
        if os.environ.get("TORCHDOCTOR_DEBUG"):
            import traceback
            traceback.print_exc()
        raise InputError("internal error while running torchrun: %s: %s (TORCHDOCTOR_DEBUG=1 shows the traceback)"
                         % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))


def forwarded(opts) -> List[str]:
    """The options every rank of a torchrun started here runs with (rank 0 of the launcher
    side prints the result, so the ranks never fail on findings)."""
    out = ["--backend", opts.backend, "--join-timeout", repr(opts.join_timeout), "--timeout", repr(opts.timeout),
           "--fail-on", "never"]
    if opts.sizes:
        out += ["--sizes", opts.sizes]
    if opts.iters:
        out += ["--iters", str(opts.iters)]
    if opts.warmup is not None:
        out += ["--warmup", str(opts.warmup)]
    for flag, on in (("--pairs", opts.pairs), ("--no-collectives", not opts.collectives),
                     ("--no-bandwidth", not opts.bandwidth)):
        if on:
            out.append(flag)
    return out
