"""`torchdoctor mcp` through the official SDK's own client, over stdio, in a real subprocess."""

import asyncio
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, needs_torch

mcp = pytest.importorskip("mcp", reason="the MCP SDK is the optional torchdoctor[mcp] extra (Python 3.10+); "
                                        "the test extra installs it")


def _session(calls, cwd):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=sys.executable, args=["-m", "torchdoctor", "mcp"], cwd=str(cwd),
                                       env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "VIRTUAL_ENV")})
        out = {}
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                out["init"] = await s.initialize()
                out["tools"] = (await s.list_tools()).tools
                for key, name, args in calls:
                    out[key] = await s.call_tool(name, args)
        return out
    return asyncio.run(asyncio.wait_for(main(), 240))


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
    ]
    before = set(os.listdir(tmp_path))
    out = _session(calls, tmp_path)
    assert out["init"].server_info.name == "torchdoctor"
    tools = {t.name: t for t in out["tools"]}
    assert set(tools) == {"check", "explain", "report", "triage", "list_checks"}
    for t in tools.values():  # read-only, and said so
        ann = t.annotations
        assert getattr(ann, "read_only_hint", getattr(ann, "readOnlyHint", None)) is True
        assert getattr(ann, "destructive_hint", getattr(ann, "destructiveHint", None)) is False

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
    assert _is_error(out["badpy"]) and "no interpreter at" in out["badpy"].content[0].text

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
