"""The Hugging Face libraries' renamed keyword arguments: which release of the installed library
takes which name. huggingface_hub 1.0 refusing `use_auth_token` runs for real with this machine's
pip, and the hook's pin, run as printed, heals it."""

import shlex
import subprocess

import pytest

from hook_facts import facts, failing_in_venv, tailored_as, top
from torchdoctor.areas.companions.renamed_args import RENAMED, find
from torchdoctor.match.matcher import HIGH

ENTRY = "hf-argument-renamed"
# local_files_only: the call never goes to the network; past the TypeError it fails on the cache
CALL = ("from huggingface_hub import hf_hub_download\n"
        "try:\n"
        "    hf_hub_download('no-such/repo', 'config.json', use_auth_token=False, local_files_only=True)\n"
        "except TypeError:\n"
        "    raise\n"
        "except Exception as e:\n"
        "    print('reached the cache:', type(e).__name__)\n")


@pytest.mark.slow
def test_use_auth_token_under_huggingface_hub_1_is_healed_by_the_printed_pin(tmp_path):
    py, t = failing_in_venv(tmp_path, "huggingface_hub>=1.0", CALL, ENTRY)
    assert t.summary.startswith("huggingface-hub 1.0.0 removed `use_auth_token`"), t.summary
    have = [n.split(": ")[1] for n in t.notes if n.startswith("installed huggingface-hub: ")]
    assert have and not have[0].startswith("0."), t.notes
    assert len(t.commands) == 1 and 'huggingface-hub<1.0.0' in t.commands[0]
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", CALL], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.startswith("reached the cache:")


@pytest.mark.parametrize("text, package, removed", [
    ("TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'",
     "transformers", "4.51.0"),
    ("TypeError: Seq2SeqTrainingArguments.init() got an unexpected keyword argument ‘evaluation_strategy’",
     "transformers", "4.51.0"),
    ("TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'no_cuda'", "transformers", "5.0.0"),
    ("TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'", "transformers", "5.0.0"),
    ("TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'", "trl", "0.16.0"),
    ("TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'dataset_text_field'", "trl", "0.13.0"),
    ("TypeError: SFTConfig.__init__() got an unexpected keyword argument 'max_seq_length'", "trl", "0.20.0"),
    ("TypeError: T5ForConditionalGeneration.__init__() got an unexpected keyword argument 'use_auth_token'",
     "transformers", "5.0.0"),
    ("TypeError: hf_hub_download() got an unexpected keyword argument 'use_auth_token'", "huggingface-hub", "1.0.0"),
    ("TypeError: __init__() got an unexpected keyword argument 'use_auth_token'", "transformers", "5.0.0"),
    ("TypeError: __init__() got an unexpected keyword argument 'dataset_text_field'", "trl", "0.13.0"),
])
def test_the_old_name_is_pinned_below_the_release_that_removed_it(text, package, removed):
    m, t = tailored_as(ENTRY, text, facts())
    assert m.confidence == HIGH
    assert t.summary.startswith("%s %s removed" % (package, removed)), t.summary
    assert t.commands[0].endswith('install "%s<%s"' % (package, removed))


def test_sft_options_are_sent_to_sftconfig():
    _, t = tailored_as(ENTRY, "SFTTrainer.__init__() got an unexpected keyword argument 'max_seq_length'", facts())
    assert "SFTConfig(..., max_seq_length=...)" in t.summary


@pytest.mark.parametrize("text, have, want", [
    # the new spelling refused: an older release than the rename
    ("TrainingArguments.__init__() got an unexpected keyword argument 'eval_strategy'", "4.29.2",
     'install --upgrade "transformers>=4.41.0"'),
    ("TypeError: Trainer.__init__() got an unexpected keyword argument 'processing_class'", "4.45.2",
     'install --upgrade "transformers>=4.46.0"'),
])
def test_the_new_name_refused_means_upgrade(text, have, want):
    _, t = tailored_as(ENTRY, text, facts(packages={"transformers": {"version": have}}))
    assert t.commands[0].endswith(want)
    assert "installed transformers: %s" % have in t.notes


def test_an_installed_release_that_takes_the_name_says_another_process_failed():
    text = "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'"
    _, t = tailored_as(ENTRY, text, facts(packages={"transformers": {"version": "4.45.2"}}))
    assert any("imported another transformers" in n for n in t.notes)
    _, t = tailored_as(ENTRY, text, facts(packages={"transformers": {"version": "unknown"}}))
    assert "installed transformers: unknown" in t.notes


def test_accelerates_logging_dir_reads_the_same_table():
    m, t = tailored_as("accelerate-transformers-version-mismatch",
                       "TypeError: Accelerator.__init__() got an unexpected keyword argument 'logging_dir'",
                       facts(packages={"accelerate": {"version": "0.21.0"}}))
    assert t.summary.startswith("accelerate 0.20.0 removed `logging_dir`") and "project_dir" in t.summary
    assert "installed accelerate: 0.21.0" in t.notes


@pytest.mark.parametrize("text", [
    "TypeError: add_code_sample_docstrings() got an unexpected keyword argument 'tokenizer_class'",
    'TypeError: add_code_sample_docstrings() got an unexpected keyword argument "tokenizer_class"',
])
def test_a_copied_modeling_file_is_edited_and_pinned_back_only_where_that_installs(text):
    # renamed in one step in transformers 4.12.0 (read in the 4.11.3 and 4.12.0 wheels' file_utils.py); 4.11 needs
    # tokenizers 0.10, whose wheels end at Python 3.9
    m, t = tailored_as(ENTRY, text, facts(py="3.11.7"))
    assert m.confidence == HIGH
    assert "Rename it in that file" in t.summary and "no way out on Python 3.11" in t.summary and t.commands == []
    _, t = tailored_as(ENTRY, text, facts(py="3.8.10"))
    assert t.commands == ['/home/u/venv/bin/python -m pip install "transformers<4.12.0"']


@pytest.mark.parametrize("text", [
    # other libraries' arguments of the same names, and callers no row knows
    "TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'",
    "TypeError: MyDataset.__init__() got an unexpected keyword argument 'tokenizer'",
    "TypeError: load_dataset() got an unexpected keyword argument 'use_auth_token'",
    "TypeError: __init__() got an unexpected keyword argument 'tokenizer'",
    "TypeError: forward() got an unexpected keyword argument 'max_length'",
    # pyannote.audio 4's own from_pretrained, and classes whose names only look like transformers'
    "TypeError: Pipeline.from_pretrained() got an unexpected keyword argument 'use_auth_token'",
    "typeerror: sentencetransformer.__init__() got an unexpected keyword argument 'use_auth_token'",
    "TypeError: StableDiffusionPipeline.__init__() got an unexpected keyword argument 'use_auth_token'",
])
def test_other_unexpected_keywords_are_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def test_every_row_is_consistent():
    for r in RENAMED:
        assert r.old and r.new not in r.old and r.removed
        for old in r.old:
            assert find(r.callers[0] if r.callers else "", old) == (r, False)


def test_a_caller_a_row_knows_refusing_another_argument_is_no_rename():
    assert find("Accelerator", "use_cpu") is None
    row, is_new = find("sftconfig", "max_seq_length")  # retyped in lower case: still SFTConfig's row
    assert row.callers == ("SFTConfig",) and not is_new
