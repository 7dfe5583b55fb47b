"""The doctor where failures happen: `torchdoctor run` (runner, command, terminal,
postmortem, signals), the exception hook (hook, live), the pytest plugin, the IPython
extension and the MCP server. Every one is a thin adapter over torchdoctor.diagnose,
the matcher and the renderers; nothing here is imported until a surface is used."""
