"""The hostile-report corpus: what a stranger can attach to an issue.

Each entry builds its file in a temporary directory and says what every reading verb
(`check --from`, `triage`, `diff`) must answer: a diagnosis (exit 0/1, nothing raw on
the screen) or a one-line error (exit 2) containing the given words. Never a traceback.
"""

import codecs
import copy
import json
import os
import threading
import time

import hostile
from hostile import BASE, PAYLOAD, PAYLOAD_SHORT, evil_report

OK = "ok"


def _doc(facts, **top):
    d = {"schema_version": 1, "facts": facts}
    d.update(top)
    return d


def _nest(n, leaf):
    d = leaf
    for i in range(n):
        d = {"k%d" % i: d} if i % 2 else [d]
    return d


def _json(doc):
    return json.dumps(doc).encode("ascii")


def _markdown(facts):
    from torchdoctor.diagnose import diagnose
    from torchdoctor.model.facts import Facts
    from torchdoctor.render.markdown import render_markdown
    return render_markdown(diagnose(Facts(copy.deepcopy(facts)))).encode("utf-8")


def _huge_numbers():
    f = copy.deepcopy(BASE)
    f["memory"] = {"total": 10 ** 300, "available": -(10 ** 300)}
    f["cuda"]["device_count"] = 10 ** 100
    f["cuda"]["devices"][0]["total_memory"] = 1e308
    f["driver"]["gpus"][0]["memory_total_mib"] = 10 ** 50
    f["backends"]["cudnn"]["version"] = 10 ** 30
    f["probe"]["total_s"] = 1e300
    f["cpu"]["physical_cores"] = 2 ** 80
    return _json(_doc(f))


def _nan():
    f = copy.deepcopy(BASE)
    f["torch"]["version"] = float("nan")
    f["memory"] = {"total": float("nan"), "available": float("-inf")}
    f["probe"]["total_s"] = float("nan")
    f["cuda"]["devices"][0].update(total_memory=float("inf"), capability=[float("nan"), None])
    f["driver"]["driver_version"] = float("inf")
    f["backends"]["cudnn"]["version"] = float("nan")
    return json.dumps(_doc(f)).encode()  # NaN and Infinity, which Python's json reads


def _wrong_types():
    f = {"schema_version": 1, "torch": "2.1", "cuda": [], "driver": {"gpus": "many", "driver_version": ["550"]},
         "python": 3, "packages": {"installed": ["torch"]}, "env": "PATH=x", "os": None, "probe": [1],
         "backends": {"cudnn": "yes"}, "memory": "lots", "cpu": {"flags": "avx2", "physical_cores": "two"},
         "torch_import": {"ok": "maybe"}, "toolkit": 7, "accelerators": {"mps": [None]}}
    return _json(_doc(f, findings="none"))


def _wrong_types_inside():
    f = copy.deepcopy(BASE)
    f["torch"].update(version=[2, 5], cuda={"x": 1}, config={"lines": "GCC"})
    f["cuda"].update(arch_list="sm_90", devices={"0": "x"}, is_available="yes")
    f["driver"]["gpus"] = [None, 3, "GPU", {"capability": "8.9", "name": ["a"]}]
    f["packages"]["installed"] = {"torch": "2.5.1", "numpy": None, "x": {"version": 1}}
    f["env"] = {"CUDA_VISIBLE_DEVICES": 0, "OMP_NUM_THREADS": {"_absent": 5}, "X": ["a"]}
    return _json(_doc(f, findings=[{"id": 1}, "x", None]))


def _findings_of_every_type():
    return _json(_doc(copy.deepcopy(BASE), findings=[
        {"id": "x" + PAYLOAD, "severity": "fatal", "title": None, "fix": "rm -rf /", "links": "http://x"},
        {"id": None}, 17, [], {"id": "y", "fix": {"commands": [1, None, {"a": 1}]}}]))


def _big_sparse(tmp):
    """200 MB: a JSON start, then a hole (no disk used), as a file that grew by accident."""
    path = os.path.join(tmp, "huge.json")
    with open(path, "wb") as fh:
        fh.write(b'{"schema_version": 1, "facts": {"torch": {"version": "')
        fh.truncate(200 * 1024 * 1024)
    return path


def _fifo(tmp, data=None):
    path = os.path.join(tmp, "fifo.json")
    os.mkfifo(path)
    data = _json(evil_report(PAYLOAD)) if data is None else data

    def feed():
        for _ in range(8):  # every verb of the test opens it again
            try:
                with open(path, "wb") as fh:
                    fh.write(data)
            except OSError:
                return
            time.sleep(0.05)
    threading.Thread(target=feed, daemon=True).start()
    return path


# name -> (what: bytes, or a function of the temp dir returning a path), expected answer
CORPUS = {
    "escapes in every field": (lambda: _json(evil_report(PAYLOAD)), OK),
    "escapes in names too": (lambda: _json(_doc(hostile.poison(copy.deepcopy(BASE), PAYLOAD, keys=True))), OK),
    "every control character": (lambda: _json(evil_report(hostile.every_hidden_char())), OK),
    "escapes, Markdown report": (lambda: _markdown(hostile.evil_facts(PAYLOAD_SHORT)), OK),
    "escapes, UTF-16 with BOM": (lambda: codecs.BOM_UTF16_LE + json.dumps(evil_report(PAYLOAD)).encode("utf-16-le"), OK),
    "escapes, escaped in the JSON text": (lambda: ('{"schema_version": 1, "facts": {"torch": {"version": "2.5.1%s"}}}'
                                                   % "".join("\\u%04x" % ord(c) for c in PAYLOAD_SHORT)).encode(), OK),
    # raw control characters inside JSON strings: not JSON (torchdoctor never writes them)
    "escapes, raw in the JSON text": (lambda: ('{"schema_version": 1, "facts": {"torch": {"version": "2.5.1%s"}}}'
                                               % PAYLOAD_SHORT).encode("utf-8"), "error"),
    "huge numbers": (_huge_numbers, OK),
    "a 5000-digit number": (lambda: b'{"schema_version": 1, "facts": {"memory": {"total": ' + b"9" * 5000 + b"}}}",
                            "error"),
    "NaN and Infinity": (_nan, OK),
    "deep nesting the parser takes": (lambda: _json(_doc(dict(BASE, torch=dict(BASE["torch"],
                                                                              config=_nest(400, PAYLOAD))))), OK),
    "deep nesting past the parser": (lambda: b'{"schema_version": 1, "facts": ' + b"[" * 100000 + b"]" * 100000 + b"}",
                                     "error"),
    "wrong types everywhere": (_wrong_types, OK),
    "wrong types inside sections": (_wrong_types_inside, OK),
    "findings of every type": (_findings_of_every_type, OK),
    "schema from the future": (lambda: _json({"schema_version": 2, "facts": BASE}), "error"),
    "schema as a string": (lambda: _json({"schema_version": "1", "facts": BASE}), "error"),
    "facts from the future": (lambda: _json({"schema_version": 1, "facts": dict(BASE, schema_version=99)}), "error"),
    "facts not an object": (lambda: _json({"schema_version": 1, "facts": [1, 2]}), "error"),
    "top level an array": (lambda: b"[1, 2, 3]", "error"),
    "cut off": (lambda: _json(evil_report(PAYLOAD))[:3000], "error"),
    "binary: PNG": (lambda: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(4000), "error"),
    "binary: gzip of a report": (lambda: __import__("gzip").compress(_json(evil_report(PAYLOAD))), "error"),
    "binary: NUL padding": (lambda: b"\x00" * 10000, "error"),
    "empty": (lambda: b"", "error"),
    "only blanks": (lambda: b" \n\t\r\n " * 100, "error"),
    "200 MB": (_big_sparse, "error"),
    "FIFO with a writer": (_fifo, OK),
    "directory": (lambda tmp: tmp, "error"),
    "/dev/zero": (lambda tmp: "/dev/zero", "error"),
}
# What each reading verb may say of the entries it refuses ("error"): a torchdoctor error line.
ERROR_WORDS = ("not", "is ", "cannot", "no ", "empty", "binary", "over", "nests", "schema_version", "device",
               "directory")


def build(name, tmp):
    what, expected = CORPUS[name]
    if what.__code__.co_argcount:  # a function of the temp dir: returns a path
        if name.startswith("FIFO") and not hasattr(os, "mkfifo"):
            return None, expected
        if name == "/dev/zero" and not os.path.exists("/dev/zero"):
            return None, expected
        return what(str(tmp)), expected
    path = os.path.join(str(tmp), "report.json")
    with open(path, "wb") as fh:
        fh.write(what())
    return path, expected
