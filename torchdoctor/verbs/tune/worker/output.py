"""What the worker leaves behind: one JSON record per line (written at once, so a crash
loses nothing before it), errors as records with the model's own frame, and the clock
that keeps the run inside its deadline."""

import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))

def clean(v):
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        return v
    if isinstance(v, dict):
        return dict((str(k), clean(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return str(v)


class Out(object):
    """One JSON object per line; os.write hands each line to the kernel at once, so a
    segfault or SIGKILL right after loses nothing written before it."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def rec(self, rtype, **data):
        data["type"] = rtype
        data["t"] = round(time.time(), 3)
        line = json.dumps(clean(data), ensure_ascii=True, allow_nan=False) + "\n"
        os.write(self.fd, line.encode("ascii"))

    def stage(self, what, **data):
        self.rec("stage", what=what, **data)


def describe_error(exc):
    """'Type: message' and the innermost frame outside torch and this folder."""
    text = ("%s: %s" % (type(exc).__name__, exc)).strip()
    tb = traceback.extract_tb(exc.__traceback__)
    torch_dir = os.path.dirname(os.path.abspath(sys.modules["torch"].__file__)) if "torch" in sys.modules \
        and getattr(sys.modules["torch"], "__file__", None) else None
    where = None
    for fr in reversed(tb):
        f = os.path.abspath(fr.filename)
        if f.startswith(HERE + os.sep) or (torch_dir and f.startswith(torch_dir + os.sep)):
            continue
        where = "%s:%d in %s" % (fr.filename, fr.lineno, fr.name)
        break
    if where is None and tb:
        fr = tb[-1]
        where = "%s:%d in %s" % (fr.filename, fr.lineno, fr.name)
    return {"error": text[:2000], "exception": type(exc).__name__, "where": where}


class Fatal(Exception):
    def __init__(self, kind, info):
        Exception.__init__(self, kind)
        self.kind, self.info = kind, info


# ------------------------------------------------------------------ clock --
class Clock(object):
    def __init__(self, deadline, reserve):
        self.deadline = float(deadline)
        self.reserve = float(reserve)
        self.ppid = os.getppid()

    def left(self):
        if os.getppid() != self.ppid:  # the doctor is gone: nobody reads this any more
            os._exit(4)
        return self.deadline - self.reserve - time.time()




def attempt(fn):
    """fn(), or None where it raises: for facts that are a bonus."""
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return None
