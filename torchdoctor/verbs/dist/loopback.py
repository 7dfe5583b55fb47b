"""torchrun, for `torchdoctor dist --nproc-per-node`, with its stores listening on the
loopback interface only: `python -m torchdoctor.verbs.dist.loopback TORCHRUN-ARGS...`.

torch's TCPStore server listens on every interface whatever host it is given (its libuv
backend binds "::", else "0.0.0.0"), so a standalone torchrun would take connections
from the whole network on two ports (the rendezvous store, and the store its workers
share) for as long as the job runs: anyone who reaches them can read and write the job's
keys. Given a socket that already listens, a TCPStore serves on that one
(`master_listen_fd`); here every store hosted for a loopback host gets one bound to
127.0.0.1. The launcher passes `--local-addr 127.0.0.1`, so that the workers' store is
hosted, and looked for, there too.
"""

import socket
import sys
from typing import List, Optional

# TCPStore(host_name, port, world_size, is_master, timeout, wait_for_workers, multi_tenant,
# master_listen_fd, use_libuv): the names of its positional parameters, in order.
PARAMS = ("host_name", "port", "world_size", "is_master", "timeout", "wait_for_workers", "multi_tenant",
          "master_listen_fd", "use_libuv")
LOOPBACK = "127.0.0.1"


def is_loopback(host) -> bool:
    return host == "localhost" or str(host).startswith("127.")


def listening_socket(port: int) -> int:
    """A TCP socket listening on 127.0.0.1:port (0: a free port), as a descriptor."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as TCPStore itself binds
        s.bind((LOOPBACK, port))
        s.listen(socket.SOMAXCONN)
    except OSError as e:
        s.close()
        # what TCPStore raises when it cannot bind: the rendezvous then tries as a client
        raise RuntimeError("cannot listen on %s:%d: %s" % (LOOPBACK, port, e.strerror or e))
    return s.detach()


def loopback_store(base):
    """A TCPStore class that serves a loopback host on 127.0.0.1 only."""

    class LoopbackTCPStore(base):
        def __init__(self, *args, **kw):
            if len(args) <= len(PARAMS):
                kw.update(zip(PARAMS, args))
                args = ()
                if kw.get("is_master") and kw.get("master_listen_fd") is None and is_loopback(kw.get("host_name")):
                    kw["master_listen_fd"] = listening_socket(int(kw.get("port") or 0))
            super().__init__(*args, **kw)

    # torch's messages and reprs name the class: still "TCPStore"
    LoopbackTCPStore.__name__ = LoopbackTCPStore.__qualname__ = base.__name__
    return LoopbackTCPStore


def install() -> None:
    """Every TCPStore torchrun creates from now on is a LoopbackTCPStore."""
    import torch.distributed as dist
    from torch.distributed.elastic.rendezvous import c10d_rendezvous_backend
    store = loopback_store(dist.TCPStore)
    dist.TCPStore = store  # torch.distributed.elastic.rendezvous.dynamic_rendezvous looks it up here
    c10d_rendezvous_backend.TCPStore = store  # ... this one imported the name


def main(argv: Optional[List[str]] = None) -> None:
    install()
    from torch.distributed.run import main as torchrun
    torchrun(list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
