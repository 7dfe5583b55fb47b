"""The listening TCP sockets of this machine and their owners (read only when a hook asks)."""

import os
import socket

import psutil

from torchdoctor.gather import light
from torchdoctor.gather.network import listening_facts
from torchdoctor.model.facts import FAILED


def test_a_socket_this_process_listens_on_is_listed_with_its_owner():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        rows = listening_facts()["tcp"]
    mine = [r for r in rows if r["port"] == port]
    assert mine == [{"port": port, "address": "127.0.0.1", "pid": os.getpid(), "process": mine[0]["process"]}]
    assert "python" in (mine[0]["process"] or "")


def test_a_system_that_refuses_the_listing_is_a_failed_fact(monkeypatch):
    def refuse(kind="inet"):
        raise psutil.AccessDenied()
    monkeypatch.setattr(psutil, "net_connections", refuse)
    facts = light.light_facts()
    assert facts.state("network.tcp") == FAILED and "AccessDenied" in facts.reason("network.tcp")


def test_explain_reads_the_sockets_only_when_asked():
    facts = light.light_facts()
    assert "network" not in facts.data
    assert isinstance(facts.value("network.tcp"), list)
