"""Nothing is sent anywhere, and no report leaves with a secret.

The doctor never opens a network connection: every Python process it starts
(itself and the torch probe) runs under an audit hook that records socket and
HTTP events, the stdlib-only driver probe is run under one directly, and where
strace exists the whole process tree is traced for connect()/sendto() on
internet sockets, which also covers nvidia-smi, nvcc and anything torch loads.

Secrets: `torchdoctor report` (redacted by default) must not carry a planted
token, password, user name or host name in any format; `--no-redact` is the
only way to keep them.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap

import pytest

from fakes import fake_nvcc, fake_nvidia_smi, fake_torch

PY = sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GUARD_S = 300

# Audit events that mean "talking to the network" (or resolving a name to).
HOOK = textwrap.dedent("""\
    import os, sys
    _LOG = os.environ.get("TORCHDOCTOR_NET_LOG")
    _NET = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
            "socket.gethostbyaddr", "socket.getnameinfo", "socket.bind", "http.client.connect",
            "http.client.send", "urllib.Request", "ftplib.connect", "smtplib.connect", "webbrowser.open"}
    def _hook(event, args):
        bad = event in _NET
        if event == "socket.__new__":
            bad = len(args) > 1 and args[1] in (2, 10)  # AF_INET, AF_INET6
        if bad and _LOG:
            with open(_LOG, "a") as fh:
                fh.write("%s %s %r\\n" % (os.getpid(), event, args[:3]))
    if _LOG:
        sys.addaudithook(_hook)
    """)


@pytest.fixture
def netbox(tmp_path):
    site = tmp_path / "hooksite"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HOOK)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_nvidia_smi(bindir)
    fake_nvcc(bindir, "12.4")
    torch_root = fake_torch(tmp_path / "fake", version="2.4.1+cu124", available=False)
    log = tmp_path / "net.log"
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env.update(PATH="%s:/usr/bin:/bin" % bindir, TORCHDOCTOR_NET_LOG=str(log),
               PYTHONPATH=os.pathsep.join([str(site), torch_root]))

    class Box:
        pass
    b = Box()
    b.env, b.log, b.tmp, b.work, b.torch_root = env, log, tmp_path, work, torch_root
    return b


def run(box, *args, stdin=None, env=None, prefix=()):
    e = dict(box.env, **(env or {}))
    return subprocess.run(list(prefix) + [PY, "-m", "torchdoctor"] + [str(a) for a in args], env=e,
                          cwd=str(box.work), capture_output=True, input=stdin, timeout=GUARD_S)


def events(box):
    return box.log.read_text() if box.log.exists() else ""


def test_the_hook_sees_a_connection(netbox):
    # The detector works: a plain connect attempt is recorded.
    code = "import socket\ntry:\n socket.create_connection(('127.0.0.1', 9), timeout=0.5)\nexcept OSError:\n pass\n"
    subprocess.run([PY, "-c", code], env=netbox.env, timeout=60)
    assert "socket.connect" in events(netbox)


COMMANDS = [
    ("check", ["check"]),
    ("check --json", ["check", "--json"]),
    ("explain", ["explain", "RuntimeError: CUDA error: no kernel image is available for execution on the device"]),
    ("explain --probe", ["explain", "--probe", "AssertionError: Torch not compiled with CUDA enabled"]),
    ("report", ["report"]),
    ("report json to a file", ["report", "--format", "json", "-o", "REPORT"]),
    ("triage", ["triage", "-"]),
]
TRIAGE_PASTE = (b"PyTorch version: 2.4.1+cu124\nIs debug build: False\nCUDA used to build PyTorch: 12.4\n"
                b"OS: Ubuntu 22.04.4 LTS (x86_64)\nPython version: 3.11.7\nIs CUDA available: False\n"
                b"RuntimeError: Found no NVIDIA driver on your system.\n")


@pytest.mark.parametrize("name,args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_no_network_from_any_command(netbox, name, args):
    args = [str(netbox.tmp / "report.json") if a == "REPORT" else a for a in args]
    p = run(netbox, *args, stdin=TRIAGE_PASTE if name == "triage" else None)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    assert events(netbox) == "", events(netbox)


def test_no_network_re_diagnosing_and_diffing_reports(netbox):
    a, b = netbox.tmp / "a.json", netbox.tmp / "b.json"
    for path in (a, b):
        p = run(netbox, "report", "--format", "json", "-o", path)
        assert p.returncode in (0, 1), p.stderr[-2000:]
    for args in (["check", "--from", a], ["diff", a, b], ["triage", a]):
        p = run(netbox, *args)
        assert p.returncode in (0, 1), (args, p.stderr[-2000:])
    assert events(netbox) == "", events(netbox)


def test_driver_probe_opens_no_socket(tmp_path):
    # driver.py runs with -S (no sitecustomize): hook it directly.
    log = tmp_path / "net.log"
    script = os.path.join(ROOT, "torchdoctor", "gather", "driver.py")
    code = HOOK + "\nimport runpy\nrunpy.run_path(%r, run_name='__main__')\n" % script
    p = subprocess.run([PY, "-S", "-c", code], env=dict(os.environ, TORCHDOCTOR_NET_LOG=str(log)),
                       capture_output=True, timeout=120)
    assert p.returncode == 0
    json.loads(p.stdout)
    assert not log.exists() or log.read_text() == ""


STRACE = shutil.which("strace")


@pytest.mark.skipif(not STRACE, reason="strace not installed")
@pytest.mark.parametrize("args", [["check", "--json"], ["explain", "Torch not compiled with CUDA enabled"],
                                  ["report", "--format", "json"]], ids=["check", "explain", "report"])
def test_no_internet_socket_in_the_whole_process_tree(netbox, args):
    trace = netbox.tmp / "strace.txt"
    probe = subprocess.run([STRACE, "-f", "-qq", "-e", "trace=none", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("strace cannot trace here: %s" % probe.stderr[-200:])
    p = run(netbox, *args, prefix=[STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=socket,connect,sendto,sendmsg"])
    assert p.returncode in (0, 1), p.stderr[-2000:]
    calls = trace.read_text()
    inet = [ln for ln in calls.splitlines() if re.search(r"\b(AF_INET6?|PF_INET6?)\b", ln)]
    assert inet == [], "\n".join(inet[:20])


# ---------------------------------------------------------------- secrets --
SECRETS = {
    "TORCH_HUB_TOKEN": "ghp_" + "Zq8xTw3mN5vB7cD9eF1gH2jK4lL6pP0rS2tU",
    "PYTORCH_INDEX_PASSWORD": "hunter2-correct-horse-battery",
    "NCCL_DEBUG_FILE": "/home/quilldrake/nccl.%h.%p",
    "TORCH_HOME": "https://quilldrake:s3cr3tpassw0rd@mirror.example.com/torch",
    "CUDA_CACHE_PATH": "/home/quilldrake/.nv/ComputeCache",
}
USER = "quilldrake"


def _leaks(text, hostname):
    found = [v for v in ("Zq8xTw3mN5vB7cD9eF1gH2jK4lL6pP0rS2tU", "hunter2-correct-horse-battery", "s3cr3tpassw0rd", USER)
             if v in text]
    if hostname and len(hostname) >= 4 and re.search(r"(?<![\w.-])%s(?![\w-])" % re.escape(hostname), text):
        found.append("hostname %s" % hostname)
    return found


@pytest.mark.parametrize("fmt", ["markdown", "json", "text"])
def test_report_carries_no_secret_user_or_host(netbox, fmt):
    home = netbox.tmp / "home" / USER / "project"
    home.mkdir(parents=True)
    env = dict(SECRETS, HOME=str(netbox.tmp / "home" / USER), USER=USER, LOGNAME=USER)
    e = dict(netbox.env, **env)
    p = subprocess.run([PY, "-m", "torchdoctor", "report", "--format", fmt], env=e, cwd=str(home),
                       capture_output=True, timeout=GUARD_S)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    out = p.stdout.decode("utf-8", "replace")
    assert "TORCH_HUB_TOKEN" in out or "PYTORCH_INDEX_PASSWORD" in out  # the variables are reported...
    assert _leaks(out, socket.gethostname()) == []  # ...their values are not


def test_no_redact_is_the_only_way_to_keep_them(netbox):
    env = dict(netbox.env, **SECRETS)
    p = subprocess.run([PY, "-m", "torchdoctor", "report", "--format", "json", "--no-redact"], env=env,
                       cwd=str(netbox.work), capture_output=True, timeout=GUARD_S)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    assert "hunter2-correct-horse-battery" in p.stdout.decode()
