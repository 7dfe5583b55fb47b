"""`torchdoctor run -- CMD` for real: the doctor in a child process running real programs
(the CPU torch raising "Torch not compiled with CUDA enabled", a SIGSEGV, a success), with
pipes, one shared pipe, a pty, forwarded signals, a reader that leaves, and bad commands."""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
import time
import tty


from conftest import TORCH_PYTHON, needs_torch

TD = [sys.executable, "-m", "torchdoctor", "run"]


def td(args, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 120)
    kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(TD + list(args), **kw)


def script(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return str(p)


CUDA_FAIL = """
    import sys
    import torch
    print("epoch 1 loss 0.5", flush=True)
    x = torch.zeros(3)
    x.cuda()
"""


@needs_torch
def test_torch_not_compiled_with_cuda_is_diagnosed_after_the_output(tmp_path):
    prog = script(tmp_path, "train.py", CUDA_FAIL)
    direct = subprocess.run([TORCH_PYTHON, prog], capture_output=True, timeout=120)
    r = td(["--json", str(tmp_path / "d.json"), "--", TORCH_PYTHON, prog])
    assert r.returncode == direct.returncode == 1
    assert r.stdout == direct.stdout == b"epoch 1 loss 0.5\n"
    err = r.stderr.decode()
    # the program's own stderr first, untouched, then the diagnosis, set apart
    assert err.startswith(direct.stderr.decode())
    rest = err[len(direct.stderr.decode()):]
    assert "torchdoctor:" in rest.splitlines()[1] and "exited with status 1" in rest
    assert "[torch-not-compiled-with-cuda, cpu-only-build]" in rest
    assert "installed torch: 2." in rest and "+cpu" in rest  # tailored to the program's interpreter
    d = json.loads((tmp_path / "d.json").read_text())
    assert d["exit_status"] == 1 and d["signal"] is None and d["command"] == [TORCH_PYTHON, prog]
    assert d["python"] == TORCH_PYTHON and d["python_from"].startswith("the command is")
    assert d["matches"][0]["id"] == "torch-not-compiled-with-cuda"
    assert d["matches"][0]["tailored"] is True and d["diagnosis_error"] is None


def test_segfault_gets_the_signal_explanation(tmp_path):
    r = td(["--", sys.executable, "-c", "import ctypes; print('before', flush=True); ctypes.string_at(0)"])
    assert r.returncode == 128 + signal.SIGSEGV
    assert r.stdout == b"before\n"
    err = r.stderr.decode()
    assert "was killed by SIGSEGV (exit status 139)" in err
    assert "PYTHONFAULTHANDLER=1 torchdoctor run --" in err
    assert "torch-import-segfault" in err  # the related KB entry, by id


def test_success_is_byte_identical_and_silent(tmp_path):
    prog = script(tmp_path, "ok.py", """
        import sys
        for i in range(3000):
            sys.stdout.write("line %d \\u00e9\\n" % i)
            if i % 7 == 0:
                sys.stderr.write("warn %d\\n" % i)
        sys.stdout.buffer.write(bytes(range(256)))
    """)
    direct = subprocess.run([sys.executable, prog], capture_output=True, timeout=60)
    r = td(["--", sys.executable, prog])
    assert r.returncode == 0
    assert r.stdout == direct.stdout and r.stderr == direct.stderr


def test_one_shared_stream_keeps_the_exact_interleaving(tmp_path):
    prog = script(tmp_path, "mix.py", """
        import os
        for i in range(400):
            os.write(1 if i % 3 else 2, b"%d %s\\n" % (i, b"out" if i % 3 else b"err"))
    """)
    direct = subprocess.run([sys.executable, prog], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    r = subprocess.run(TD + ["--", sys.executable, prog], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 0 and r.stdout == direct.stdout


def test_exit_status_is_the_programs():
    assert td(["--", sys.executable, "-c", "raise SystemExit(42)"]).returncode == 42
    r = td(["--", sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    assert r.returncode == 137 and b"was killed by SIGKILL" in r.stderr and b"dmesg -T" in r.stderr
    r = td(["--", sys.executable, "-c", "raise SystemExit(3)"])
    assert r.returncode == 3 and r.stderr.decode().strip() == \
        "torchdoctor: no known PyTorch error in the output (exited with status 3)"


def test_bad_commands_are_one_line_like_a_shell(tmp_path):
    r = td(["--", "no-such-command-xyz"])
    assert (r.returncode, r.stdout) == (127, b"")
    assert r.stderr.decode() == "torchdoctor: error: no-such-command-xyz: command not found\n"
    plain = tmp_path / "notexec.py"
    plain.write_text("print(1)\n")
    r = td(["--", str(plain)])
    assert r.returncode == 126 and r.stderr.decode() == "torchdoctor: error: %s: Permission denied\n" % plain
    r = td(["--", str(tmp_path)])
    assert r.returncode == 126 and r.stderr.decode().count("\n") == 1
    noshebang = tmp_path / "noshebang"
    noshebang.write_bytes(b"\x7fELF garbage")
    noshebang.chmod(0o755)
    r = td(["--", str(noshebang)])
    assert r.returncode == 126 and "cannot execute" in r.stderr.decode() and r.stderr.decode().count("\n") == 1
    r = td(["--"])
    assert r.returncode == 2 and r.stderr.decode().startswith("torchdoctor: error: no command given")
    r = td(["--fail-on", "error", "--", sys.executable, "-c", "pass"])
    assert r.returncode == 2 and r.stderr.decode().startswith("torchdoctor: error: no such option: --fail-on")
    assert b"Traceback" not in r.stderr


def test_json_never_goes_to_the_programs_stdout(tmp_path):
    marker = tmp_path / "ran"
    r = td(["--json", "1", "--", sys.executable, "-c", "open(%r, 'w')" % str(marker)])
    assert r.returncode == 2 and not marker.exists()
    assert "standard output" in r.stderr.decode()
    r = td(["--json", "9", "--", sys.executable, "-c", "pass"])
    assert r.returncode == 2 and "not open" in r.stderr.decode()
    r = td(["--json", str(tmp_path / "missing" / "x.json"), "--", sys.executable, "-c", "pass"])
    assert r.returncode == 2 and "does not exist" in r.stderr.decode()
    # a descriptor of its own: the diagnosis arrives there even on success
    rfd, wfd = os.pipe()
    p = subprocess.Popen(TD + ["--json", str(wfd), "--", sys.executable, "-c", "print('hi')"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         pass_fds=(wfd,))
    os.close(wfd)
    out, err = p.communicate(timeout=60)
    data = b""
    while True:
        chunk = os.read(rfd, 65536)
        if not chunk:
            break
        data += chunk
    os.close(rfd)
    assert p.returncode == 0 and out == b"hi\n" and err == b""
    d = json.loads(data)
    assert d["exit_status"] == 0 and d["matches"] == [] and d["channels"]["stdout"] == "pipe"


@needs_torch
def test_report_is_redacted_and_holds_the_run(tmp_path):
    secret = "hf_" + "A" * 34
    prog = script(tmp_path, "train.py", CUDA_FAIL.replace('print("epoch', 'print("token %s epoch' % secret))
    js = tmp_path / "run.json"
    r = td(["--report", str(js), "--", TORCH_PYTHON, prog])
    assert r.returncode == 1 and r.stderr.decode().rstrip().endswith("torchdoctor: wrote %s (json, redacted)" % js)
    text = js.read_text()
    assert secret not in text  # printed by the program, redacted in the tail
    d = json.loads(text)
    run = d["facts"]["run"]
    assert run["matches"][0]["id"] == "torch-not-compiled-with-cuda" and run["exit_status"] == 1
    assert "epoch 1 loss 0.5" in run["output_tail"] and "Torch not compiled" in run["output_tail"]
    assert d["facts"]["redaction"]["enabled"] is True
    # the attachment reads back like any report ...
    t = subprocess.run([sys.executable, "-m", "torchdoctor", "triage", str(js)], capture_output=True, timeout=120)
    assert t.returncode in (0, 1) and b"Traceback" not in t.stderr
    # ... and its Markdown form carries the run, the diagnosis and the tail
    from torchdoctor.model.facts import Facts
    from torchdoctor.model.findings import Finding
    from torchdoctor.model.report import Report
    from torchdoctor.surfaces import attachment
    rep = Report(Facts.from_dict(d["facts"]), [Finding.from_dict(f) for f in d["findings"]])
    md = attachment.render(rep, "markdown", "run")
    assert "### The run" in md and "### Known errors in its output" in md and "torch-not-compiled-with-cuda" in md
    assert "Output: the last" in md and "epoch 1 loss 0.5" in md and secret not in md
    assert attachment.fmt_for("x.md") == "markdown" and attachment.fmt_for("X.JSON") == "json"


def test_signals_are_forwarded_once_and_the_program_cleans_up(tmp_path):
    prog = script(tmp_path, "trap.py", """
        import signal, sys, time
        got = []
        signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
        print("ready", flush=True)
        t = time.time()
        while not got and time.time() - t < 30:
            time.sleep(0.01)
        time.sleep(0.3)  # a second signal would arrive now
        print("cleanup after %d signal(s)" % len(got), flush=True)
        sys.exit(7)
    """)
    p = subprocess.Popen(TD + ["--", sys.executable, prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    assert p.stdout.readline() == b"ready\n"
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 7 and out == b"cleanup after 1 signal(s)\n"
    # killed by a signal we forwarded: the user asked for it, nothing to explain
    p = subprocess.Popen(TD + ["--", sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert p.stdout.readline() == b"ready\n"
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == -signal.SIGTERM  # the doctor ends as its program did, as a shell would see it
    assert b"SIGTERM" in err and b"Next steps" not in err and b"stopped by SIGTERM" not in err


def test_a_reader_that_leaves_stops_the_program_as_it_would_directly():
    t = time.monotonic()
    p = subprocess.Popen(TD + ["--", sys.executable, "-c", "import itertools\nfor i in itertools.count(): print(i)"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    assert time.monotonic() - t < 60
    assert p.returncode != 0 and b"BrokenPipeError" in err  # the program's own reaction
    assert b"torchdoctor: error" not in err and err.count(b"Traceback") <= 1


def _run_on_pty(args, timeout=60):
    master, slave = pty.openpty()
    tty.setraw(slave)  # see the bytes exactly as the doctor writes them
    p = subprocess.Popen(TD + args, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    data = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        elif p.poll() is not None:
            break
    p.wait(timeout=10)
    os.close(master)
    return p.returncode, data


def test_on_a_terminal_the_program_gets_a_terminal_and_its_bytes_pass_unchanged():
    code = ("import sys, time\n"
            "print(sys.stdout.isatty(), sys.stderr.isatty(), flush=True)\n"
            "for i in range(3):\n"
            "    sys.stdout.write('\\rprogress %d/3' % (i + 1)); sys.stdout.flush(); time.sleep(0.05)\n"
            "sys.stdout.write('\\n')\n")
    rc, data = _run_on_pty(["--", sys.executable, "-c", code])
    assert rc == 0
    assert data == b"True True\n\rprogress 1/3\rprogress 2/3\rprogress 3/3\n"


def test_the_diagnosis_failing_loses_nothing(tmp_path):
    # A sitecustomize (in the doctor's process only) breaks the text renderer.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os\n"
        "if os.environ.get('TD_BREAK_RENDER'):\n"
        "    import torchdoctor.render.text as t\n"
        "    def boom(*a, **k):\n"
        "        raise RuntimeError('renderer broken on purpose')\n"
        "    t.render_explain = boom\n")
    env = dict(os.environ, PYTHONPATH=str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""), TD_BREAK_RENDER="1")
    msg = "RuntimeError: Torch not compiled with CUDA enabled"
    r = td(["--", sys.executable, "-c", "import sys; print('out'); sys.exit(%r)" % msg], env=env)
    assert r.returncode == 1 and r.stdout == b"out\n"
    lines = r.stderr.decode().splitlines()
    assert lines[0] == msg
    assert lines[-1] == ("torchdoctor: the diagnosis failed (RuntimeError: renderer broken on purpose); "
                         "the program's output and exit status 1 are unaffected")


def test_the_interpreter_comes_from_the_command(tmp_path):
    from torchdoctor.verbs.run.command import interpreter_of, shebang_python
    exe = os.path.join(os.path.dirname(sys.executable), "python")
    assert interpreter_of(["env", "A=1", "-u", "B", exe, "x.py"]) == (exe, "the command is %s" % exe)
    s = tmp_path / "tool"
    s.write_text("#!%s\nprint(1)\n" % sys.executable)
    s.chmod(0o755)
    assert interpreter_of([str(s)]) == (sys.executable, "the shebang of %s" % s)
    s.write_text("#!/usr/bin/env -S python3 -u\n")
    assert shebang_python(str(s)).endswith("python3")
    long = "/very-long-prefix-" + "x" * 150 + "/bin/python3"
    s.write_text("#!/bin/sh\n'''exec' \"%s\" \"$0\" \"$@\"\n' '''\n" % long)
    assert shebang_python(str(s)) == long
    s.write_text("#!/bin/bash\necho hi\n")
    assert interpreter_of([str(s)])[0] is None
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    if os.path.exists(torchrun):
        assert interpreter_of([torchrun, "--nproc-per-node", "2", "train.py"])[0] is not None
    # a shebang script run for real: the JSON names its interpreter
    s.write_text("#!%s\nimport sys\nsys.exit('RuntimeError: Torch not compiled with CUDA enabled')\n" % sys.executable)
    out = tmp_path / "d.json"
    r = td(["--json", str(out), "--", str(s)])
    assert r.returncode == 1
    d = json.loads(out.read_text())
    assert d["python"] == sys.executable and d["python_from"] == "the shebang of %s" % s


def test_on_its_terminal_the_program_reads_stdin_and_gets_ctrl_c_once():
    """The doctor in a terminal of its own (pty.fork: the pty is its controlling terminal):
    the program can read the terminal, and Ctrl-C (the byte \\x03 typed into the terminal)
    reaches the program's process group once, which cleans up with its own status."""
    prog = ("import signal, sys, time\n"
            "name = input('name? ')\n"
            "print('hello', name, flush=True)\n"
            "got = []\n"
            "signal.signal(signal.SIGINT, lambda s, f: got.append(s))\n"
            "print('ready', flush=True)\n"
            "t = time.time()\n"
            "while not got and time.time() - t < 30:\n"
            "    time.sleep(0.01)\n"
            "time.sleep(0.3)\n"
            "print('cleanup after %d signal(s)' % len(got), flush=True)\n"
            "sys.exit(5)\n")
    pid, master = pty.fork()
    if pid == 0:  # the child: exec the doctor at once
        os.execv(sys.executable, [sys.executable, "-m", "torchdoctor", "run", "--", sys.executable, "-c", prog])
    seen = b""

    def until(marker, timeout=60):
        nonlocal seen
        end = time.monotonic() + timeout
        while marker not in seen and time.monotonic() < end:
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
        return marker in seen

    try:
        assert until(b"name? "), seen
        os.write(master, b"bob\n")
        assert until(b"ready", timeout=15), seen
        os.write(master, b"\x03")
        assert until(b"cleanup after"), seen
        until(b"\n__never__", timeout=2)
    finally:
        end = time.monotonic() + 30
        done, status = 0, 0
        while not done and time.monotonic() < end:
            done, status = os.waitpid(pid, os.WNOHANG)
            time.sleep(0.05)
        if not done:  # a hung doctor fails the test instead of hanging it
            os.killpg(os.getpgid(pid), signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        os.close(master)
    assert os.waitstatus_to_exitcode(status) == 5
    assert b"hello bob" in seen and b"cleanup after 1 signal(s)" in seen


def test_signals_still_reach_a_program_that_closed_its_output(tmp_path):
    prog = script(tmp_path, "quiet.py", """
        import os, signal, sys, time
        print("closing", flush=True)
        got = []
        signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
        os.close(1); os.close(2)
        t = time.time()
        while not got and time.time() - t < 30:
            time.sleep(0.01)
        os._exit(9 if got else 0)
    """)
    p = subprocess.Popen(TD + ["--", sys.executable, prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    assert p.stdout.readline() == b"closing\n"
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    assert p.returncode == 9


def test_report_hides_secrets_given_as_separate_words_of_the_command(tmp_path):
    js = tmp_path / "run.json"
    words = ["--password", "Hunter2Word", "--api-key", "k3yValue9", "--db-pass", "pw9x", "--token", "t0kenV",
             "--lr", "0.1"]
    r = td(["--report", str(js), "--", sys.executable, "-c", "import sys; sys.exit(3)"] + words)
    assert r.returncode == 3, r.stderr
    text = js.read_text()
    for secret in ("Hunter2Word", "k3yValue9", "pw9x", "t0kenV"):
        assert secret not in text, secret
    d = json.loads(text)
    assert d["facts"]["run"]["command"][3:] == ["--password", "<secret>", "--api-key", "<secret>", "--db-pass",
                                                 "<secret>", "--token", "<secret>", "--lr", "0.1"]
    from torchdoctor.model.facts import Facts
    from torchdoctor.model.findings import Finding
    from torchdoctor.model.report import Report
    from torchdoctor.surfaces import attachment
    md = attachment.render(Report(Facts.from_dict(d["facts"]), [Finding.from_dict(f) for f in d["findings"]]),
                           "markdown", "run")
    assert "--password &lt;secret&gt; --api-key &lt;secret&gt; --db-pass &lt;secret&gt;" in md


SEGV_RANK = """
    import os, signal, time
    if os.environ.get("RANK") == "1":
        os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(60)
"""


@needs_torch
def test_a_rank_killed_by_a_signal_under_torchrun_is_named_by_rank(tmp_path):
    prog = script(tmp_path, "seg.py", SEGV_RANK)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = td(["--", TORCH_PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", prog],
           env=env, timeout=240, cwd=str(tmp_path))
    err = r.stderr.decode()
    tail = err[err.index("torchdoctor:"):]
    assert "Rank 1 of the job (local rank 1, PID " in tail and "was killed by SIGSEGV" in tail, tail
    gdb = [ln.strip() for ln in tail.splitlines() if " gdb -q" in ln]
    assert gdb and "--no-python gdb -q -batch -ex run -ex bt --args python " in gdb[0] and gdb[0].endswith("seg.py")
