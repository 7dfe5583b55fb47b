"""`torchdoctor mcp` through the official SDK's own client, over stdio, in a real subprocess."""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, needs_torch

mcp = pytest.importorskip("mcp", reason="the MCP SDK is the optional torchdoctor[mcp] extra (Python 3.10+); "
                                        "the test extra installs it")


def _session(calls, cwd, env=None, server_args=()):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "VIRTUAL_ENV")}
        params = StdioServerParameters(command=sys.executable, args=["-m", "torchdoctor", "mcp", *server_args],
                                       cwd=str(cwd), env=dict(base, **(env or {})))
        out = {}
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                out["init"] = await s.initialize()
                out["tools"] = (await s.list_tools()).tools
                for key, name, args in calls:
                    out[key] = await s.call_tool(name, args)
        return out
    return asyncio.run(asyncio.wait_for(main(), 240))


def _hints(tool):
    ann = tool.annotations
    return {k: getattr(ann, k, getattr(ann, "_".join(w.lower() for w in re.findall("[a-z]+|[A-Z][a-z]*", k)), None))
            for k in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")}


def _structured(res):
    return getattr(res, "structured_content", None) if hasattr(res, "structured_content") else res.structuredContent


def _is_error(res):
    return getattr(res, "is_error", getattr(res, "isError", None))


@needs_torch
def test_a_client_session_over_stdio(tmp_path):
    paste = open(os.path.join(ROOT, "tests", "fixtures", "collect_env", "torch2.1_cpu_build_two_rtx3090.txt")).read()
    calls = [
        ("explain", "explain", {"text": "Traceback (most recent call last):\nRuntimeError: operator torchvision::nms does not exist"}),
        ("nothing", "explain", {"text": "all good, loss 0.1"}),
        ("empty", "explain", {"text": "   "}),
        ("check", "check", {}),
        ("badpy", "check", {"python": str(tmp_path / "no-such-python")}),
        ("report_md", "report", {}),
        ("report_json", "report", {"format": "json"}),
        ("badfmt", "report", {"format": "html"}),
        ("triage", "triage", {"text": paste}),
        ("checks", "list_checks", {"known_errors": True}),
        ("plan", "fix_plan", {}),
        ("plan_badpy", "fix_plan", {"python": str(tmp_path / "no-such-python")}),
    ]
    before = set(os.listdir(tmp_path))
    out = _session(calls, tmp_path)
    assert out["init"].server_info.name == "torchdoctor"
    tools = {t.name: t for t in out["tools"]}
    assert set(tools) == {"check", "explain", "report", "triage", "list_checks", "fix_plan"}
    for name, t in tools.items():  # what each does, said truthfully
        hints = _hints(t)
        # check, explain and report run an interpreter (importing torch may write its caches):
        # not read-only, but nothing they do destroys anything or reaches beyond this machine
        assert hints["readOnlyHint"] is (name in ("triage", "list_checks")), name
        # fix_plan's dry run of the target's pip asks the package indexes pip is configured with
        assert hints["destructiveHint"] is False and hints["openWorldHint"] is (name == "fix_plan"), name
        assert hints["idempotentHint"] is True, name

    r = out["explain"]
    data = _structured(r)
    assert not _is_error(r) and data["matches"][0]["id"] == "torchvision-operator-does-not-exist"
    assert r.content[0].text.startswith("1 known error(s); best: ")
    assert json.loads(r.content[1].text) == data  # the summary, then the JSON contract
    assert any("pip install" in c for c in data["matches"][0]["fix"]["commands"])  # returned, not run

    assert _structured(out["nothing"])["matches"] == []
    assert _is_error(out["empty"]) and out["empty"].content[0].text.startswith("torchdoctor: the text is empty")

    c = _structured(out["check"])
    assert c["schema_version"] == 1 and "facts" in c and isinstance(c["findings"], list)
    assert "(CPU-only build)" in out["check"].content[0].text
    assert _is_error(out["badpy"]) and "is not a Python interpreter (no such file)" in out["badpy"].content[0].text

    plan = _structured(out["plan"])  # the dry-run form only: nothing applied, ever
    assert plan["applied"] is False and isinstance(plan["findings"], list)
    assert "a plan only" in out["plan"].content[0].text
    assert _is_error(out["plan_badpy"]) and "is not a Python interpreter" in out["plan_badpy"].content[0].text

    md = _structured(out["report_md"])["report"]
    assert md.startswith("## torchdoctor report") and "Redacted" in md
    assert _structured(out["report_json"])["facts"]["redaction"]["enabled"] is True
    assert _is_error(out["badfmt"])

    t = _structured(out["triage"])
    assert t["triage"]["format"] and "torch version" in t["triage"]["known"]
    assert any(f["id"] == "cpu-only-build" for f in t["findings"])

    lc = _structured(out["checks"])
    assert len(lc["checks"]) > 30 and len(lc["known_errors"]) > 100
    assert set(os.listdir(tmp_path)) == before  # nothing written


def test_without_the_sdk_it_is_one_line(tmp_path):
    # A meta-path finder that hides the mcp package, as on an install without the extra.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mcp' or name.startswith('mcp.'):\n"
        "            raise ModuleNotFoundError('No module named %r' % name)\n"
        "sys.meta_path.insert(0, Hide())\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-m", "torchdoctor", "mcp"], capture_output=True, env=env, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr.decode() == 'torchdoctor: error: the MCP server needs the mcp package: pip install ' \
                                '"torchdoctor[mcp]" (Python 3.10+)\n'


NMS = "Traceback (most recent call last):\nRuntimeError: operator torchvision::nms does not exist"


# -- what leaves, and what runs -------------------------------------------------------------------------------------
PLANTED = {
    "TORCHINDUCTOR_REDIS_URL": "redis://:Zq8PwRedis5x@cache.example.net:6379/0",
    "NCCL_PROXY_URL": "https://bob:Hunter2PwX9@proxy.example.net/",
    "TORCH_HUB_HEADER": "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNm12345678",
    "TORCH_EXTRA_ARGS": "--password S3cretWordZ9 --lr 1",
    "MASTER_ADDR": "gpu-node-17.corp.example.net",
}
LEAKS = ["Zq8PwRedis5x", "Hunter2PwX9", "QwErTyUiOpAsDfGhJkLzXcVbNm12345678", "S3cretWordZ9", "gpu-node-17"]


def _everything(res):
    return "\n".join(c.text for c in res.content) + json.dumps(_structured(res))


@needs_torch
def test_nothing_secret_leaves_through_any_tool(tmp_path):
    error = ("Traceback (most recent call last):\nRuntimeError: operator torchvision::nms does not exist "
             "(while loading redis://:Zq8PwRedis5x@cache.example.net:6379/0 with %s)" % PLANTED["TORCH_HUB_HEADER"])
    out = _session([("check", "check", {}), ("report", "report", {"format": "json"}),
                    ("explain", "explain", {"text": error})], tmp_path, env=PLANTED)
    for key in ("check", "report", "explain"):
        assert not _is_error(out[key]), out[key].content[0].text
        text = _everything(out[key])
        for leak in LEAKS if key != "explain" else LEAKS[:4]:  # the rendezvous host is known from the facts
            assert leak not in text, (key, leak)
    facts = _structured(out["check"])["facts"]
    assert facts["env"]["TORCHINDUCTOR_REDIS_URL"] == "redis://<secret>@cache.example.net:6379/0"
    assert facts["env"]["TORCH_EXTRA_ARGS"] == "--password <secret> --lr 1"
    assert facts["os"]["hostname"] == "<host>" and facts["redaction"]["enabled"] is True
    assert facts["redaction"]["counts"]["secret"] >= 4
    assert _structured(out["explain"])["matches"][0]["id"] == "torchvision-operator-does-not-exist"


@needs_torch
def test_check_imports_nothing_from_the_servers_directory_yet_names_the_shadow(tmp_path):
    marker = tmp_path / "imported"
    (tmp_path / "torch.py").write_text("open(%r, 'w').write('ran')\n" % str(marker))
    out = _session([("check", "check", {"python": sys.executable})], tmp_path)
    assert not _is_error(out["check"]), out["check"].content[0].text
    assert not marker.exists()  # the probe ran from an empty folder, without the server's on sys.path
    data = _structured(out["check"])
    assert data["facts"]["torch_import"]["ok"] is True
    shadow = [f for f in data["findings"] if f["id"] == "torch-shadowed"]
    assert shadow and "torch.py" in shadow[0]["title"]  # still said: `python -c` there would import it


def test_python_must_be_an_interpreter_and_is_not_run_otherwise(tmp_path):
    marker = tmp_path / "ran"
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\ntouch %s\n" % marker)
    fake.chmod(0o755)
    elf = tmp_path / "other" / "python3"  # a program, named like Python, with no Python beside it
    elf.parent.mkdir()
    shutil.copy(os.path.realpath(shutil.which("true")), str(elf))
    calls = [("script", "check", {"python": str(fake)}), ("shell", "check", {"python": "/bin/sh"}),
             ("elf", "check", {"python": str(elf)}), ("explain", "explain", {"text": NMS, "python": str(fake)}),
             ("report", "report", {"python": str(fake)})]
    out = _session(calls, tmp_path)
    for key, _, args in calls:
        assert _is_error(out[key]), key
        said = out[key].content[0].text
        assert said.startswith("torchdoctor: %s is not a Python interpreter (" % args["python"]), said
        assert "not run" in said
    assert "script" in out["script"].content[0].text and "standard library" in out["elf"].content[0].text
    assert not marker.exists()


@needs_torch
def test_no_redact_is_chosen_where_the_server_starts_not_by_the_agent(tmp_path):
    out = _session([("check", "check", {}), ("report", "report", {"format": "json"})], tmp_path,
                   env={"NCCL_PROXY_URL": PLANTED["NCCL_PROXY_URL"]}, server_args=["--no-redact"])
    assert _structured(out["check"])["facts"]["env"]["NCCL_PROXY_URL"] == PLANTED["NCCL_PROXY_URL"]
    assert _structured(out["report"])["facts"]["redaction"]["enabled"] is False
    assert out["report"].content[0].text.startswith("torchdoctor report (NOT redacted)")
    schema = {t.name: t.input_schema if hasattr(t, "input_schema") else t.inputSchema for t in out["tools"]}
    assert not any("redact" in json.dumps(s) for s in schema.values())  # no argument turns it off
