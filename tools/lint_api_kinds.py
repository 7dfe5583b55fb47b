#!/usr/bin/env python3
"""Regenerate torchdoctor/verbs/lint/data/api_kinds.json from the torch this Python imports.

    .venv/bin/python tools/lint_api_kinds.py          # write the file
    .venv/bin/python tools/lint_api_kinds.py --check  # exit 1 if the file differs

What it asks the installed torch (torch itself is the authority: its C++ setters check the
type, and their accepted strings live in C++, not in a Python source one could read):

* settings: for each `setting` of data/backends_names.json this torch has (and the
  `fp32_precision` of those that are an operator's precision object, cudnn.conv), the type of its
  value, and for a string setting the strings it accepts, tried one by one (the candidates:
  every string torch's own Python sources assign to or compare with an attribute of that
  name), the original value put back after each try;
* aliases: the paths of the API history that are one object under two names, for the
  replacements it names (torch.amp.autocast is torch.autocast, which is older);
* context managers that do nothing unless entered: every public function of the torch
  modules lint knows that is a @contextlib.contextmanager generator (calling one only makes
  a generator object; nothing runs until `with`).

The calls whose object changes no state until entered (torch.no_grad, torch.autocast,
torch.cuda.device ...) cannot be told apart from those that act in __init__
(torch.set_grad_enabled) by inspection: they are listed here by hand, and
tests/verbs/lint/test_verbs_lint_api_kinds.py calls each and checks that nothing changed.
"""

import argparse
import contextlib
import glob
import importlib
import inspect
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "torchdoctor", "verbs", "lint", "data")
OUT = os.path.join(DATA, "api_kinds.json")

# Modules whose public context-manager functions lint reports when called as a statement.
CM_MODULES = ("torch", "torch.amp", "torch.autograd", "torch.autograd.grad_mode", "torch.cuda", "torch.cuda.amp",
              "torch.cpu.amp", "torch.random", "torch.nn.attention", "torch.nn.utils.stateless",
              "torch.autograd.graph", "torch.autograd.forward_ad", "torch.overrides")
# Calls that only make an object whose __enter__ changes the state (their constructors store
# their arguments): `torch.cuda.device(1)` alone does not switch the device.
ACT_ON_ENTER = ("torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.autocast",
                "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
                "torch.autograd.no_grad", "torch.autograd.enable_grad", "torch.autograd.inference_mode",
                "torch.autograd.detect_anomaly", "torch.cuda.device", "torch.cuda.stream")
# Facts no installed torch can show: defaults of earlier releases, values of later ones.
DEFAULTS = {"torch.backends.cuda.matmul.allow_tf32": {
    "changes": [["1.7", True], ["1.12", False]],
    "source": "kb/data/compat.json torch.backends.cuda.matmul.allow_tf32 (from the shared reference): "
              "'Default False since 1.12'; torch 1.12.1 set_float32_matmul_precision docstring: 'highest' is "
              "the default and equals allow_tf32=False; True in 1.7-1.11"}}
EXTRA_VALUES = {"torch.backends.cuda.matmul.fp32_precision": {
    "values": ["bfx9"], "from": "2.15",
    "source": "kb/data/compat.json torch.backends.cuda.matmul.fp32_precision: 'bfx9' accepted for cuda/matmul "
              "only in 2.15"}}


def _resolve(path):
    import torch  # noqa: F401
    mod, _, attr = path.rpartition(".")
    try:
        obj = importlib.import_module(mod)
    except ImportError:
        obj = eval(mod, {"torch": sys.modules["torch"]})
    obj = sys.modules.get(mod, obj)
    return obj, attr


def _candidates(torch_dir, attr):
    """Strings torch's Python sources assign to or compare with `.attr`."""
    pat = re.compile(r"\.%s\s*(?:=|==|!=)\s*[\"']([\w.-]+)[\"']" % re.escape(attr))
    out = set()
    for path in glob.glob(os.path.join(torch_dir, "**", "*.py"), recursive=True):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        if attr in text:
            out.update(pat.findall(text))
    return out


def _probe(obj, attr, value, candidates):
    """The setting's entry: its type, and for a string every candidate torch accepts."""
    if isinstance(value, bool):
        return {"type": "bool"}
    if isinstance(value, int):
        return {"type": "int"}
    ok = []
    for c in sorted(candidates | {value}):
        try:
            setattr(obj, attr, c)
        except Exception:  # noqa: BLE001 - torch refused it
            continue
        finally:
            setattr(obj, attr, value)
        ok.append(c)
    return {"type": "str", "values": ok}


def settings(names, torch_dir):
    out = {}
    cands = {}

    def candidates(attr):
        if attr not in cands:
            cands[attr] = _candidates(torch_dir, attr)
        return cands[attr]

    for path, (kind, _, gone) in sorted(names.items()):
        if kind != "setting" or gone:
            continue
        try:
            obj, attr = _resolve(path)
            value = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - absent from this build
            continue
        if isinstance(value, (bool, int, str)):
            out[path] = _probe(obj, attr, value, candidates(attr) if isinstance(value, str) else set())
        elif isinstance(getattr(value, "fp32_precision", None), str):
            # an operator's precision object (cudnn.conv, mkldnn.matmul): its one setting
            out[path + ".fp32_precision"] = _probe(value, "fp32_precision", value.fp32_precision,
                                                   candidates("fp32_precision"))
    return dict(sorted(out.items()))


def _is_generator_cm(f):
    code = getattr(f, "__code__", None)
    wrapped = inspect.unwrap(f) if callable(f) else None
    return code is not None and code.co_filename == contextlib.__file__ and wrapped is not f and \
        inspect.isgeneratorfunction(wrapped)


def context_managers(names):
    import torch  # noqa: F401
    mods = list(CM_MODULES) + [p for p, (kind, _, gone) in names.items() if kind == "module" and not gone]
    out = {}
    for m in mods:
        try:
            mod = importlib.import_module(m)
        except ImportError:
            continue
        mod = sys.modules.get(m, mod)
        # a PropModule (torch.backends.cudnn) keeps its functions on the module it replaced
        for name in set(dir(mod)) | set(dir(getattr(mod, "m", mod))):
            if name.startswith("_"):
                continue
            try:
                f = getattr(mod, name)
            except Exception:  # noqa: BLE001
                continue
            if inspect.isfunction(f) and _is_generator_cm(f):
                out["%s.%s" % (m, name)] = "generator"
    for c in ACT_ON_ENTER:
        out[c] = "object"
    return dict(sorted(out.items()))


def aliases():
    """For each replacement the API history names: the other paths of the history that are the
    very same object in this torch (torch.amp.autocast is torch.autocast), which may exist in
    releases the replacement's own name does not."""
    import torch
    sys.path.insert(0, ROOT)
    from torchdoctor.verbs.lint import history as H
    by_id = {}
    for p in sorted(H.known_paths()):
        try:
            obj = eval(p, {"torch": torch})
        except Exception:  # noqa: BLE001 - not in this build
            continue
        if callable(obj) or isinstance(obj, type):
            by_id.setdefault(id(obj), []).append(p)
    out = {}
    for p in sorted(H.known_paths()):
        m = H.replacement_path(p)
        group = next((g for g in by_id.values() if m in g), []) if m else []
        if len(group) > 1:
            out[m] = [q for q in group if q != m]
    return out


def build():
    import torch
    with open(os.path.join(DATA, "backends_names.json"), encoding="utf-8") as f:
        names = json.load(f)["names"]
    torch_dir = os.path.dirname(torch.__file__)
    return {
        "_meta": {
            "about": "What kind of value a torch API is beyond its name (verbs/lint/api_kinds.py): the type a "
                     "torch.backends setting takes and the strings it accepts, which calls are context managers "
                     "that do nothing unless entered, and defaults that changed across releases.",
            "source": "tools/lint_api_kinds.py, asking torch %s: settings assigned each candidate value, "
                      "functions found to be @contextlib.contextmanager generators; 'object' entries listed by "
                      "hand and checked by tests/verbs/lint/test_verbs_lint_api_kinds.py" % torch.__version__,
            "torch": torch.__version__,
        },
        "settings": settings(names, torch_dir),
        "extra_values": EXTRA_VALUES,
        "context_managers": context_managers(names),
        "aliases": aliases(),
        "defaults": DEFAULTS,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    a = ap.parse_args(argv)
    text = json.dumps(build(), indent=1, sort_keys=False) + "\n"
    if a.check:
        with open(OUT, encoding="utf-8") as f:
            return 0 if f.read() == text else 1
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
