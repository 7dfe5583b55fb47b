"""`torchdoctor mcp`: serve the diagnosis to coding agents over MCP (stdio).

Needs the optional `mcp` SDK: `pip install "torchdoctor[mcp]"` (Python 3.10+)."""

import click

from .common import InputError


@click.command("mcp")
@click.option("--no-redact", is_flag=True, help="Return names, addresses and secrets as they are (a report then "
                                                "says NOT REDACTED); by default every result is redacted.")
def mcp_cmd(no_redact):
    """Run an MCP server on stdin/stdout with the tools check, explain, report, triage and
    list_checks (none installs anything or runs a fix; check, explain and report run the
    interpreter they diagnose). Register it with an MCP client as the command
    `torchdoctor mcp` (see README)."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise InputError('the MCP server needs the mcp package: pip install "torchdoctor[mcp]" (Python 3.10+)')
    from ..surfaces.mcp_server import serve
    serve(redact=not no_redact)
