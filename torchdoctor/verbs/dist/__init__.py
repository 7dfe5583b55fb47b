"""`torchdoctor dist`: the multi-rank doctor, run on every rank of a torch.distributed job.

Layers, each in its own module:

* ``env``         - which launcher started this process (torchrun, srun, plain env vars), pure;
* ``jobfacts``    - the job's facts as rank 0 assembles them, and how ranks and nodes are named;
* ``conditions``  - every diagnosis of the job: pure functions job facts -> findings, one
                    module per family of conditions (a package);
* ``summary``     - one rank's compact, redacted facts (the probe's, plus what a job needs);
* ``topology``    - NVLink/PCIe/NIC facts of a node and the bandwidth they should reach;
* ``bandwidth``   - nccl-tests' algbw/busbw definitions, message sizes;
* ``store``       - the rendezvous store (c10d TCPStore): join, heartbeat, facts, step results;
* ``collectives`` - the process group and the collective checks (torch imported here only);
* ``rank``        - the program each rank runs; ``launch`` - `--nproc-per-node` without a launcher,
                    through ``loopback`` (torchrun with its stores on 127.0.0.1 only);
* ``render``      - text, Markdown and JSON of a job result; ``verb`` - from the command's
                    options to the exit status (the click command is cli/dist.py).

Importing this package imports nothing heavy: torch is imported by ``rank`` and
``collectives`` only, inside the ranks.
"""
