"""A project's own forward written for another transformers release: which release started (or
stopped) passing which keyword to the attention and the model, read in each release's
modeling_llama.py, so the fix names the pin for the argument that was refused and the direction
the installed transformers is off in."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ...model.records import record
from ..registry import Tailored, hook, match_groups


@record
class Change:
    what: str  # what transformers did, for the summary
    since: str  # the first release under which a forward written for older ones fails
    until: Optional[str] = None  # the first release under which it works again (None: none since)
    # The keyword is one transformers passes into the project's function (an older caller cannot have
    # passed it, so a release before `since` points at code written for a newer transformers).
    passed_by_transformers: bool = True


CHANGES = {
    ("unexpected", "padding_mask"): Change("passes padding_mask= to the attention (4.34.x only)", "4.34.0", "4.35.0"),
    ("unexpected", "cache_position"): Change("passes cache_position= to the attention and the model (since 4.38.0)",
                                             "4.38.0"),
    ("unexpected", "position_embeddings"): Change("passes position_embeddings= to the attention (since 4.43.0)",
                                                  "4.43.0"),
    ("unexpected", "num_items_in_batch"): Change(
        "passes num_items_in_batch to compute_loss and training_step (since 4.46.0)", "4.46.0"),
    ("unexpected", "seq_len"): Change("dropped LlamaRotaryEmbedding.forward's seq_len (4.39.0)", "4.39.0",
                                      passed_by_transformers=False),
    ("missing", "position_embeddings"): Change("requires position_embeddings in LlamaAttention.forward (since 4.48.0)",
                                               "4.48.0", passed_by_transformers=False),
}


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
    notes = ["installed transformers: %s" % have]
    if V.older(have, change.since):
        if change.passed_by_transformers:
            summary = ("transformers %s does not pass `%s` yet (it started in %s): the code that passed it to `%s` "
                       "was written for a newer transformers. Upgrade it." % (have, kw, change.since, func))
            return Tailored(summary=summary, notes=notes,
                            commands=[pip(facts, 'install --upgrade "transformers>=%s"' % change.since)])
        notes.append("transformers %s still takes that call: the process that failed imported another transformers"
                     % have)
        return Tailored(notes=notes)
    if change.until and not V.older(have, change.until):
        notes.append("transformers %s no longer passes `%s`: the process that failed imported another transformers"
                     % (have, kw))
        return Tailored(notes=notes)
    if change.passed_by_transformers:
        whose = "`%s` was written for an older release" % func
        how = "or add `%s=None` (or `**kwargs`) to `%s`" % (kw, func)
    else:
        whose = "the project's call to `%s` was written for an older release" % func
        how = "or change that call to the new signature"
    summary = ("transformers %s %s, and %s: install the transformers the project pins (below %s), %s."
               % (have, change.what, whose, change.since, how))
    return Tailored(summary=summary, notes=notes, commands=[pip(facts, 'install "transformers<%s"' % change.since)])
