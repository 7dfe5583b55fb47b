"""Keyword arguments the Hugging Face libraries renamed, then removed: which release of the
installed library accepts which name, read from each library's own signatures (the wheels of
the releases named below), so the fix says "rename" or "pin" for the release installed."""

from typing import Optional, Tuple

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ...model.records import record
from ..optional_packages import report_key
from ..registry import Tailored, hook, match_groups


@record
class Renamed:
    package: str  # the distribution whose signature changed
    callers: Tuple[str, ...]  # the callables that take it (as Python 3.10+ names them)
    old: Tuple[str, ...]  # the names the old releases take
    new: str  # what replaces them (a name, or where the setting went)
    new_since: Optional[str]  # the release that first takes the new spelling
    removed: str  # the first release that refuses the old names
    # The old name lives in a file the project copied from the library (a modeling file): rename it there;
    # the pin back is offered only on the Pythons that release still installs on (its last one here).
    copied_until_python: Optional[str] = None


TRAINERS = ("Trainer", "Seq2SeqTrainer")
TRL_TRAINERS = ("SFTTrainer", "DPOTrainer", "ORPOTrainer", "KTOTrainer", "CPOTrainer", "GRPOTrainer",
                "RewardTrainer", "PPOTrainer")
# SFTTrainer's dataset options, which trl 0.9 moved into SFTConfig and 0.13 dropped from SFTTrainer
SFT_OPTIONS = ("dataset_text_field", "max_seq_length", "packing", "dataset_num_proc", "dataset_batch_size",
               "neftune_noise_alpha", "dataset_kwargs", "eval_packing", "num_of_sequences", "chars_per_token",
               "model_init_kwargs")

RENAMED = (
    Renamed("transformers", ("TrainingArguments", "Seq2SeqTrainingArguments"), ("evaluation_strategy",),
            "eval_strategy", "4.41.0", "4.51.0"),
    Renamed("transformers", ("TrainingArguments", "Seq2SeqTrainingArguments"), ("no_cuda",), "use_cpu", "4.32.0",
            "5.0.0"),
    Renamed("transformers", TRAINERS, ("tokenizer",), "processing_class", "4.46.0", "5.0.0"),
    Renamed("transformers", (), ("use_auth_token",), "token", None, "5.0.0"),
    Renamed("huggingface_hub", ("hf_hub_download", "snapshot_download"), ("use_auth_token",), "token", None, "1.0.0"),
    Renamed("trl", ("SFTTrainer",), SFT_OPTIONS, "SFTConfig", "0.9.0", "0.13.0"),
    Renamed("trl", TRL_TRAINERS, ("tokenizer",), "processing_class", "0.12.0", "0.16.0"),
    Renamed("trl", ("SFTConfig",), ("max_seq_length",), "max_length", "0.16.0", "0.20.0"),
    Renamed("accelerate", ("Accelerator",), ("logging_dir",), "project_dir", "0.16.0", "0.20.0"),
    # renamed in one step: a modeling file copied from transformers 4.11 or older decorates with the old name
    # (transformers 4.11 needs tokenizers 0.10, whose last wheels are for Python 3.9)
    Renamed("transformers", ("add_code_sample_docstrings",), ("tokenizer_class",), "processor_class", "4.12.0", "4.12.0",
            copied_until_python="3.9"),
)


def find(caller: str, arg: str) -> Optional[Tuple[Renamed, bool]]:
    """The rename `arg` belongs to when `caller` refused it, and whether `arg` is its new
    spelling (refused by a release older than the rename); None when no row knows the pair.
    A caller unknown to every row (a model class, or Python 3.9's bare `__init__`) falls to
    the row that names no caller, else to the first that knows the argument (transformers' before
    trl's: trl's trainers are transformers' Trainer underneath); None for a caller a row knows that
    refused an argument no row gives it. Callers compare without case (a retyped paste)."""
    caller = caller.split(".")[0].lower()
    rows = [r for r in RENAMED if arg in r.old or (arg == r.new and r.new_since)]
    if not rows:
        return None
    row = (next((r for r in rows if caller in (c.lower() for c in r.callers)), None)
           or next((r for r in rows if not r.callers), None))
    if row is None and caller and any(caller in (c.lower() for c in r.callers) for r in RENAMED):
        return None  # a caller some row knows, refusing an argument no row gives it (Accelerator's use_cpu)
    row = row or rows[0]
    return row, arg not in row.old


def remedy(facts: Facts, caller: str, arg: str) -> Optional[Tailored]:
    found = find(caller, arg)
    if found is None:
        return None
    row, is_new = found
    dist = report_key(row.package)  # the key the probe files it under
    have = F.package_release(facts, dist)
    notes = ["installed %s: %s" % (dist, have or ("not installed" if not F.package_installed(facts, dist)
                                                   else "unknown"))]
    parsed = F.parse_version(have) if have else None
    if is_new:
        if parsed is not None and parsed >= F.parse_version(row.new_since):
            notes.append("%s %s takes `%s`: the process that failed imported another %s" % (dist, have, arg, dist))
        summary = ("`%s` is the spelling %s %s introduced (before it: `%s`), and the %s that ran is older: upgrade "
                   "%s, or write `%s` for the older release." % (arg, dist, row.new_since, "`, `".join(row.old), dist,
                                                                  dist, row.old[0]))
        return Tailored(summary=summary, commands=[pip(facts, 'install --upgrade "%s>=%s"' % (dist, row.new_since))],
                        notes=notes)
    if row.copied_until_python:
        py = F.python_minor(facts)
        pin_ok = bool(py) and not V.older(row.copied_until_python, py)
        summary = ("%s %s renamed `%s` to `%s` in %s at once: the project's copy of an older %s file still passes the "
                   "old name. Rename it in that file (the traceback names it)%s." % (
                       dist, row.removed, arg, row.new, "/".join(row.callers), dist,
                       ", or pin %s below %s" % (dist, row.removed) if pin_ok else
                       "; pinning %s below %s is no way out on Python %s, where it no longer installs" % (
                           dist, row.removed, py or "3.10 or newer")))
        return Tailored(summary=summary, commands=[pip(facts, 'install "%s<%s"' % (dist, row.removed))] if pin_ok else [],
                        notes=notes)
    if row.new == "SFTConfig":
        how = ("pass it in `SFTConfig(..., %s=...)` as `args=` (SFTConfig exists since trl %s)"
               % (arg, row.new_since))
    else:
        how = "write `%s=` instead%s" % (row.new, " (taken since %s %s)" % (dist, row.new_since)
                                          if row.new_since else "")
    if parsed is not None and parsed < F.parse_version(row.removed):
        notes.append("%s %s still takes `%s`: the process that failed imported another %s" % (dist, have, arg, dist))
    summary = ("%s %s removed `%s` from %s: %s, or pin %s below %s for code you cannot change."
               % (dist, row.removed, arg, "/".join(row.callers[:2]) or "from_pretrained() and the classes it builds",
                  how, dist, row.removed))
    return Tailored(summary=summary, commands=[pip(facts, 'install "%s<%s"' % (dist, row.removed))], notes=notes)


@hook("hf-argument-renamed")
def tailor_hf_argument_renamed(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    return remedy(facts, g.get("cls") or "", g.get("arg") or "")
