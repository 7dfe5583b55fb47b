"""The verbs, each with its logic, called alike by the CLI (cli/: options in, the verb, the
output rendered), the MCP server and the Python API: check.py, explain.py, report.py,
triage.py, diff.py, and the packages lint/, tune/, dist/ and run/ (whose verb.py goes from
options to result). common.py holds what they share: InputError, the exit codes, the
interpreter chosen when none is named."""
