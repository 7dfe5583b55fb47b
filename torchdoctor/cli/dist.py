"""`torchdoctor dist`: the click command, over verbs/dist/verb.py. Under a launcher (torchrun,
srun, env:// variables) this process is one rank; with `--nproc-per-node G` and no launcher
it starts torchrun --standalone itself. Nothing heavy is imported until the command runs."""

import os
import sys

import click

from .options import FAIL_ON, positive


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
    from ..verbs.dist import verb
    from ..verbs.dist.common import Options
    verb.check_options(sizes, report, force)
    opts = Options(backend=backend, join_timeout=join_timeout, timeout=timeout, sizes=sizes, iters=iters,
                   warmup=warmup, pairs=pairs, collectives=not no_collectives, bandwidth=not no_bandwidth,
                   fail_on=fail_on, as_json=as_json, report=report, no_redact=no_redact, force=force, color=color)
    sys.exit(verb.run(nproc, opts, os.environ))
