"""dist/loopback.py with the real TCPStore: a store hosted for a loopback host listens on
127.0.0.1 only, however torch's callers pass their arguments, and still serves clients."""

import os
from datetime import timedelta

import pytest

from conftest import needs_torch
from torchdoctor.verbs.dist.loopback import is_loopback, loopback_store

pytestmark = needs_torch


def _listening_on(port):
    import psutil
    me = psutil.Process(os.getpid())
    conns = me.net_connections(kind="tcp") if hasattr(me, "net_connections") else me.connections(kind="tcp")
    return {c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN and c.laddr.port == port}


def test_a_store_for_a_loopback_host_listens_on_127_0_0_1_only():
    import torch.distributed as dist
    store_cls = loopback_store(dist.TCPStore)
    assert store_cls.__name__ == "TCPStore" and issubclass(store_cls, dist.TCPStore)
    # as dynamic_rendezvous passes them (keywords), and positionally as torchdoctor's own store does
    a = store_cls(host_name="localhost", port=0, is_master=True, multi_tenant=True)
    b = store_cls("127.0.0.1", 0, 1, True, timedelta(seconds=30), wait_for_workers=False)
    for server in (a, b):
        assert _listening_on(server.port) == {"127.0.0.1"}
        client = dist.TCPStore("127.0.0.1", server.port, is_master=False, timeout=timedelta(seconds=10))
        client.set("k", "v")
        assert server.get("k") == b"v"
    # torch's own store, for comparison: every interface
    plain = dist.TCPStore("127.0.0.1", 0, is_master=True)
    assert _listening_on(plain.port) != {"127.0.0.1"}


def test_only_loopback_hosts_are_changed():
    assert is_loopback("localhost") and is_loopback("127.0.0.1") and is_loopback("127.1.2.3")
    assert not is_loopback("10.0.0.5") and not is_loopback("node-7") and not is_loopback(None)
