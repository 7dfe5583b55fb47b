"""Tailoring hooks of the distributed known errors: the rendezvous port (who holds it on this
machine, or why the OS refuses it) and the store barrier's own counts. The lines are in the
formats c10d prints; the facts are explain's, the listening sockets are real where they can be."""

import os
import socket

from torchdoctor.areas.registry import all_hooks
from torchdoctor.gather.network import listening_facts
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import failed

from hook_facts import facts

IN_USE = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
          "The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use). The server socket "
          "has failed to bind to 0.0.0.0:%d (errno: 98 - Address already in use).")
REFUSED = ("[W socket.cpp:401] [c10d] The server socket has failed to bind to 0.0.0.0:%d (errno: 13 - Permission denied).")


def tailor(text, f, entry_id):
    m = [x for x in match_text(text) if x.id == entry_id][0]
    return all_hooks()[m.entry.tailor](m, f)


def test_a_port_held_here_names_its_owner_and_a_free_port():
    """A real listening socket of this process: the facts as gathered, then the hook's answer."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        net = listening_facts()
    rows = [r for r in net["tcp"] if r["port"] == port]
    assert rows and rows[0]["pid"] == os.getpid()
    t = tailor(IN_USE % (port, port), facts(network=net), "dist-rendezvous-port-in-use")
    assert "in use on this machine now by pid %d" % os.getpid() in t.summary
    assert "ss -ltnp 'sport = :%d'" % port in t.commands
    assert "kill %d" % os.getpid() in t.commands  # a python process: likely the old job
    free = [c for c in t.commands if c.startswith("torchrun --master_port=")][0]
    assert int(free.split("=")[1].split()[0]) not in {r["port"] for r in net["tcp"]}


def test_a_port_nobody_holds_now_says_the_old_job_is_gone():
    t = tailor(IN_USE % (29500, 29500), facts(network={"tcp": [{"port": 22, "address": "0.0.0.0", "pid": None,
                                                                  "process": None}]}), "dist-rendezvous-port-in-use")
    assert "Nothing listens on port 29500" in t.summary and "--master_port=29501" in t.summary


def test_unknown_listeners_keep_the_generic_advice_and_say_why():
    t = tailor(IN_USE % (29500, 29500), facts(network={"tcp": failed("AccessDenied: macOS needs root")}),
               "dist-rendezvous-port-in-use")
    assert "Another process listens on port 29500" in t.summary
    assert any("AccessDenied" in n for n in t.notes)


def test_the_libuv_wording_gives_its_port_to_the_hook():
    text = ("RuntimeError: The server socket has failed to listen on any local network address. port: 29500, "
            "useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use")
    t = tailor(text, facts(network={"tcp": []}), "dist-rendezvous-port-in-use")
    assert "port 29500" in t.summary


def test_a_refused_port_is_privileged_on_linux_and_reserved_on_windows():
    found = [m.id for m in match_text(REFUSED % 98)]
    assert found[0] == "dist-rendezvous-port-privileged" and "dist-rendezvous-port-in-use" not in found
    linux = tailor(REFUSED % 98, facts(network={"tcp": []}), "dist-rendezvous-port-privileged")
    assert "Port 98 is privileged" in linux.summary and "--master_port=29500" in linux.summary
    win = tailor(REFUSED.replace("errno: 13 - Permission denied", "system error: 10013 - An attempt was made")
                 % 29500, facts(system="Windows"), "dist-rendezvous-port-privileged")
    assert "netsh interface ipv4 show excludedportrange protocol=tcp" in win.commands


def test_the_barrier_counts_tell_too_many_from_too_few():
    line = ("RuntimeError: Timed out initializing process group in store based barrier on rank: 1, for key: "
            "store_based_barrier_key:1 (world_size=%d, worker_count=%d, timeout=0:30:00)")
    many = tailor(line % (2, 4), facts(), "dist-store-barrier-timeout")
    assert "4 processes checked in for a world of 2" in many.cause
    few = tailor(line % (8, 4), facts(), "dist-store-barrier-timeout")
    assert "Only 4 of 8" in few.cause and "4 never arrived" in few.cause


def test_other_programs_port_errors_are_not_claimed():
    for text in ("socket.error: [Errno 98] Address already in use",
                 "Error: listen EADDRINUSE: address already in use :::3000",
                 "listen tcp :8080: bind: address already in use",
                 "java.io.IOException: Connection closed by peer!"):
        assert match_text(text) == [], text


def test_windows_store_unknown_error_names_the_broken_release():
    text = "torch.distributed.DistNetworkError: Unknown error"
    broken = tailor(text, facts(torch="2.2.0+cu121", system="Windows"), "windows-tcpstore-unknown-error")
    assert "torch 2.2.0" in broken.summary and any("torch==2.2.1" in c for c in broken.commands)
    other = tailor(text, facts(torch="2.3.1", system="Windows"), "windows-tcpstore-unknown-error")
    assert "not 2.2.0" in other.summary and other.commands is None
    assert tailor(text, facts(), "windows-tcpstore-unknown-error") is None  # torch not installed here


def test_accelerates_port_check_is_answered_with_accelerates_own_flag():
    # accelerate launch takes the port as --main_process_port, not torchrun's --master_port
    text = ("ConnectionError: Tried to launch distributed communication on port `29500`, but another process is "
            "utilizing it. Please specify a different port")
    t = tailor(text, facts(network={"tcp": [{"port": 29500, "address": "0.0.0.0", "pid": 4242,
                                             "process": "python3"}]}), "accelerate-main-process-port-in-use")
    assert "in use on this machine now by pid 4242" in t.summary and "--main_process_port=29501" in t.summary
    assert "accelerate launch --main_process_port=29501 ..." in t.commands
    assert not any("torchrun" in c or "--master_port" in c for c in t.commands + [t.summary])
