"""torch.load / torch.save: the weights_only default of 2.6 and its safe globals.
"""

import re
from typing import Optional

from ..model.facts import Facts
from ..model import derived as F
from ..advice.commands import which_import
from .registry import Tailored, hook, match_groups
from .api import NEWER_APIS, code_block, has_at_least, present, too_old, version_or_none



# -- torch.load weights_only --------------------------------------------------------
def _global_name(match) -> Optional[str]:
    g = match_groups(match).get("glob")
    return g.strip().rstrip(".") if g else None


# Docker's own wording when unpacking an image layer or writing its storage fills its disk (Go's
# error, lower case), and the paths of its data root.
_DOCKER_LAYER = re.compile(r"ApplyLayer|failed to register layer|Error processing tar file|Error response from daemon|"
                           r"/var/lib/docker/|/var/lib/containerd/|overlay2/|containerd\.io")


@hook("disk-full")
def disk_full(match, facts: Facts) -> Optional[Tailored]:
    """The line says which disk: Docker's data root when an image layer was being unpacked or its
    storage written."""
    if not _DOCKER_LAYER.search(getattr(match, "text", "") or ""):
        return None
    return Tailored(summary="Docker ran out of disk while unpacking an image layer: the file system of Docker's data "
                            "root (/var/lib/docker, or Docker Desktop's virtual disk) is full, whatever the host's "
                            "other disks have. Free it (docker system prune removes stopped containers, unused images "
                            "and build cache), move the data root to a bigger disk, or make the image smaller: when the "
                            "image needs no GPU, torch from https://download.pytorch.org/whl/cpu leaves out the several "
                            "GB of CUDA libraries.",
                    commands=["docker system df", "docker system prune", 'docker info -f "{{.DockerRootDir}}"'],
                    notes=["Docker was unpacking an image layer"])


@hook("weights-only-failed")
def weights_only_failed(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    fallback = "torch.load(path, weights_only=False)  # only for a checkpoint from a source you trust"
    groups = match_groups(match)
    # The operand on a line of its own (torch 2.6+), or inside the error's detail (older layouts).
    inline = re.match(r"Unsupported operand (\d+)", groups.get("detail") or "")
    operand = groups.get("operand") or (inline.group(1) if inline else None)
    if operand:
        detail = "Unsupported operand %s" % operand
        # An instruction, not a class: an old pickle protocol, or no pickle at all (a Git LFS
        # pointer's 'v' is 118). The file's first bytes tell them apart; nothing to allowlist.
        return Tailored(
            summary="The weights-only reader stopped at a pickle instruction it does not implement (%s), not at a "
                    "class: an old checkpoint (pickled with protocol 4 or 5, or in an old legacy layout), or a file that is no "
                    "checkpoint at all (118 is 'v', the first byte of a Git LFS pointer). Look at its first bytes: "
                    "b'version https://git-lfs' means the weights were never downloaded (git lfs pull); otherwise, if "
                    "you trust the file:\n%s" % (detail, code_block(fallback)),
            commands=["%s -c \"import sys; print(open(sys.argv[1], 'rb').read(120))\" model.pt" % F.python_cmd(facts)],
            notes=notes)
    if v is None:
        return None
    g = _global_name(match)
    code = []
    if g:
        mod, _, name = g.rpartition(".")
        if mod.startswith("numpy.core") or mod.startswith("numpy._core"):
            # numpy 2 renamed numpy.core -> numpy._core; pass the checkpoint's spelling
            # explicitly (tuple form, pytorch/pytorch#142153).
            code.append("import numpy, torch\n"
                        "fn = getattr(numpy._core.multiarray if hasattr(numpy, '_core') else numpy.core.multiarray, %r)\n"
                        "torch.serialization.add_safe_globals([(fn, %r)])" % (name, g))
        elif mod:
            code.append("import torch\nfrom %s import %s\ntorch.serialization.add_safe_globals([%s])" % (mod, name, name))
    if has_at_least(v, "2.6"):
        head = ("torch %s loads with weights_only=True unless the caller says otherwise (the default flipped in "
                "2.6), so checkpoints that pickle more than tensors now stop here." % F.torch_version_str(facts))
    else:
        head = ("torch %s still defaults to weights_only=False, so the code (or TORCH_FORCE_WEIGHTS_ONLY_LOAD=1) "
                "asked for weights_only=True explicitly." % F.torch_version_str(facts))
        if not has_at_least(v, "2.4"):
            head += " This torch has no add_safe_globals (2.4+): upgrade, or load with weights_only=False."
            code = []
    if code:
        summary = head + ("\nAllowlist what the checkpoint needs, if you trust it:\n%s\nor, last resort:\n%s"
                          % (code_block("\n".join(code)), code_block(fallback)))
    elif has_at_least(v, "2.4"):
        summary = head + ("\nIf you trust the file, allowlist each global named after 'Unsupported global: GLOBAL' in "
                          "the message (import it, then torch.serialization.add_safe_globals([TheClass])) and load "
                          "again; or, last resort:\n%s" % code_block(fallback))
    else:
        summary = head + "\nIf you trust the file:\n%s" % code_block(fallback)
    return Tailored(summary=summary, commands=[], notes=notes)


@hook("weights-only-warning")
def weights_only_warning(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if has_at_least(v, "2.6"):
        return Tailored(
            cause="This FutureWarning is printed by torch 2.4 and 2.5; the installed torch is %s, where the default "
                  "already is weights_only=True, so the warning came from another environment (and code that "
                  "relied on the old default will fail there with 'Weights only load failed')."
                  % F.torch_version_str(facts),
            commands=[which_import(facts, "torch")], notes=notes)
    if has_at_least(v, "2.4"):
        return Tailored(
            cause="torch %s warns because the default will flip to weights_only=True in 2.6; code that loads "
                  "whole pickled objects will then fail unless it passes weights_only=False or allowlists its "
                  "classes with torch.serialization.add_safe_globals." % F.torch_version_str(facts),
            notes=notes)
    return Tailored(cause="torch %s never prints this warning (it was added in 2.4): it came from another environment."
                    % F.torch_version_str(facts), commands=[which_import(facts, "torch")], notes=notes)


@hook("weights-only-kwarg")
def weights_only_kwarg(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    need = NEWER_APIS["torch.load(weights_only=...)"][0]
    if not has_at_least(v, need):
        return too_old(facts, "torch.load(weights_only=...)", need, notes,
                        "; older torch passes unknown keywords on to pickle's Unpickler, which rejects them")
    return present(facts, "torch.load(weights_only=...) (since %s)" % need, notes)


@hook("safe-globals-missing")
def safe_globals_missing(match, facts: Facts) -> Optional[Tailored]:
    attr = match_groups(match).get("attr")
    name = "torch.serialization.%s" % attr if attr else None
    known = NEWER_APIS.get(name or "")
    v, notes = version_or_none(facts)
    if not known or v is None:
        return None
    need = known[0]
    if not has_at_least(v, need):
        extra = ""
        if attr == "safe_globals" and has_at_least(v, "2.4"):
            extra = "; on %s call torch.serialization.add_safe_globals([...]) once instead of the context manager" % F.torch_version_str(facts)
        return too_old(facts, name, need, notes, extra)
    return present(facts, name, notes)
