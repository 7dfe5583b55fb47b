"""API errors of names that moved, appeared or were removed between torch releases, and
what the other API areas (backends_api, serialization) share for that question.

The pattern is always the same: the error names an API; the installed torch version says
whether that API is *too new* for it (upgrade), *present* (so the failing process imported
another torch), or *deprecated* (show the replacement).
"""

import re
from typing import Dict, List, Optional, Tuple

from ..advice import install_advice, installable_releases, newest_installable
from ..advice.commands import WHL, pip, which_import
from ..model.facts import Facts
from ..model import derived as F
from ..model import versions as V
from ..kb import compat
from ..kb import torch_modules
from .companions.common import python_minor
from .registry import Tailored, hook, installed_torch_note, match_groups


# API -> (first release that has it, where that fact comes from). Only names
# whose first release a public source states.
NEWER_APIS: Dict[str, Tuple[str, str]] = {
    "torch.compile": ("2.0", "PyTorch 2.0 introduced torch.compile (pytorch/pytorch#90137)"),
    "torch.version.xpu": ("2.6", "added by pytorch/pytorch#139466, first released in 2.6 (huggingface/kernels#165: "
                                 "'torch.version has no xpu field in torch<=2.6')"),
    "torch.frombuffer": ("1.10", "added by pytorch/pytorch#59077; rlaphoenix/VSGAN#19 (needs torch 1.10.0 or newer)"),
    "torch.compiler.is_compiling": ("2.3", "listed in the torch.compiler API reference from 2.3; absent in 2.2.2 (NVIDIA/apex#1857)"),
    "torch.linalg.lstsq": ("1.9", "thuml/Time-Series-Library#552 (introduced in torch 1.9.0)"),
    "torch.linalg.solve": ("1.8", "kail8/UnsupDIS-pytorch#17 (supported from pytorch 1.8.0)"),
    "torch.utils._pytree.register_pytree_node": ("2.2", "pytorch/pytorch#112111 (public name added, private one deprecated in 2.2)"),
    "torch.serialization.add_safe_globals": ("2.4", "pytorch/xla#7799 (add_safe_globals in torch 2.4)"),
    "torch.serialization.get_safe_globals": ("2.4", "torch/_weights_only_unpickler.py (added with add_safe_globals)"),
    "torch.serialization.clear_safe_globals": ("2.4", "torch/_weights_only_unpickler.py (added with add_safe_globals)"),
    "torch.serialization.safe_globals": ("2.5", "pytorch/pytorch#127939; pytorch/xla#7799 (context manager after 2.4)"),
    "torch.load(weights_only=...)": ("1.13", "pytorch/pytorch#86812, cherry-picked into 1.13"),
    "torch.nn.attention": ("2.3", "backends_api.json: torch.nn.attention absent in 2.2.2, present in 2.3.1"),
    "torch.backends.cuda.sdp_kernel": ("1.13", "backends_api.json static scan of released wheels"),
    "torch.mps (imported by import torch)": ("2.1", "pytorch/pytorch#100165, fixed by #98837 after 2.0"),
    "torch.ao.quantization": ("1.10", "AO migration PRs pytorch/pytorch#64086 (Aug 2021) .. #66058; torch 1.9.1 lacks it (facebookresearch/d2go#127)"),
    "torch.ao": ("1.10", "AO migration PRs pytorch/pytorch#64086 (Aug 2021) .. #66058; torch 1.9.1 lacks it (facebookresearch/d2go#127)"),
    "torch.meshgrid(indexing=...)": ("1.10", "in the 1.10 docs of torch.meshgrid, not in 1.9.1's (Megvii-BaseDetection/YOLOX#1168)"),
    "torch.hub.load(repo_or_dir=...)": ("1.7", "pytorch/pytorch#44204 (Sep 2020) renamed torch.hub.load's first "
                                               "argument from github to repo_or_dir and added source=; released in 1.7"),
    "torch.nn.functional.interpolate(antialias=...)": ("1.11", "first in the 1.11 docs (facebookresearch/dinov2#425); "
                                                               "huggingface/transformers#24270"),
    # torchvision's own keyword: its first release with it is built for one torch release, which the hook compares
    "torchvision.io.read_video(output_format=...)": ("1.12", "torchvision 0.13.0, built for torch 1.12, is the first "
                                                             "with it (io/video.py of the 0.12.0 and 0.13.0 wheels)"),
}


# -- helpers ---------------------------------------------------------------------
def code_block(text: str) -> str:
    """Indent a code block so it reads as one under the "Fix:" line."""
    return "\n".join("      " + line for line in text.splitlines())


def has_at_least(installed, need: str) -> bool:
    """installed >= need, comparing release numbers only (2.3.0a0 counts as 2.3)."""
    return tuple(installed.release[:3]) >= tuple(F.parse_version(need).release)


def _minor(v) -> str:
    return "%d.%d" % (v.release[0], v.release[1] if len(v.release) > 1 else 0)


def _upgrade_target(facts: Facts) -> str:
    """Newest release with wheels for the target Python and platform (an Intel Mac stops at
    2.2), else the newest release."""
    if isinstance(facts.value("python.version"), str):
        newest = newest_installable(facts)
        if newest:
            return newest
    return compat.latest_release()


def upgrade(facts: Facts, need: str) -> Tuple[List[str], str]:
    """Commands that put a torch >= `need` into the target environment."""
    target = _upgrade_target(facts)
    adv = install_advice(facts, version=target)
    cmds = list(adv.commands)
    if not cmds:
        cmds = ["%s install --upgrade \"torch>=%s\"" % (F.pip_cmd(facts), need)]
    return cmds, target


def too_old(facts: Facts, what: str, need: str, notes: List[str], extra: str = "") -> Tailored:
    cmds, target = upgrade(facts, need)
    return Tailored(
        summary="The installed torch %s predates %s (first in torch %s): upgrade torch to %s or newer "
                "(the commands install %s, the newest release for this Python)%s."
                % (F.torch_version_str(facts), what, need, need, target, extra),
        commands=cmds, notes=notes)


def present(facts: Facts, what: str, notes: List[str], extra: str = "") -> Tailored:
    return Tailored(
        summary="No upgrade needed here: find which torch the failing program really imports (run the first "
                "command with the same interpreter and working directory as the program), then remove or update "
                "that copy, or run the program with %s." % facts.value("python.executable", "this Python"),
        cause="The torch installed in %s (%s) does have %s, so the process that failed imported a different, "
              "older torch: another virtual environment, a stale copy earlier on sys.path, or a vendored/frozen "
              "torch.%s" % (facts.value("python.executable", "this Python"), F.torch_version_str(facts), what, extra),
        commands=[which_import(facts, "torch"), "%s show torch" % F.pip_cmd(facts)], notes=notes)


def version_or_none(facts: Facts):
    v = F.torch_version(facts)
    return v, installed_torch_note(facts)


# -- other torch APIs ---------------------------------------------------------------
def _api_by_name(name: str) -> Optional[Tuple[str, str]]:
    return NEWER_APIS.get(name)


@hook("newer-api")
def newer_api(match, facts: Facts) -> Optional[Tailored]:
    """The error names an API newer than some torch: upgrade or find the other torch."""
    g = match_groups(match)
    mod, attr = g.get("mod") or "torch", g.get("attr")
    name = "%s.%s" % (mod, attr) if attr else mod
    if g.get("hubarg"):  # an older torch.hub.load still calls its first argument `github`
        name = "torch.hub.load(repo_or_dir=...)"
    elif g.get("kw"):
        # NEWER_APIS holds keyword arguments as "module.function(keyword=...)"; the message names the function alone
        name = next((k for k in NEWER_APIS if k.endswith(".%s(%s=...)" % (g.get("kwfn"), g["kw"]))), name)
    known = _api_by_name(name)
    if known and name in TORCHVISION_SPAN:
        return _torchvision_api(facts, name, known)
    v, notes = version_or_none(facts)
    if not known or v is None:
        return None
    need, src = known
    notes = notes + ["%s first appeared in torch %s (%s)" % (name, need, src)]
    if not has_at_least(v, need):
        return too_old(facts, name, need, notes)
    return present(facts, name, notes)


# torchvision's own APIs: the torchvision release that added each (NEWER_APIS holds the torch it is built for),
# and the last torch whose torchvision still has it (torchvision 0.26, for torch 2.11, removed video decoding).
TORCHVISION_SPAN = {"torchvision.io.read_video(output_format=...)": ("0.13", "2.10")}


def _within(torch, need: str, until: Optional[str]) -> bool:
    """torch's release (a parsed version) is from `need` up to the minor `until` (no end: None)."""
    return has_at_least(torch, need) and (until is None or not has_at_least(torch, _next_minor(until)))


def _capped_upgrade(facts: Facts, need: str, until: str) -> Tuple[List[str], str]:
    """Commands for the newest torch in [need, until] with wheels for this Python (and its
    torchvision): past `until` the API is gone again."""
    fits = [m for m in installable_releases(facts) if _within(F.parse_version(m), need, until)]
    target = compat.latest_patch(fits[0]) if fits else None
    if not target:
        return [], None  # no release in the range has wheels for this Python and platform
    companions = ["torchvision"] + (["torchaudio"] if F.package_installed(facts, "torchaudio") else [])
    return list(install_advice(facts, version=target, companions=companions).commands), target


# Local tags download.pytorch.org names an index after (a +cu116 torch's torchvision is on .../whl/cu116).
_VARIANT_TAG = re.compile(r"(?:cu\d{2,4}|cpu|rocm\d{1,2}(?:\.\d{1,2}){0,2}|xpu)")


def _torchvision_for_this_torch(facts: Facts) -> List[str]:
    """pip's command for the torchvision released with the installed torch, held at its own build
    (pip would otherwise pick the series' newest torchvision, which pins another torch), from the
    index of its variant; none for a pre-release or a build of its own (NGC, source), which no
    released torchvision pins."""
    torch, local = F.torch_version_str(facts), F.local_tag(facts)
    v = F.parse_version(torch.split("+", 1)[0])
    tv = compat.matching_torchvision(torch)
    if not tv or v is None or v.is_prerelease or (local and not _VARIANT_TAG.fullmatch(local)):
        return []
    spec = "torchvision==%s" % tv if tv.count(".") >= 2 else "torchvision==%s.*" % tv
    index = " --index-url %s/%s" % (WHL, local) if local else ""
    return [pip(facts, 'install "%s" "torch==%s"%s' % (spec, torch, index))]


def _torchvision_api(facts: Facts, name: str, known: Tuple[str, str]) -> Optional[Tailored]:
    """A torchvision API: read against the installed torchvision (pip upgrades torch alone and
    leaves an older torchvision beside it); against torch only when torchvision is unknown."""
    (since, until), (need, src) = TORCHVISION_SPAN[name], known
    tv = F.package_release(facts, "torchvision")
    notes = ["%s first appeared in torchvision %s (%s)" % (name, since, src)]
    if tv is None:
        v, torch_notes = version_or_none(facts)
        if v is None or has_at_least(v, need):
            return None  # a new torch says nothing of the torchvision beside it
        have, notes = "torch %s" % F.torch_version_str(facts), torch_notes + notes
    elif V.older(tv, since):
        have, notes = "torchvision %s" % tv, ["installed torchvision: %s" % tv] + notes
    else:
        return Tailored(summary="torchvision %s here has %s: the failing process imported another, older torchvision "
                                "(another environment, or a stale copy earlier on sys.path)." % (tv, name),
                        commands=[which_import(facts, "torchvision")], notes=["installed torchvision: %s" % tv] + notes)
    torch = F.torch_version(facts)
    if tv is not None and torch is not None and _within(torch, need, until):
        # this torch has a torchvision with it: only torchvision moves
        cmds = _torchvision_for_this_torch(facts)
        if not cmds:
            return Tailored(summary="The installed %s predates %s (first in torchvision %s), and this torch %s is a "
                                    "pre-release or a build of its own (a container's, a source build) that no released "
                                    "torchvision pins: build torchvision from source against it, or use the torchvision "
                                    "its container ships." % (have, name, since, F.torch_version_str(facts)),
                            commands=[], notes=notes)
        return Tailored(summary="The installed %s predates %s (first in torchvision %s): install the torchvision built "
                                "for this torch %s, which has it; torch stays." % (have, name, since,
                                                                                   F.torch_version_str(facts)),
                        commands=cmds, notes=notes)
    cmds, target = _capped_upgrade(facts, need, until)
    if not target:
        return Tailored(summary="The installed %s predates %s (first in torchvision %s, built for torch %s), and no torch "
                            "from %s to %s has wheels for this Python (%s): use a Python those releases support."
                            % (have, name, since, need, need, until, F.python_minor(facts)), commands=[], notes=notes)
    return Tailored(summary="The installed %s predates %s (first in torchvision %s, built for torch %s): upgrade torch and "
                            "torchvision together (the commands install torch %s and its torchvision; torchvision 0.26, "
                            "for torch 2.11, removed video decoding)." % (have, name, since, need, target),
                    commands=cmds, notes=notes)


@hook("torch-module-history")
def torch_module_history(match, facts: Facts) -> Optional[Tailored]:
    """`No module named 'torch.X'` for a module the wheels date: too old (upgrade), removed since
    (the code wants an older torch), or shipped by the installed torch (another torch failed)."""
    g = match_groups(match)
    mod = g.get("mod")
    if not mod or "" in mod.split("."):
        return None
    runs, pre = torch_modules.runs(mod), torch_modules.removed_in_1_0(mod)
    if not runs and not pre:
        return _not_a_torch_module(mod) if "generic" in g else None
    v, notes = version_or_none(facts)
    first_read = torch_modules.releases()[0]
    if v is not None and not has_at_least(v, first_read):
        return None  # a torch older than any wheel read (0.4): the data cannot say
    shipped = ", ".join("every release" if (a, b) == (first_read, None) else "%s%s" % (
        "%s or earlier" % a if a == first_read else a, " to %s" % b if b and b != a else "" if b else " and later")
        for a, b in runs)
    notes = notes + ["%s ships with torch %s (the wheels' file lists)" % (mod, shipped) if runs else
                     "%s was removed in torch 1.0" % mod]
    if pre and (not runs or v is None or not has_at_least(v, runs[0][0])):
        # what the code means is torch 0.4's module; a later module of that name is another one
        said = torch_modules.stub(mod)
        return Tailored(summary="%s was removed in torch 1.0%s, so the code was written for torch 0.4 or older: port it "
                                "to a current API, or run it with torch 0.4%s." % (
                                    mod, " (later releases kept a stub that only raises: %s)" % said if said else "",
                                    "; torch %s's module of that name is another one" % runs[0][0] if runs else ""),
                        commands=[], notes=notes)
    if v is None:
        return Tailored(summary="%s ships with torch %s: run the code with a torch of that range (this machine's torch is "
                                "not the one that failed, or none is installed)." % (mod, shipped), commands=[],
                        notes=notes)
    have = _minor(v)
    if any(_within(v, a, b) for a, b in runs):
        return present(facts, mod, notes)
    if not has_at_least(v, runs[0][0]):
        return too_old(facts, mod, runs[0][0], notes)
    last = runs[-1][1]
    if last is not None and has_at_least(v, _next_minor(last)):
        return Tailored(summary="torch %s no longer has %s (its last release with it is %s): the code was written for "
                                "an older torch. Update the code or the library that imports it (a release made for "
                                "this torch), or run it with torch %s or older." % (
                                    F.torch_version_str(facts), mod, last, last), commands=[], notes=notes)
    return Tailored(summary="torch %s is one of the releases without %s (it ships with torch %s): install a release "
                            "that has it, or update the code." % (have, mod, shipped), commands=[], notes=notes)


def _next_minor(minor: str) -> str:
    major, _, m = minor.partition(".")
    return "%s.%d" % (major, int(m) + 1)


def _not_a_torch_module(mod: str) -> Optional[Tailored]:
    """A dotted name no torch release ships as a module, under a submodule that is one: `import
    a.b.f` of a function or class (Python imports modules only that way), or a misspelt name. A name
    right under torch (torch.npu) may be a backend a plugin package adds: left to the entry."""
    parts = mod.split(".")
    if len(parts) < 3:
        return None
    parent = next((".".join(parts[:i]) for i in range(len(parts) - 1, 1, -1)
                   if torch_modules.runs(".".join(parts[:i]))), None)
    if parent is None:
        return None
    leaf = parts[len(parent.split("."))]
    rel = torch_modules.releases()
    return Tailored(summary="No torch release from %s to %s has a module `%s`, while `%s` is one: if `%s` is a function "
                            "or class, import it with `from %s import %s` (`import a.b.c` takes modules only); else "
                            "check the name." % (rel[0], rel[-1], mod, parent, leaf, parent, leaf),
                    commands=[], notes=[])


@hook("torch-compile-missing")
def torch_compile_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if not has_at_least(v, "2.0"):
        return too_old(facts, "torch.compile", "2.0", notes,
                        "; or drop the torch.compile() call, which only speeds the model up")
    return present(facts, "torch.compile (added in 2.0)", notes)


@hook("pytree-public-missing")
def pytree_public_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if has_at_least(v, "2.2"):
        return present(facts, "torch.utils._pytree.register_pytree_node (public since 2.2)", notes)
    cmds, target = upgrade(facts, "2.2")
    tf = F.package_version(facts, "transformers")
    if tf:
        notes = notes + ["installed transformers: %s" % tf]
    return Tailored(
        summary="torch %s only has the private _register_pytree_node; the library calling register_pytree_node "
                "(usually transformers) needs torch 2.2 or newer. Upgrade torch (the commands install %s), or pin "
                "that library to a release that still supports torch %s."
                % (F.torch_version_str(facts), target, _minor(v)),
        commands=cmds, notes=notes)


@hook("torch-six-removed")
def torch_six_removed(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if has_at_least(v, "2.0"):
        return Tailored(
            cause="torch %s has no torch._six at all (it was removed in 2.0), so every `from torch._six import ...` "
                  "fails; the library doing the import predates torch 2.0." % F.torch_version_str(facts),
            notes=notes)
    return None


# -- TensorRT ------------------------------------------------------------------------
# (class, attribute) -> the TensorRT major release that removed it. The 8.0 removals are the Builder's
# own settings (moved to IBuilderConfig); the 10.0 ones are build_engine, the implicit batch and the
# binding-index API (NVIDIA's 8.x-to-10.x migration guide lists them with their replacements).
TRT_REMOVED: Dict[Tuple[str, str], int] = {
    **{("Builder", a): 8 for a in ("build_cuda_engine", "max_workspace_size", "fp16_mode", "int8_mode",
                                   "int8_calibrator", "strict_type_constraints")},
    ("Builder", "build_engine"): 10, ("Builder", "max_batch_size"): 10, ("IBuilderConfig", "max_workspace_size"): 10,
    **{("ICudaEngine", a): 10 for a in ("get_binding_shape", "get_binding_dtype", "binding_is_input", "num_bindings",
                                        "get_binding_index", "get_binding_name", "max_batch_size")},
    **{("IExecutionContext", a): 10 for a in ("execute_async_v2", "set_binding_shape", "execute_async")},
}
# PyPI's TensorRT 10 is a stub over the tensorrt-cuXX packages; a pin below 10 leaves them installed unless they go first.
TRT_PACKAGES = ("tensorrt", "tensorrt-cu11", "tensorrt-cu11-bindings", "tensorrt-cu11-libs", "tensorrt-cu12",
                "tensorrt-cu12-bindings", "tensorrt-cu12-libs", "tensorrt-cu13", "tensorrt-cu13-bindings", "tensorrt-cu13-libs")


@hook("tensorrt-api-removed")
def tensorrt_api_removed(match, facts: Facts) -> Optional[Tailored]:
    """The removing release against the installed TensorRT: port the call, or go below that release
    where PyPI still has one for this Python."""
    g = match_groups(match)
    cls, attr = g.get("cls"), g.get("attr")
    removed = TRT_REMOVED.get((cls, attr))
    if removed is None:
        return None
    installed = next(filter(None, (F.package_version(facts, n) for n in TRT_PACKAGES)), None)
    name = "%s.%s" % (cls, attr)
    notes = ["TensorRT %d.0 removed %s" % (removed, name)]
    if installed:
        notes.append("this interpreter has tensorrt %s" % installed)
        v = F.parse_version(installed)
        if v is not None and v.release and v.release[0] < removed:
            return Tailored(summary="This interpreter's TensorRT %s still has %s (removed in %d.0): the failing process "
                                    "imported a newer TensorRT, from another environment." % (installed, name, removed),
                            commands=[which_import(facts, "tensorrt")],
                            notes=notes)
    if removed == 8:
        return Tailored(summary="%s is gone from TensorRT 8.0 on, and PyPI offers no TensorRT 7: port the call (the "
                                "settings moved to IBuilderConfig, the build to build_serialized_network)." % name,
                        commands=[], notes=notes)
    py = python_minor(facts)
    if py and py >= (3, 12):
        return Tailored(summary="%s is gone from TensorRT 10.0 on, and TensorRT 8's packages stop at Python 3.11 (this "
                                "is %d.%d): port the call to the replacement NVIDIA's migration guide names." % ((name,) + py),
                        commands=[], notes=notes)
    return Tailored(summary="%s is gone from TensorRT 10.0 on: port the call, or replace the TensorRT 10 packages with "
                            "TensorRT 8.6 (remove them first: PyPI's tensorrt 10 is a stub over tensorrt-cu11/12/13 packages)." % name,
                    commands=["%s uninstall -y %s" % (F.pip_cmd(facts), " ".join(TRT_PACKAGES)),
                              '%s install "tensorrt<10"' % F.pip_cmd(facts)], notes=notes)


@hook("numpy2-attribute-removed")
def numpy2_attribute_removed(match, facts: Facts) -> Optional[Tailored]:
    """NumPy 2.0 removed the name: the installed NumPy says whether that is the NumPy here (pin
    below 2, or upgrade the package whose frame uses the name) or another process's."""
    name = match_groups(match).get("name") or "that name"
    have = F.package_release(facts, "numpy")
    parsed = F.parse_version(have) if have else None
    pip = F.pip_cmd(facts)
    notes = ["installed numpy: %s" % (F.package_version(facts, "numpy") or "not installed")]
    if parsed is not None and parsed.release[0] < 2:
        return Tailored(summary="numpy %s here still has `np.%s`: the failing process imported a NumPy 2 from another "
                                "environment (compare the numpy path in its traceback with this one)." % (have, name),
                        commands=[which_import(facts, "numpy")], notes=notes)
    removed = "NumPy 2.0 removed `np.%s`%s" % (name, " (numpy %s is installed)" % have if have else "")
    py = python_minor(facts)
    if py is not None and py >= (3, 13):
        # numpy 1.26, the last 1.x, has wheels up to Python 3.12: the pin would build from source
        return Tailored(summary="%s: upgrade the package whose frame uses it to its NumPy 2 release. Pinning numpy "
                                "below 2 needs Python 3.12 or older (numpy 1.26 has no wheels for Python %d.%d)."
                                % (removed, py[0], py[1]), commands=[], notes=notes)
    return Tailored(summary="%s: upgrade the package whose frame uses it (its NumPy 2 release), or pin numpy below 2 "
                            "where that package has none." % removed,
                    commands=['%s install "numpy<2"' % pip], notes=notes)
