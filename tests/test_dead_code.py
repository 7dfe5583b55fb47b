"""No dead code in the package: vulture finds nothing beyond what tools/vulture_whitelist.py
lists with its reason (a name used from outside the package, a record field)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VULTURE_ARGS = [
    "torchdoctor", "tools/vulture_whitelist.py", "--min-confidence", "60",
    "--exclude", "__pycache__",
    "--ignore-decorators", "@rule,@hook,@click.command,@click.group,@_command",
    "--ignore-names", "pytest_*,_repr_*_,visit_*,leave_*,load_ipython_extension,unload_ipython_extension,"
                      "__getattr__,list_commands,get_command,readable,writable",
]


def test_vulture_finds_no_dead_code():
    pytest.importorskip("vulture")
    p = subprocess.run([sys.executable, "-m", "vulture"] + VULTURE_ARGS, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_whitelist_names_the_flags_the_test_uses():
    with open(os.path.join(ROOT, "tools", "vulture_whitelist.py"), encoding="utf-8") as fh:
        doc = fh.read()
    for flag in ("--ignore-decorators", "--ignore-names"):
        value = VULTURE_ARGS[VULTURE_ARGS.index(flag) + 1]
        assert '"%s"' % value in doc.replace(",\n", ","), flag
