"""Start a standard-library child script under any Python, and read back the JSON lines it
writes as it goes (gather/target.py, gather/compile_child.py, the tune worker): one section
or stage per line, flushed at once, so a child that dies still leaves what came before.
"""

import json
from typing import Any, Dict, List

TOO_OLD_MARK = "torchdoctor-probe: python too old:"

# Runs under any Python, 2.7 included, so a too-old interpreter is reported
# rather than dying on a SyntaxError in target.py. With -c, sys.path[0] is the
# current directory, exactly as for the user's own `python -c "import torch"`.
LAUNCHER = (
    "import sys\n"
    "if sys.version_info < (3, 8):\n"
    "    sys.stderr.write('" + TOO_OLD_MARK + " %s\\n' % sys.version.split()[0]); sys.exit(3)\n"
    "p = sys.argv[1]\n"
    # The loader reads and writes __pycache__ (where writable): 10 ms of compile saved.
    "try:\n"
    "    from importlib.machinery import SourceFileLoader\n"
    "    c = SourceFileLoader('__main__', p).get_code('__main__')\n"
    "except Exception:\n"
    "    c = compile(open(p).read(), p, 'exec')\n"
    "exec(c, {'__name__': '__main__', '__file__': p})\n"
)


def read_sections(path: str):
    sections: Dict[str, Any] = {}
    stages: List[str] = []
    try:
        with open(path, "r", encoding="ascii", errors="replace") as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                if not isinstance(obj, dict):
                    continue
                if "stage" in obj:
                    stages.append(str(obj["stage"]))
                elif "section" in obj:
                    sections[str(obj["section"])] = obj.get("data")
    except OSError:
        pass
    return sections, stages
