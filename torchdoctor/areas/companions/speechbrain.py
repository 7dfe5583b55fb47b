"""pyannote.audio and SpeechBrain out of step. SpeechBrain 1.0.0 moved speechbrain.pretrained to
speechbrain.inference without a redirect (1.0.1 added one); pyannote.audio imported the old name up to
3.3.0 and the new one from 3.3.1, and hides whatever import failed behind "'speechbrain' must be
installed". The installed pair (read in every release's wheel) decides which side moves."""

from typing import Optional

from ...advice.commands import pip, which_import
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups

NEW_IMPORT = "3.3.1"  # the first pyannote.audio importing speechbrain.inference (and requiring speechbrain 1.0)
REDIRECT = "1.0.1"  # the first speechbrain 1.x where the old name speechbrain.pretrained still imports
# speechbrain 1.1's from_hparams refuses the use_auth_token/revision pyannote.audio 3.x passes: stay below it
SPEECHBRAIN_1 = '"speechbrain>=1.0.1,<1.1"'
# modules that left speechbrain.pretrained for speechbrain.utils in 1.0 (the redirect covers only inference)
MOVED_TO_UTILS = {"fetching": "speechbrain.utils.fetching", "training": "speechbrain.utils.pretrained"}


@hook("pyannote-speechbrain-import-failed")
def pyannote_speechbrain(match, facts: Facts) -> Optional[Tailored]:
    pa, sb = F.package_release(facts, "pyannote-audio"), F.package_release(facts, "speechbrain")
    notes = ["installed %s: %s" % (n, v) for n, v in (("pyannote.audio", pa), ("speechbrain", sb)) if v]
    mod = match_groups(match).get("sbmod")
    if mod:
        return _module_missing(mod, sb, facts, notes)
    if not pa:
        return None
    if not sb:
        if not F.package_absent(facts, "speechbrain") or not V.older(pa, "4.0"):
            return None  # unknown here, or pyannote.audio 4, which no longer depends on it
        spec = '"speechbrain>=0.5.12,<0.6"' if V.older(pa, "3.0") else SPEECHBRAIN_1
        return Tailored(summary="speechbrain is not installed beside pyannote.audio %s, which requires it (an install "
                                "with --no-deps, an uninstall, or another interpreter): install it." % pa,
                        commands=[pip(facts, "install %s" % spec)], notes=notes)
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
    if V.older(pa, "3.0") and not V.older(sb, "0.6"):
        return Tailored(summary="pyannote.audio %s requires speechbrain below 0.6; speechbrain %s was forced in beside "
                                "it." % (pa, sb),
                        commands=[pip(facts, 'install "speechbrain>=0.5.12,<0.6"')], notes=notes)
    where = "inference" if not V.older(pa, NEW_IMPORT) else "pretrained"
    return Tailored(summary="These releases fit each other, so speechbrain's own import failed and pyannote.audio hid "
                            "the error (a torchaudio that does not match torch, a missing requests or huggingface_hub, "
                            "or another interpreter): run the import below to see it.",
                    commands=['%s -c "from speechbrain.%s import EncoderClassifier"' % (F.python_cmd(facts), where)],
                    notes=notes)


def _without_redirect(sb: str) -> bool:
    """A speechbrain 1.x without the speechbrain.pretrained redirect: 1.0.0 (its pre-releases too)."""
    return not V.older(sb, "1.0.0rc0") and V.older(sb, REDIRECT)


def _module_missing(mod: str, sb: Optional[str], facts: Facts, notes) -> Optional[Tailored]:
    if not sb:
        return None
    if mod.startswith("speechbrain.inference"):
        if not V.older(sb, "1.0"):
            return Tailored(summary="speechbrain %s here has speechbrain.inference: the failing process imported "
                                    "another speechbrain." % sb, commands=[which_import(facts, "speechbrain")],
                            notes=notes)
        return Tailored(summary="The code is written for SpeechBrain 1.x (speechbrain.inference); speechbrain %s here "
                                "predates it: upgrade it (below 1.1 beside pyannote.audio 3.x)." % sb,
                        commands=[pip(facts, 'install -U "speechbrain>=1.0,<1.1"')], notes=notes)
    if V.older(sb, "1.0"):
        return Tailored(summary="speechbrain %s here still has speechbrain.pretrained: the failing process imported "
                                "another speechbrain." % sb, commands=[which_import(facts, "speechbrain")], notes=notes)
    sub = mod.split(".")[2] if mod.count(".") >= 2 else ""
    if sub:
        moved = MOVED_TO_UTILS.get(sub)
        return Tailored(summary="SpeechBrain 1.0 moved the modules under speechbrain.pretrained%s; the redirect covers "
                                "only the package's name: change the import, or pin speechbrain below 1.0 for code "
                                "written for 0.5." % (" (`%s` is now `%s`)" % (mod, moved) if moved else
                                                       " to speechbrain.inference and speechbrain.utils"),
                        commands=[pip(facts, 'install "speechbrain<1.0"')], notes=notes)
    if _without_redirect(sb):
        return Tailored(summary="speechbrain 1.0.0 is the only release without speechbrain.pretrained (1.0.1 "
                                "redirects it to speechbrain.inference): upgrade it, change the import to "
                                "speechbrain.inference, or pin 0.5.16 for code written for 0.5.",
                        commands=[pip(facts, "install %s" % SPEECHBRAIN_1)], notes=notes)
    return Tailored(summary="speechbrain %s here redirects speechbrain.pretrained: the failing process imported "
                            "another speechbrain." % sb, commands=[which_import(facts, "speechbrain")], notes=notes)
