"""`torchdoctor mcp`: serve the diagnosis to coding agents over MCP (stdio).

Needs the optional `mcp` SDK: `pip install "torchdoctor[mcp]"` (Python 3.10+)."""

import click

from .common import InputError


@click.command("mcp")
def mcp_cmd():
    """Run an MCP server on stdin/stdout with read-only tools: check, explain, report,
    triage, list_checks. Register it with an MCP client as the command
    `torchdoctor mcp` (see README)."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise InputError('the MCP server needs the mcp package: pip install "torchdoctor[mcp]" (Python 3.10+)')
    from ..surfaces.mcp_server import serve
    serve()
