"""Files torch.load is given that are not what they claim: what their first byte says they are,
and pickles written under a newer NumPy.

The unpickler names the file's first byte when it is no pickle opcode ("invalid load key, 'x'",
or "Unsupported operand N" under the weights-only loader), so the message itself tells what
kind of file was opened: that byte is the fact these hooks read.
"""

import ast
from typing import Optional

from ..advice.commands import pip
from ..kb import compat
from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from .install.files import in_site_packages
from .optional_packages import dist_name, report_key
from .registry import Tailored, hook, match_groups

# What a file starting with this byte usually is (the LFS pointer 'v' and the HTML '<' have
# entries of their own).
_KINDS = (
    (lambda b: b == 0x1F, "a gzip-compressed file (a .gz/.tgz archive or a compressed download): decompress it first"),
    (lambda b: b == 0x00, "a file starting with zero bytes: a preallocated download that never finished, or a "
                          "safetensors file (its first 8 bytes are a little-endian length): load .safetensors "
                          "with safetensors.torch.load_file"),
    (lambda b: b in (0x7B, 0x5B), "a JSON text (a config or an API's error reply saved as the file)"),
    (lambda b: b in (0x0A, 0x0D, 0x09, 0x20) or 0x21 <= b <= 0x7E,
     "a text file (a README, a pointer or redirect file, an error message saved by the downloader), or a "
     "safetensors file, whose first byte is the low byte of its header length (load .safetensors with "
     "safetensors.torch.load_file)"),
)
_OTHER = ("binary data in another format (safetensors, ONNX, TensorFlow/Keras, a GGUF or other model file), or a "
          "download damaged on the way")


def first_byte(match) -> Optional[int]:
    """The file's first byte as the message names it: the operand number, or the load key
    (a character or a Python escape such as '\\x0a')."""
    g = match_groups(match)
    if g.get("op", "").isdigit():
        return int(g["op"]) if int(g["op"]) < 256 else None
    key = g.get("key")
    if not key:
        return None
    if len(key) == 1:
        return ord(key)
    try:
        value = ast.literal_eval("'%s'" % key)
    except (ValueError, SyntaxError):
        return None
    return ord(value) if isinstance(value, str) and len(value) == 1 and ord(value) < 256 else None


def describe_byte(b: int) -> str:
    for test, kind in _KINDS:
        if test(b):
            return kind
    return _OTHER


@hook("checkpoint-first-byte")
def checkpoint_first_byte(match, facts: Facts) -> Optional[Tailored]:
    b = first_byte(match)
    if b is None:
        return None
    shown = repr(chr(b)) if 0x21 <= b <= 0x7E else "0x%02x" % b
    return Tailored(cause="The file's first byte is %s (%d), so it is most likely %s." % (shown, b, describe_byte(b)),
                    notes=["first byte of the file, as the unpickler reported it: %s" % shown])


@hook("pickle-newer-numpy")
def pickle_newer_numpy(match, facts: Facts) -> Optional[Tailored]:
    np_v = F.package_version(facts, "numpy")
    v = F.parse_version(np_v)
    if v is None:
        return None
    notes = ["NumPy %s is installed" % np_v]
    if v.major >= 2:
        return Tailored(summary="NumPy %s here has numpy._core, so the failing load ran in another interpreter or "
                                "environment (one with NumPy 1.x): run it with this one, or upgrade NumPy there." % np_v,
                        commands=['python -c "import sys, numpy; print(sys.executable, numpy.__version__)"'],
                        notes=notes)
    tv, os_ = F.torch_version_str(facts), F.os_name(facts)
    if tv and compat.numpy2_supported(tv, os_) is False:
        notes.append("torch %s was built for NumPy 1.x" % tv)
        return Tailored(summary="NumPy %s cannot read numpy._core pickles, and torch %s here was built for NumPy 1.x, "
                                "so upgrading NumPy alone would break torch's NumPy bridge: re-save the file under "
                                "NumPy 2 as tensors or plain Python values, or move to a torch built for NumPy 2 "
                                "together with NumPy 2." % (np_v, tv), commands=[], notes=notes)
    return Tailored(summary="Upgrade NumPy %s to 2.x (torch %s supports it), then load the file again."
                            % (np_v, tv or "here"),
                    commands=[pip(facts, 'install "numpy>=2"')], notes=notes)


@hook("pickled-class-missing")
def pickled_class_missing(match, facts: Facts) -> Optional[Tailored]:
    """Whose module the class was looked up in: the running script's, the user's own code
    (a path outside site-packages), torch's, or an installed library's, with its version."""
    g = match_groups(match)
    cls, mod, path = g.get("cls"), g.get("mod"), g.get("path") or ""
    if not cls or not mod:
        return None
    if mod == "__main__":
        return Tailored(summary="'%s' was defined in the main script (or notebook) of the process that pickled it, and "
                                "the one loading it does not define it: import or define %s before torch.load, or "
                                "re-save the model's state_dict and load that into a model built in code. In DataLoader "
                                "workers started with spawn (Windows, macOS, notebooks), move the class into a .py "
                                "module and import it." % (cls, cls))
    top = mod.split(".")[0]
    if path and not in_site_packages(path):
        return Tailored(summary="%s here is your own code (%s), not an installed library, and it has no %s: the file was "
                                "written by another version of that code, or another '%s' folder comes first on "
                                "sys.path. Use the code version that saved it, run from its root, or re-save the "
                                "state_dict." % (mod, path, cls, top))
    if top == "torch":
        tv = F.torch_version_str(facts) or "here"
        return Tailored(summary="torch %s has no %s.%s: the file was pickled by another torch release. Load it with "
                                "the release that wrote it and re-save its state_dict, which any release reads."
                                % (tv, mod, cls))
    dist = report_key(dist_name(top))  # the distribution's name: torch-geometric, scikit-learn
    installed = F.package_version(facts, dist)
    if installed is None:
        return Tailored(summary="The file was written with %s.%s: install the release of %s that wrote it."
                                % (mod, cls, dist))
    return Tailored(summary="%s %s is installed and its %s has no %s: the file was written by another release of %s. "
                            "Install that release, or, for a cached file, delete it so %s regenerates it."
                            % (dist, installed, mod, cls, dist, dist),
                    notes=["installed %s: %s" % (dist, installed)])


# torch 2.13's backport stops here: asked for 3 it answers False (measured).
_OLDEST_BACKPORT = 4


@hook("lite-interpreter-backport")
def lite_interpreter_backport(match, facts: Facts) -> Optional[Tailored]:
    """The runtime's newest bytecode version, from the message: backport the model to it (with
    the torch that exported it), or say that only a newer runtime reads it."""
    g = match_groups(match)
    try:
        oldest, newest, saved = int(g["min"]), int(g["max"]), int(g["file"])
    except (KeyError, TypeError, ValueError):
        return None
    notes = ["the app's runtime reads bytecode %d to %d; the model is %d" % (oldest, newest, saved)]
    if saved < oldest:
        return Tailored(cause="Here it is the other way round: the model is older than the oldest version this runtime "
                              "reads.",
                        summary="Export the model again with a torch of the app runtime's release (or newer) and ship "
                                "that file.", notes=notes)
    if saved <= newest:
        return None
    if newest < _OLDEST_BACKPORT:
        return Tailored(summary="This runtime reads no version torch can write today (backporting stops at %d): raise "
                                "the app's PyTorch Mobile runtime to the release of the torch that exported the model."
                                % _OLDEST_BACKPORT, notes=notes)
    out = "model_v%d.ptl" % newest
    return Tailored(summary="Raise the app's PyTorch Mobile runtime to the release of the torch that exported the "
                            "model, or rewrite the model as version %d with that torch (it prints True when it could) "
                            "and ship %s." % (newest, out),
                    commands=["python -c \"from torch.jit.mobile import _backport_for_mobile as b; "
                              "print(b('model.ptl', '%s', %d))\"" % (out, newest),
                              "python -c \"from torch.jit.mobile import _get_model_bytecode_version as v; "
                              "print(v('%s'))\"" % out],
                    notes=notes)


@hook("module-pickle-torch-1-6")
def module_pickle_torch_1_6(match, facts: Facts) -> Optional[Tailored]:
    """Only torch 1.6.0 leaves the attribute out when unpickling a module saved by 1.5 or older:
    the installed torch says whether that is the torch here."""
    have = F.torch_base_version(facts)
    if not have:
        return None
    notes = ["installed torch: %s" % F.torch_version_str(facts)]
    if V.older(have, "1.6"):
        return Tailored(summary="torch %s here predates the attribute, so it cannot print this: the failing process ran "
                                "torch 1.6.0 (another environment)." % have, notes=notes)
    if have.startswith("1.6."):
        return Tailored(summary="torch %s here is the release that cannot unpickle such a module: upgrade torch to 1.7 "
                                "or newer (with the torchvision that matches), or re-save the model's state_dict."
                                % have, notes=notes)
    return Tailored(summary="torch %s here fills the attribute in when unpickling: the failing process ran torch 1.6.0 "
                            "(another environment), or the module's class defines __setstate__ without calling "
                            "super().__setstate__(state)." % have, notes=notes)
