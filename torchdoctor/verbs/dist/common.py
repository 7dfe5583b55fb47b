"""What the rank program, rank 0's coordinator and the self-launcher share: the options,
the time constants, where a self-launched rank 0 writes its result."""

import json
import os
from typing import Any, Dict, List

from . import bandwidth as B

RESULT_ENV = "TORCHDOCTOR_DIST_RESULT"      # self-launch: rank 0 writes the job here instead of printing
SLACK = 5.0                                 # beyond a step's own deadline, for rank 0's word to arrive
STALE_S = 10.0                              # a heartbeat that stands still this long means the rank is gone
GLOO_SIZES = "64K,1M,8M"
NCCL_SIZES = "1M,16M,256M,1G"


class Options:
    def __init__(self, **kw):
        self.backend = kw.get("backend", "auto")
        self.join_timeout = float(kw.get("join_timeout", 60.0))
        self.timeout = float(kw.get("timeout", 120.0))
        self.sizes = kw.get("sizes")               # None: by backend
        self.iters = kw.get("iters")                # None: by backend
        self.warmup = kw.get("warmup")
        self.pairs = bool(kw.get("pairs", False))
        self.collectives = bool(kw.get("collectives", True))
        self.bandwidth = bool(kw.get("bandwidth", True))
        self.fail_on = kw.get("fail_on", "error")
        self.as_json = bool(kw.get("as_json", False))
        self.report = kw.get("report")
        self.no_redact = bool(kw.get("no_redact", False))
        self.force = bool(kw.get("force", False))  # --report may replace a link / write into a pipe
        self.color = kw.get("color")

    def to_dict(self) -> Dict[str, Any]:
        return {"backend": self.backend, "join_timeout": self.join_timeout, "timeout": self.timeout,
                "sizes": self.sizes, "iters": self.iters, "warmup": self.warmup, "pairs": self.pairs,
                "collectives": self.collectives, "bandwidth": self.bandwidth}


def write_result(path: str, job: Dict[str, Any]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(job, fh, default=str)
    os.replace(tmp, path)


def default_sizes(backend: str) -> List[int]:
    return B.parse_sizes(NCCL_SIZES if backend == "nccl" else GLOO_SIZES)
