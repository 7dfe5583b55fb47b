"""The Hugging Face stack's releases out of step: transformers' Trainer beside accelerate (accelerate
1.0 stopped taking the DataLoader options in Accelerator()), a library that lacks a name, a model
type transformers does not know, a diffusers too old to load the model's image processor."""

import re
from typing import Optional

from ...advice.commands import pip, which_import
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Remedy, Tailored, hook, match_groups
from ..optional_packages import dist_name, report_key


# Namespaces several distributions share, and how many dotted parts name the distribution (pip
# normalises the dots: pyannote.audio is pyannote-audio, google.cloud.storage google-cloud-storage).
NAMESPACE_TOPS = {"pyannote": 2, "ruamel": 2, "backports": 2, "jaraco": 2, "zope": 2, "google": 2, "azure": 2}
# ...and the families one level deeper (google-cloud-storage, azure-storage-blob, azure-mgmt-compute).
NAMESPACE_DEEPER = frozenset(("google.cloud", "azure.storage", "azure.mgmt", "azure.ai"))


# Accelerator() arguments that accelerate 1.0 moved into DataLoaderConfiguration.
MOVED_IN_ACCELERATE_1 = ("dispatch_batches", "split_batches", "even_batches", "use_seedable_sampler")


def accelerate_remedy(facts: Facts, arg: str) -> Optional[Remedy]:
    """The fix for Accelerator() refusing `arg`, given the installed accelerate; None when the
    installed accelerate is not known here."""
    from .renamed_args import remedy as renamed  # the renamed arguments' one table
    moved = renamed(facts, "Accelerator", arg)
    if moved is not None:
        return Remedy(moved.summary, moved.commands or [])
    acc = F.package_version(facts, "accelerate")
    parsed = F.parse_version(acc) if acc else None
    if parsed is None:
        return None
    tf = F.package_version(facts, "transformers")
    if parsed.release[0] >= 1 and arg in MOVED_IN_ACCELERATE_1:
        return Remedy(
            "accelerate %s (1.x) no longer takes `%s` in Accelerator(); the transformers%s Trainer (or the "
            "project's own trainer) that passes it predates accelerate 1.0. Upgrade transformers, or pin "
            "accelerate below 1.0 beside it." % (acc, arg, " " + tf if tf else ""),
            [pip(facts, "install --upgrade transformers"), pip(facts, 'install "accelerate<1.0"')])
    if parsed.release[0] < 1:
        return Remedy(
            "accelerate %s is older than the code calling Accelerator(%s=...) expects: upgrade accelerate "
            "(keeping it below 1.0 if that transformers%s predates accelerate 1.0)." % (acc, arg, " " + tf if tf else ""),
            [pip(facts, "install --upgrade accelerate")])
    return None


@hook("accelerate-transformers-version-mismatch")
def tailor_accelerate_transformers(match, facts: Facts) -> Optional[Tailored]:
    arg = match_groups(match).get("arg") or ""
    remedy = accelerate_remedy(facts, arg)
    if remedy is None:
        return None
    notes = ["installed accelerate: %s" % (F.package_version(facts, "accelerate") or "not installed"),
             "installed transformers: %s" % (F.package_version(facts, "transformers") or "not installed")]
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)


@hook("library-version-mismatch")
def tailor_library_version_mismatch(match, facts: Facts) -> Optional[Tailored]:
    """The library that lacks the name, and the commands that show its version and what asks for
    another; its installed version where the environment's facts hold it."""
    g = match_groups(match)
    if g.get("model_type") is not None or g.get("pkg") is None and "CONFIG_MAPPING" in getattr(match, "text", ""):
        return _unknown_model_type(g.get("model_type"), facts)
    if (g.get("name") or "").startswith("_attn_implementation") and g.get("obj"):
        return _config_attention_attribute(g["obj"], g["name"], facts)
    if not g.get("pkg"):
        return None
    if g.get("names") is not None and g.get("name") not in re.findall(r"\w+", g["names"]):
        return None  # the import line above does not name it: the failing import is deeper, unseen
    dist = re.split(r"[\[<>=~!]", dist_name(g["pkg"]), maxsplit=1)[0]  # the name only: PIP_NAMES may carry a pin
    parts = g["pkg"].split(".")
    if dist.startswith(("git+", "http")):
        dist = parts[0]  # installed from a repository: pip knows it by its project name
    elif dist == parts[0].lower() and parts[0] in NAMESPACE_TOPS and len(parts) >= NAMESPACE_TOPS[parts[0]]:
        depth = NAMESPACE_TOPS[parts[0]] + (".".join(parts[:2]) in NAMESPACE_DEEPER and len(parts) > 2)
        dist = ".".join(parts[:depth])  # a namespace several distributions share
    have = F.package_version(facts, report_key(dist))
    name = g.get("name") or g.get("mod") or "that name"
    notes = ["installed %s: %s" % (dist, have)] if have else []
    if dist == "aiohttp":
        # aiohttp 3.8 removed aiohttp.signals (and frozenlist's old home); Ray's dashboard imported it
        # until Ray 1.9 (ray-project/ray#20681), and Ray's requirement has no upper bound for pip check
        return Tailored(summary="aiohttp %s has no `%s` (removed in aiohttp 3.8): upgrade the package the traceback "
                                "shows importing it (Ray's dashboard before Ray 1.9 does), or pin aiohttp<3.8, whose "
                                "wheels stop at Python 3.9." % (have or "here", name),
                        commands=[pip(facts, 'install --upgrade "ray>=1.9"')], notes=notes)
    if g.get("bound"):
        # the project checks the version itself and names the releases it refuses
        if have and V.admits(g["bound"], have) is False:
            return Tailored(summary="The code refuses %s%s, and %s %s here is outside that range: the failing process "
                                    "imported another %s (another environment or interpreter)." % (
                                        dist, g["bound"], dist, have, dist),
                            commands=[which_import(facts, g["pkg"])],
                            notes=notes)
        return Tailored(summary="The code refuses %s%s%s: install a release outside that range (the message names one), "
                                "or a release of the project that supports this %s."
                                % (dist, g["bound"], " (%s %s is installed here)" % (dist, have) if have else "", dist),
                        commands=[pip(facts, "show %s" % dist)], notes=notes)
    if g.get("since"):
        # deprecate() raises once the installed release reaches the one a deprecation names: a
        # package still using the deprecated name, or a development build that kept the call
        have_v = g.get("have") or ""
        if "dev" in have_v:
            return Tailored(summary="%s %s is a development build that still carries the deprecation of `%s` past its "
                                    "release (%s): install a released %s." % (dist, have_v, name, g["since"], dist),
                            commands=[pip(facts, "install --force-reinstall --no-deps \"%s<%s\"" % (dist, g["since"]))],
                            notes=notes)
        return Tailored(summary="%s %s is past the release (%s) that removes the deprecated name `%s` the calling code "
                                "still uses: install the %s version the calling package pins (below %s), or a release "
                                "of that package that no longer uses it." % (dist, have_v, g["since"], name, dist, g["since"]),
                        commands=[pip(facts, "show %s" % dist), pip(facts, "check")], notes=notes)
    return Tailored(summary="%s has no `%s`: install the %s version the importing package asks for "
                            "(`pip check` names the requirement it breaks); where two libraries are released "
                            "together (albumentations and albucore), upgrade both." % (
                                "%s %s here" % (dist, have) if have else "The %s the failing code imported" % dist,
                                name, dist),
                    commands=[pip(facts, "show %s" % dist), pip(facts, "check")], notes=notes)


# The releases of transformers whose PretrainedConfig sets each attribute, [since, until) (read in the
# wheels' configuration_utils.py: 4.35.2 has none of them, 4.36.0 the first two, 4.46.0 the third,
# which 4.54.0 dropped again).
_ATTN_ATTRIBUTE_RELEASES = {"_attn_implementation_internal": ("4.36.0", None),
                            "_attn_implementation": ("4.36.0", None),
                            "_attn_implementation_autoset": ("4.46.0", "4.54.0")}


def _config_attention_attribute(obj: str, name: str, facts: Facts) -> Tailored:
    """A config without an attribute PretrainedConfig sets: a transformers outside the releases
    that set it (install one of them), or a config class that never ran the newer __init__ (remote
    code, a library's own config: older than the installed transformers)."""
    have = F.package_release(facts, "transformers")
    since, until = _ATTN_ATTRIBUTE_RELEASES.get(name, ("4.36.0", None))
    span = "transformers %s%s" % (since, " to below %s" % until if until else " and later")
    spec = '"transformers>=%s%s"' % (since, ",<%s" % until if until else "")
    notes = (["installed transformers: %s" % have] if have else []) + ["%s is set by %s" % (name, span)]
    if have and (V.older(have, since) or until and not V.older(have, until)):
        return Tailored(summary="transformers %s is outside the releases that set `%s` (%s), which the code reading "
                                "`%s` expects: install one of them, or the release of the code made for %s."
                                % (have, name, span, obj, have),
                        commands=[pip(facts, "install %s" % spec)], notes=notes)
    if have:
        return Tailored(summary="`%s` was written for an older transformers than the installed %s: upgrade the library "
                                "(or, for trust_remote_code, the model's code on the Hub) to a release made for this "
                                "transformers, or install the transformers version its requirements or model card name."
                                % (obj, have), commands=[pip(facts, "show transformers"), pip(facts, "check")],
                        notes=notes)
    return Tailored(summary="Either the transformers that ran is outside the releases that set `%s` (%s: install one), "
                            "or `%s` was written for an older transformers than the one installed (then upgrade the "
                            "library or the model's code, or pin transformers to what it names)." % (name, span, obj),
                    commands=[pip(facts, "show transformers"), pip(facts, "check")], notes=notes)


def _unknown_model_type(model_type, facts: Facts) -> Tailored:
    """A checkpoint's config names an architecture the installed transformers does not know."""
    have = F.package_version(facts, "transformers")
    what = "`%s`" % model_type if model_type else "the checkpoint's model type (the KeyError's name)"
    return Tailored(summary="transformers%s does not know %s. A model type added in a later transformers release needs "
                            "that release (the model card names it; a type newer than the latest release needs "
                            "transformers from its repository); a type a project registers itself (LLaVA's "
                            "llava_llama) needs that project's package installed and imported before the model loads."
                            % (" " + have if have else "", what),
                    commands=[pip(facts, "install --upgrade transformers")],
                    notes=["installed transformers: %s" % have] if have else [])



# diffusers 0.8.0's LOADABLE_CLASSES gained transformers' ImageProcessingMixin (read in the 0.7.2 and
# 0.8.0 wheels): an older diffusers finds no loader for CLIPImageProcessor and getattr()s None.
_DIFFUSERS_LOADS_IMAGE_PROCESSORS = "0.8.0"


@hook("diffusers-too-old-for-component")
def tailor_diffusers_too_old(match, facts: Facts) -> Optional[Tailored]:
    have = F.package_release(facts, "diffusers")
    if not have:
        return None
    if "pipeline_flax_utils" in (getattr(match, "text", "") or ""):
        return None  # the Flax loader kept the unchecked getattr past 0.8.0: not an old diffusers
    if not V.older(have, _DIFFUSERS_LOADS_IMAGE_PROCESSORS):
        return Tailored(summary="diffusers %s here loads transformers' image processors, so the failing process imported "
                                "an older diffusers (another environment or interpreter, or a copy the project "
                                "bundles)." % have,
                        commands=[which_import(facts, "diffusers")],
                        notes=["installed diffusers: %s" % have])
    tf = F.package_version(facts, "transformers")
    return Tailored(summary="diffusers %s predates 0.8.0, the first release that loads transformers' image processors "
                            "(CLIPImageProcessor)%s: upgrade diffusers to 0.8.0 or newer."
                            % (have, ", which transformers %s and the model's files use" % tf if tf else ""),
                    commands=[pip(facts, 'install --upgrade "diffusers>=%s"' % _DIFFUSERS_LOADS_IMAGE_PROCESSORS)],
                    notes=["installed diffusers: %s" % have] + (["installed transformers: %s" % tf] if tf else []))


# Read in the timm wheels: 0.4.9 has the DeiT models as vit_deit_*, 0.4.12 (the next release on PyPI)
# as deit_*.
_TIMM_DEIT_RENAMED = "0.4.12"


@hook("timm-unknown-model")
def tailor_timm_unknown_model(match, facts: Facts) -> Optional[Tailored]:
    model = match_groups(match).get("model") or ""
    have = F.package_release(facts, "timm")
    notes = ["installed timm: %s" % have] if have else []
    if model.startswith("vit_deit_"):
        if have and V.older(have, _TIMM_DEIT_RENAMED):
            return None  # a timm that still has the name: another timm failed, or another cause
        return Tailored(summary="timm 0.4.12 renamed %s to %s: install the timm the project pins (0.4.9 or older, such as "
                                "0.4.5), or call the new name%s." % (model, model[len("vit_"):],
                                                                     " (timm %s is installed)" % have if have else ""),
                        commands=[pip(facts, 'install "timm<%s"' % _TIMM_DEIT_RENAMED)], notes=notes)
    if not have:
        return None
    return Tailored(summary="timm %s has no model named %s: if the project pins a timm release, install that one; if the "
                            "model is newer than timm %s, upgrade timm; if it is the project's own model, import the "
                            "project's module that registers it before create_model." % (have, model, have),
                    commands=["python -c \"import timm; print(timm.list_models('%s*'))\"" % model.split(".")[0][:30]],
                    notes=notes)


# transformers' generate() refused BLIP's image features from 4.22.0 (its kwargs check) until 4.25.0
# accepted a catch-all named model_kwargs; 4.25.0 was yanked, so 4.25.1 is the first to install. From
# 4.56.0 modeling_utils no longer re-exports the helpers BLIP's med.py imports from it: the ceiling.
BLIP_CHECK_FROM, BLIP_CHECK_FIXED_IN, BLIP_INSTALL_FROM, BLIP_IMPORTS_UNTIL = "4.22.0", "4.25.0", "4.25.1", "4.56"


@hook("blip-model-kwargs")
def tailor_blip_model_kwargs(match, facts: Facts) -> Optional[Tailored]:
    tf = F.package_release(facts, "transformers")
    if not tf or V.parse(tf) is None:
        return None
    notes = ["installed transformers: %s" % tf]
    if V.older(tf, BLIP_CHECK_FROM) or not V.older(tf, BLIP_CHECK_FIXED_IN):
        return Tailored(summary="transformers %s here does not refuse BLIP's arguments (only 4.22.0 to 4.24.0 do): the "
                                "failing run used another environment or another transformers. Print which one it "
                                "imports there." % tf,
                        commands=[which_import(facts, "transformers")], notes=notes)
    return Tailored(summary="transformers %s is one of the releases (4.22.0 to 4.24.0) whose generate() refuses BLIP's "
                            "arguments: install one from %s up to (not including) %s, where BLIP's med.py can still "
                            "import the helpers it takes from transformers.modeling_utils."
                            % (tf, BLIP_INSTALL_FROM, BLIP_IMPORTS_UNTIL),
                    commands=[pip(facts, 'install "transformers>=%s,<%s"' % (BLIP_INSTALL_FROM, BLIP_IMPORTS_UNTIL))],
                    notes=notes)


# transformers' own tokenizer classes and the first release that has each (read in the wheels:
# models/llama in 4.28.0 and not 4.27.4, models/qwen2 in 4.37.0, models/gemma in 4.38.0;
# TokenizersBackend, which transformers 5 writes into the configs it saves, in 5.0.0 and not 4.57.1).
TOKENIZER_SINCE = {"LlamaTokenizer": "4.28.0", "Qwen2Tokenizer": "4.37.0", "GemmaTokenizer": "4.38.0",
                   "TokenizersBackend": "5.0.0"}


# What a transformers release needs of torch and Python, newest first (read in the wheels: 4.52.0 disables
# a torch below 2.1, 4.51.0 does not; 5.0.0 disables one below 2.2 and requires Python 3.10; 4.47.0 is the
# first to require Python 3.9, 4.46.3 takes 3.8).
TRANSFORMERS_NEEDS = (("5", "2.2", "3.10"), ("4.52", "2.1", None), ("4.47", "0", "3.9"))


def transformers_upgrade(facts: Facts, since: str) -> Optional[str]:
    """pip's command for a transformers that has a class first shipped in `since`, below the first
    release this torch or Python cannot run (5.0 also removed much that code written for 4.x
    calls); None when no such release exists here."""
    torch, py = F.parse_version(F.package_release(facts, "torch")), F.python_minor(facts)
    ceiling = None
    for release, need_torch, need_py in TRANSFORMERS_NEEDS:
        # transformers compares the whole version: an NGC 2.1.0a0 is below 2.1 there
        if (torch is not None and torch < V.parse(need_torch)) or (py and need_py and V.older(py, need_py)) \
                or (release == "5" and V.older(since, "5")):
            ceiling = release
    if ceiling and not V.older(since, ceiling):
        return None
    spec = "transformers>=%s%s" % (since, ",<%s" % ceiling if ceiling else "")
    return pip(facts, 'install --upgrade "%s"' % spec)


@hook("tokenizer-class-not-found")
def tokenizer_class_not_found(match, facts: Facts) -> Optional[Tailored]:
    """The name AutoTokenizer could not find: transformers' class spelt otherwise (edit the
    model's file), one newer than the installed transformers (upgrade), or no class of
    transformers at all (its package, or the model's code)."""
    cls = match_groups(match)["cls"]
    base = cls[:-len("Fast")] if cls.endswith("Fast") else cls
    right = {k.lower(): k for k in TOKENIZER_SINCE}.get(base.lower())
    have = F.package_release(facts, "transformers")
    notes = ["installed transformers: %s" % have] if have else []
    since = TOKENIZER_SINCE.get(right or "")
    too_old = bool(have and since and V.older(have, since))
    upgrade = transformers_upgrade(facts, since) if since else None
    if right and right != base:
        return Tailored(summary="The model's tokenizer_config.json names `%s`; transformers' class is `%s` (early "
                                "LLaMA conversions wrote the other spelling): set \"tokenizer_class\" to \"%s\" in that "
                                "file%s." % (cls, right, right, ", and upgrade transformers %s, which predates it (%s)"
                                             % (have, since) if too_old else " (transformers %s or newer has it)" % since),
                        commands=[upgrade] if too_old and upgrade else [], notes=notes)
    if right:
        if have and not too_old:
            return Tailored(summary="transformers %s here has %s: the failing process imported an older transformers "
                                    "(another environment or interpreter)." % (have, right),
                            commands=[which_import(facts, "transformers")], notes=notes)
        if right == "TokenizersBackend":
            # transformers 5 wrote its own class name; 4.x loads the same tokenizer.json as PreTrainedTokenizerFast
            return Tailored(summary="The model was saved by transformers 5, which names its tokenizer `TokenizersBackend`: "
                                    "set \"tokenizer_class\" to \"PreTrainedTokenizerFast\" in its tokenizer_config.json "
                                    "(transformers 4 loads the same tokenizer.json that way)%s." % (
                                        ", or upgrade to transformers 5 (Python 3.10 and torch 2.2 or newer)"
                                        if upgrade else "; transformers 5 needs Python 3.10 and torch 2.2, which this "
                                        "environment does not have"),
                            commands=[upgrade] if upgrade else [], notes=notes)
        return Tailored(summary="%s first shipped in transformers %s%s: upgrade transformers%s." % (
                            right, since, " (%s is installed here)" % have if have else "",
                            "" if upgrade else " (no release that has it runs with this torch or Python: upgrade "
                            "those first)"),
                        commands=[upgrade] if upgrade else [], notes=notes)
    return Tailored(summary="`%s` is no tokenizer class of the transformers that ran%s: a newer transformers may have it "
                            "(upgrade), or it comes with another package or the model's own code (install that package "
                            "and load with its class, or pass trust_remote_code=True)." % (
                                cls, " (%s here)" % have if have else ""),
                    commands=[pip(facts, "install --upgrade transformers")], notes=notes)


@hook("tokenizer-init-order")
def tokenizer_init_order(match, facts: Facts) -> Optional[Tailored]:
    """A tokenizer reading its own attribute before setting it: only transformers 4.34 and later
    call into it from PreTrainedTokenizer.__init__. The pin back needs tokenizers below 0.14,
    which has no wheels for Python 3.12 and later (read on PyPI: 0.13.3 stops at cp311)."""
    cls = match_groups(match)["cls"]
    have = F.package_release(facts, "transformers")
    notes = ["installed transformers: %s" % have] if have else []
    if have and V.older(have, "4.34"):
        return Tailored(summary="transformers %s here is older than 4.34, whose initialisation order breaks `%s`: the "
                                "failing process imported a newer transformers (another environment or interpreter), "
                                "or the class fails for another reason (its tokenizer model file not found)." % (have, cls),
                        commands=[which_import(facts, "transformers")], notes=notes)
    py = F.python_minor(facts)
    if py and V.older(py, "3.12") is False:
        return Tailored(summary="`%s` was written for transformers before 4.34. On Python %s the pin back cannot install "
                                "from wheels (transformers 4.33 needs tokenizers below 0.14, built up to Python 3.11): "
                                "update the tokenizer's code (the model's tokenization_*.py from its Hub repository, or a "
                                "newer release of the library that ships it), or use a Python 3.11 environment with "
                                "transformers<4.34." % (cls, py),
                        commands=[], notes=notes + ["Python %s" % py])
    return Tailored(summary="`%s` was written for transformers before 4.34%s: pin transformers below 4.34, or update the "
                            "tokenizer's code (the model's tokenization_*.py from its Hub repository, or a newer release "
                            "of the library that ships it)." % (cls, " (%s is installed here)" % have if have else ""),
                    commands=[pip(facts, 'install "transformers<4.34"')], notes=notes)


@hook("tokenizer-json-format")
def tokenizer_json_format(match, facts: Facts) -> Optional[Tailored]:
    """tokenizers 0.20 writes merges as pairs; the installed tokenizers (or, where the facts do not
    list it, the transformers that pins it: 4.45 is the first to require 0.20) says whether this
    environment can read them."""
    have, tf = F.package_release(facts, "tokenizers"), F.package_release(facts, "transformers")
    if not have and not tf:
        return None
    notes = ["installed %s: %s" % (n, v) for n, v in (("tokenizers", have), ("transformers", tf)) if v]
    old = V.older(have, "0.20") if have else V.older(tf, "4.45")
    if not old:
        return Tailored(summary="The %s here reads the new format: the failing process imported an older tokenizers "
                                "(another environment, or a user site-packages copy shadowing this one)."
                                % ("tokenizers %s" % have if have else "transformers %s (and its tokenizers)" % tf),
                        commands=[which_import(facts, "tokenizers")], notes=notes)
    if not tf:  # tokenizers alone, without transformers pinning it
        return Tailored(summary="tokenizers %s here predates the format: upgrade it to 0.20 or newer." % have,
                        commands=[pip(facts, 'install --upgrade "tokenizers>=0.20"')], notes=notes)
    upgrade = transformers_upgrade(facts, "4.45.0")
    return Tailored(summary="The %s here predates the format (tokenizers 0.20): upgrade transformers to 4.45 or newer, "
                            "which brings it%s." % ("tokenizers %s" % have if have else "transformers %s" % tf,
                                                    "" if upgrade else "; no such transformers runs with this torch "
                                                    "or Python, upgrade those first"),
                    commands=[upgrade] if upgrade else [], notes=notes)
