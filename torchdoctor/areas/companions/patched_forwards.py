"""A project's own forward written for another transformers release: which release started (or
stopped) passing which keyword to the attention and the model, read in each release's
modeling_llama.py, modeling_mistral.py, modeling_qwen2.py and trainer.py, so the fix names the pin
for the argument that was refused and the direction the installed transformers is off in."""

import re
from typing import Dict, Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ...model.records import record
from ..registry import Tailored, hook, match_groups
from .renamed_args import TRL_TRAINERS


@record
class Change:
    what: str  # what transformers did, for the summary
    # The first release under which a forward written for older ones fails, per model family (each
    # family's modeling file moved on its own release); "" holds the Trainer's and the families'
    # shared boundary.
    since: Dict[str, str]
    until: Optional[str] = None  # the first release under which it works again (None: none since)
    # The keyword is one transformers passes into the project's function (an older caller cannot have
    # passed it, so a release before `since` points at code written for a newer transformers).
    passed_by_transformers: bool = True
    # The release to stay below where it is older than `since`: Llama's rotary embedding wanted
    # position_ids in 4.38 before it dropped seq_len in 4.39, so a call written for 4.37 runs only below 4.38.
    pin_below: Optional[Dict[str, str]] = None

    def first(self, family: str) -> Optional[str]:
        """The boundary for `family` (the shared one where the change is not the families'); None for a
        function that names no family this change knows."""
        return self.since.get(family) or self.since.get("")

    def earliest(self) -> str:
        return min(self.since.values(), key=V.release)


CHANGES = {
    ("unexpected", "padding_mask"): Change("passes padding_mask= to the attention in 4.34.x",
                                           {"": "4.34.0"}, until="4.35.0"),
    ("unexpected", "cache_position"): Change("passes cache_position= to the attention and the model",
                                             {"llama": "4.38.0", "mistral": "4.42.0", "qwen2": "4.42.0"}),
    ("unexpected", "position_embeddings"): Change("passes position_embeddings= to the attention",
                                                  {"llama": "4.43.0", "mistral": "4.48.0", "qwen2": "4.45.0"}),
    ("unexpected", "num_items_in_batch"): Change("passes num_items_in_batch to compute_loss and training_step",
                                                 {"": "4.46.0"}),
    ("unexpected", "seq_len"): Change("dropped the rotary embedding's seq_len (Llama's wanted position_ids from 4.38)",
                                      {"llama": "4.39.0", "mistral": "4.42.0", "qwen2": "4.45.0"},
                                      passed_by_transformers=False, pin_below={"llama": "4.38.0"}),
    ("missing", "position_ids"): Change("wants position_ids in Llama's rotary embedding", {"llama": "4.38.0"},
                                        passed_by_transformers=False),
    ("missing", "position_embeddings"): Change("requires position_embeddings in the attention's forward",
                                               {"": "4.48.0"}, passed_by_transformers=False),
}
# The model families whose boundaries differ, as a function's name shows them: transformers' own
# classes (Qwen2Attention, MistralModel) and the snake_case of a project's patch (llama_flash_attn_forward).
# Qwen2-VL, Qwen2.5-VL, Qwen2-MoE and the rest keep releases of their own: they name no family here.
# LLaVA's LlavaLlamaForCausalLM is Llama's (it subclasses LlamaForCausalLM).
FAMILY = re.compile(r"(Llama|Mistral|Qwen2)(?=[A-Z])(?!VL|Moe|Audio)|(?:^|[._])(llama|mistral|qwen2)(?=_)(?!_(?:vl|5|moe|audio))")
# Library trainers that override compute_loss for their users: the library has to follow transformers.
LIBRARY_TRAINERS = dict(dict.fromkeys(TRL_TRAINERS, "trl"), SentenceTransformerTrainer="sentence-transformers")


def family_of(func: str) -> str:
    m = FAMILY.search(func)
    return (m.group(1) or m.group(2)).lower() if m else ""


@hook("transformers-patched-forward-signature")
def tailor_patched_forward(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    func = (g.get("func") or "").lstrip(".") or "the function named in the traceback"  # patch.<locals>.f
    # training_step's third positional argument: num_items_in_batch, passed without its name
    kw = g.get("kw") or ("num_items_in_batch" if func.endswith("training_step") else "")
    change = CHANGES.get(("missing" if "missing" in g else "unexpected", kw))
    have = F.package_release(facts, "transformers")
    if change is None or not have or not V.release(have):
        return None
    family = family_of(func)
    first = change.first(family)
    notes = ["installed transformers: %s" % have]
    since = first or change.earliest()
    if V.older(have, since):
        if change.passed_by_transformers:
            summary = ("transformers %s does not pass `%s` yet (it started in %s): the code that passed it to `%s` "
                       "was written for a newer transformers. Upgrade it." % (have, kw, since, func))
            return Tailored(summary=summary, notes=notes,
                            commands=[pip(facts, 'install --upgrade "transformers>=%s"' % since)])
        notes.append("transformers %s still takes that call: the process that failed imported another transformers"
                     % have)
        return Tailored(notes=notes)
    if first is None:
        # a model this table does not know moved in a release of its own: a pin could remove the model
        notes.append("the release differs by model (%s), and `%s` names none of them" % (
            ", ".join("%s %s" % (f.capitalize(), v) for f, v in sorted(change.since.items())), func))
        return Tailored(notes=notes)
    if change.until and not V.older(have, change.until):
        notes.append("transformers %s no longer passes `%s`: the process that failed imported another transformers"
                     % (have, kw))
        return Tailored(notes=notes)
    trainer = func.split(".")[0]
    if trainer in LIBRARY_TRAINERS:
        lib = LIBRARY_TRAINERS[trainer]
        summary = ("transformers %s %s (from %s), and %s's %s was written for an older one: upgrade %s to a release "
                   "made for this transformers, or pin transformers below %s." % (have, change.what, first, lib, func,
                                                                                  lib, first))
        return Tailored(summary=summary, notes=notes, commands=[pip(facts, 'install --upgrade %s' % lib),
                                                                pip(facts, 'install "transformers<%s"' % first)])
    if change.passed_by_transformers:
        whose = "`%s` was written for an older release" % func
        how = "or add `%s=None` (or `**kwargs`) to `%s`" % (kw, func)
    else:
        whose = "the project's call to `%s` was written for an older release" % func
        how = "or change that call to the new signature"
    pin = (change.pin_below or {}).get(family) or first
    summary = ("transformers %s %s (from %s), and %s: install the transformers the project pins (below %s), %s."
               % (have, change.what, first, whose, pin, how))
    return Tailored(summary=summary, notes=notes, commands=[pip(facts, 'install "transformers<%s"' % pin)])
