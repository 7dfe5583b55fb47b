"""`torchdoctor dist`: the click command. Under a launcher (torchrun, srun, env://
variables) this process is one rank; with `--nproc-per-node G` and no launcher it starts
torchrun --standalone itself. Nothing heavy is imported until the command runs."""

import os
import sys

import click

from .common import InputError
from .options import FAIL_ON, positive


def _usage(msg: str):
    return InputError(msg)


@click.command("dist", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--nproc-per-node", "nproc", metavar="N|gpu",
              help="Without a launcher: start `torchrun --standalone` with N ranks on this machine ('gpu': one per GPU).")
@click.option("--backend", type=click.Choice(["auto", "nccl", "gloo"]), default="auto", show_default=True,
              help="Backend for the collectives: NCCL when every rank has a CUDA device, else gloo.")
@click.option("--join-timeout", type=float, default=60.0, show_default=True, callback=positive, metavar="SECONDS",
              help="How long rank 0 waits for every rank to join before naming the missing ones.")
@click.option("--timeout", type=float, default=120.0, show_default=True, callback=positive, metavar="SECONDS",
              help="Time limit of every later step (the probe, process-group init, each collective).")
@click.option("--sizes", metavar="LIST", help="Message sizes of the bandwidth sweep (default 1M,16M,256M,1G on NCCL, "
                                              "64K,1M,8M on gloo).")
@click.option("--iters", type=int, callback=positive, metavar="N",
              help="Timed iterations per size (default 20 on NCCL, 5 on gloo).")
@click.option("--warmup", type=click.IntRange(min=0), metavar="N", help="Untimed iterations before them.")
@click.option("--pairs", is_flag=True, help="Also measure every node pair (one node: every rank pair).")
@click.option("--no-collectives", is_flag=True, help="Only join, gather and compare the ranks' facts.")
@click.option("--no-bandwidth", is_flag=True, help="Check the collectives, skip the bandwidth sweep.")
@click.option("--json", "as_json", is_flag=True, help="Print the job result as JSON (schema_version 1).")
@click.option("--report", "report", metavar="FILE", help="Also write a Markdown report for an issue (redacted).")
@click.option("--no-redact", is_flag=True, help="Keep host names and addresses in the --report file.")
@click.option("--force", is_flag=True, help="With --report: replace a symbolic link (not its target), or write into a "
                                            "pipe or device.")
@click.option("--fail-on", type=FAIL_ON, default="error", show_default=True,
              help="Exit 1 when a finding reaches this severity.")
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
def dist(nproc, backend, join_timeout, timeout, sizes, iters, warmup, pairs, no_collectives, no_bandwidth, as_json,
         report, no_redact, force, fail_on, color):
    """Doctor a distributed job: run on every rank (torchrun ... -m torchdoctor dist).

    Every rank joins through the rendezvous store, sends its redacted facts to rank 0,
    which names the facts that differ between ranks and nodes; then the collectives run
    on known values (results verified exactly) and a bandwidth sweep reports algbw and
    busbw as nccl-tests defines them. Rank 0 prints the result for the whole job.
    """
    from ..verbs.dist import bandwidth as B
    from ..verbs.dist import env as E
    from ..verbs.dist.common import Options
    if sizes is not None:
        try:
            B.parse_sizes(sizes)
        except ValueError as e:
            raise _usage("--sizes: %s" % e)
    if report is not None:
        from ..userfiles import check_output
        try:
            check_output(report, force=force, what="--report")
        except ValueError as e:
            raise _usage(str(e))
    opts = Options(backend=backend, join_timeout=join_timeout, timeout=timeout, sizes=sizes, iters=iters,
                   warmup=warmup, pairs=pairs, collectives=not no_collectives, bandwidth=not no_bandwidth,
                   fail_on=fail_on, as_json=as_json, report=report, no_redact=no_redact, force=force, color=color)
    try:
        job = E.detect(os.environ)
    except ValueError as e:
        raise _usage("the launcher's variables do not add up: %s" % e)
    if job is not None:
        if nproc is not None:
            raise _usage("--nproc-per-node starts torchrun itself; this process already is rank %d of %d "
                         "(leave the option out under a launcher)" % (job.rank, job.world_size))
        from ..verbs.dist.rank import Rank, leave
        leave(Rank(job, opts, dict(os.environ)).run())
    if nproc is None:
        raise _usage("not started by a launcher (no RANK/WORLD_SIZE, no srun step): run it under torchrun "
                     "(`torchrun --nproc-per-node 2 -m torchdoctor dist`), or give --nproc-per-node N to start "
                     "torchrun here")
    if not (str(nproc).isdigit() and int(nproc) >= 1) and nproc not in ("gpu", "auto", "cpu"):
        raise _usage("--nproc-per-node must be a positive number or 'gpu' (got %r)" % nproc)
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        raise _usage("torch is not installed in %s: torchdoctor dist runs torch.distributed" % sys.executable)
    forward = ["--backend", backend, "--join-timeout", repr(join_timeout), "--timeout", repr(timeout),
               "--fail-on", "never"]
    if sizes:
        forward += ["--sizes", sizes]
    if iters:
        forward += ["--iters", str(iters)]
    if warmup is not None:
        forward += ["--warmup", str(warmup)]
    for flag, on in (("--pairs", pairs), ("--no-collectives", no_collectives), ("--no-bandwidth", no_bandwidth)):
        if on:
            forward.append(flag)
    from ..verbs.dist import launch
    try:
        code = launch.run(nproc, opts, forward)
    except Exception as e:  # noqa: BLE001 - a bug of ours: one line, the traceback only on request
        if os.environ.get("TORCHDOCTOR_DEBUG"):
            import traceback
            traceback.print_exc()
        raise _usage("internal error while running torchrun: %s: %s (TORCHDOCTOR_DEBUG=1 shows the traceback)"
                     % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    sys.exit(code)
