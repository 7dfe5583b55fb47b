"""pyannote.audio and SpeechBrain out of step. SpeechBrain 1.0.0 moved speechbrain.pretrained to
speechbrain.inference without a redirect (1.0.1 added one); pyannote.audio imported the old name up to
3.3.0 and the new one from 3.3.1, and hides whatever import failed behind "'speechbrain' must be
installed". The installed pair (read in every release's wheel) decides which side moves."""

from typing import List, Optional

from ...advice.commands import pip, which_import
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups

NEW_IMPORT = "3.3.1"  # the first pyannote.audio importing speechbrain.inference (and requiring speechbrain 1.0)
REDIRECT = "1.0.1"  # the first speechbrain 1.x where the old name speechbrain.pretrained still imports
# speechbrain 1.1's from_hparams refuses the use_auth_token/revision pyannote.audio 3.x passes: stay below it
REFUSES_AUTH = "1.1"
SPEECHBRAIN_1 = '"speechbrain>=1.0.1,<1.1"'
# pyannote.audio 4.0.4 passes token= to from_hparams, which speechbrain 1.0.x and 1.1.x do not take
PASSES_TOKEN = "4.0.4"
# modules that left speechbrain.pretrained for speechbrain.utils in 1.0 (the redirect forwards the rest to inference)
MOVED_TO_UTILS = {"fetching": "speechbrain.utils.fetching", "training": "speechbrain.utils.pretrained"}


@hook("pyannote-speechbrain-import-failed")
def pyannote_speechbrain(match, facts: Facts) -> Optional[Tailored]:
    pa, sb = F.package_release(facts, "pyannote-audio"), F.package_release(facts, "speechbrain")
    notes = ["installed %s: %s" % (n, v) for n, v in (("pyannote.audio", pa), ("speechbrain", sb)) if v]
    mod = match_groups(match).get("sbmod")
    if mod:
        return _module_missing(mod, pa, sb, facts, notes)
    if not pa:
        return None
    if not sb:
        return _speechbrain_absent(pa, facts, notes)
    if V.older(pa, "3.0"):
        if V.older(sb, "0.6"):
            return _hidden_error(pa, facts, notes)
        return Tailored(summary="pyannote.audio %s requires speechbrain below 0.6; speechbrain %s was forced in beside "
                                "it." % (pa, sb),
                        commands=[pip(facts, 'install "speechbrain>=0.5.12,<0.6"')], notes=notes)
    if V.older(pa, NEW_IMPORT) and _without_redirect(sb):
        return Tailored(summary="pyannote.audio %s imports speechbrain.pretrained, which speechbrain 1.0.0 (the only "
                                "release without a redirect) does not have: upgrade speechbrain to 1.0.1 or later "
                                "(below 1.1), or pyannote.audio to 3.3.1 or later." % pa,
                        commands=[pip(facts, "install %s" % SPEECHBRAIN_1),
                                  pip(facts, 'install -U "pyannote.audio>=3.3.1,<4" "speechbrain>=1.0,<1.1"')],
                        notes=notes)
    if not V.older(pa, NEW_IMPORT) and V.older(sb, "1.0"):
        return Tailored(summary="pyannote.audio %s imports speechbrain.inference, which speechbrain %s predates (a pin "
                                "kept from the old workaround): upgrade speechbrain to 1.0." % (pa, sb),
                        commands=[pip(facts, 'install -U "speechbrain>=1.0,<1.1"')], notes=notes)
    return _hidden_error(pa, facts, notes, sb)


def _speechbrain_absent(pa: str, facts: Facts, notes: List[str]) -> Optional[Tailored]:
    if not F.package_absent(facts, "speechbrain"):
        return None  # not listed here: nothing to say it is missing
    if not V.older(pa, PASSES_TOKEN):
        return Tailored(summary="speechbrain is not installed, and pyannote.audio %s (which no longer installs it) "
                                "passes token= to SpeechBrain's loader, which speechbrain 1.0 and 1.1 do not take: use "
                                "the pipeline's own WeSpeaker embedding instead of a speechbrain/ one, or pyannote.audio "
                                "4.0.3 with speechbrain 1.0.x." % pa,
                        commands=[pip(facts, 'install "pyannote.audio==4.0.3" "speechbrain>=1.0.2,<1.1"')], notes=notes)
    if not V.older(pa, "4.0"):
        spec, why = '"speechbrain>=1.0.2,<1.1"', "pyannote.audio %s no longer installs it" % pa
    else:
        spec = '"speechbrain>=0.5.12,<0.6"' if V.older(pa, "3.0") else SPEECHBRAIN_1
        why = ("pyannote.audio %s requires it: an install with --no-deps, an uninstall, or another interpreter" % pa)
    return Tailored(summary="speechbrain is not installed here (%s): install it." % why,
                    commands=[pip(facts, "install %s" % spec)], notes=notes)


def _hidden_error(pa: str, facts: Facts, notes: List[str], sb: Optional[str] = None) -> Tailored:
    where = "inference" if not V.older(pa, NEW_IMPORT) else "pretrained"
    run = '%s -c "from speechbrain.%s import EncoderClassifier"' % (F.python_cmd(facts), where)
    if sb and V.older(pa, "4.0") and not V.older(sb, REFUSES_AUTH):
        return Tailored(summary="speechbrain %s refuses the use_auth_token= pyannote.audio %s passes to its loader: keep "
                                "speechbrain below 1.1; if the message stays, run the import below to see the error "
                                "pyannote.audio hid." % (sb, pa),
                        commands=[pip(facts, 'install "speechbrain>=1.0.1,<1.1"'), run], notes=notes)
    return Tailored(summary="These releases fit each other, so speechbrain's own import failed and pyannote.audio hid "
                            "the error (a torchaudio that does not match torch, a missing requests or huggingface_hub, "
                            "or another interpreter): run the import below to see it.",
                    commands=[run], notes=notes)


def _without_redirect(sb: str) -> bool:
    """A speechbrain 1.x without the speechbrain.pretrained redirect: 1.0.0 (its pre-releases too)."""
    return not V.older(sb, "1.0.0rc0") and V.older(sb, REDIRECT)


def _module_missing(mod: str, pa: Optional[str], sb: Optional[str], facts: Facts, notes) -> Optional[Tailored]:
    if not sb:
        return None
    another = Tailored(summary="speechbrain %s here has %s: the failing process imported another speechbrain."
                               % (sb, mod), commands=[which_import(facts, "speechbrain")], notes=notes)
    if mod.startswith("speechbrain.inference"):
        if not V.older(sb, "1.0"):
            return another
        return Tailored(summary="The code is written for SpeechBrain 1.x (speechbrain.inference); speechbrain %s here "
                                "predates it: upgrade it (below 1.1 beside pyannote.audio 3.x)." % sb,
                        commands=[pip(facts, 'install -U "speechbrain>=1.0,<1.1"')], notes=notes)
    if V.older(sb, "1.0"):
        return another
    if _without_redirect(sb):
        return Tailored(summary="speechbrain 1.0.0 is the only release without speechbrain.pretrained (1.0.1 "
                                "redirects it to speechbrain.inference): upgrade it, change the import to "
                                "speechbrain.inference, or pin 0.5.16 for code written for 0.5.",
                        commands=[pip(facts, "install %s" % SPEECHBRAIN_1)], notes=notes)
    moved = MOVED_TO_UTILS.get(mod.split(".")[2] if mod.count(".") >= 2 else "")
    if not moved:
        return another  # 1.0.1 and later redirect speechbrain.pretrained and what inference holds
    pin_back = not pa or V.older(pa, NEW_IMPORT)  # pyannote.audio 3.3.1 and later require speechbrain 1.0
    return Tailored(summary="SpeechBrain 1.0 moved `%s` to `%s`, which the redirect to speechbrain.inference does not "
                            "cover: change the import%s." % (mod, moved, ", or pin speechbrain below 1.0 for code "
                                                             "written for 0.5" if pin_back else ""),
                    commands=[pip(facts, 'install "speechbrain<1.0"')] if pin_back else [], notes=notes)
