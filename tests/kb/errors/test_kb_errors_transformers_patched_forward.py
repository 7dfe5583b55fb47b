"""A project's own forward or Trainer override written for another transformers: which release
passes (or stopped taking) which argument. A patched attention written for transformers 4.37 runs
for real under 4.38.2 from this machine's pip, fails on cache_position, and the hook's pin, run as
printed, heals it."""

import shlex
import subprocess
from pathlib import Path

import pytest

from hook_facts import facts, failing_in_venv, tailored_as
from torchdoctor.match.matcher import HIGH, match_text

ENTRY = "transformers-patched-forward-signature"
CODE = (Path(__file__).parent / "data" / "patched_llama_attention.py").read_text()


@pytest.mark.slow
def test_a_patch_written_for_4_37_under_4_38_is_healed_by_the_printed_pin(tmp_path):
    py, t = failing_in_venv(tmp_path, ["torch==2.13.0", "transformers==4.38.2"], CODE, ENTRY)
    assert "installed transformers: 4.38.2" in t.notes, t.notes
    assert "`llama_attention_forward_437` was written for an older release" in t.summary, t.summary
    assert len(t.commands) == 1 and t.commands[0].endswith('install "transformers<4.38.0"'), t.commands
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.startswith("logits (1, 3, 64)")


@pytest.mark.parametrize("text, have, pin", [
    ("TypeError: llama_pos_shift_attention_forward() got an unexpected keyword argument 'padding_mask'", "4.34.1",
     'install "transformers<4.34.0"'),
    ("TypeError: patch.<locals>.llama_attention_forward_437() got an unexpected keyword argument 'cache_position'",
     "4.38.2", 'install "transformers<4.38.0"'),
    ("TypeError: LlamaAttention.forward() got an unexpected keyword argument 'position_embeddings'", "4.43.0",
     'install "transformers<4.43.0"'),
    ("TypeError: CustomTrainerForgetting.compute_loss() got an unexpected keyword argument 'num_items_in_batch'",
     "4.46.3", 'install "transformers<4.46.0"'),
    ("TypeError: MyTrainer.training_step() takes 3 positional arguments but 4 were given", "4.48.0",
     'install "transformers<4.46.0"'),
    # Llama's rotary embedding wanted position_ids from 4.38: a call written for 4.37 runs only below it
    ("TypeError: LlamaRotaryEmbedding.forward() got an unexpected keyword argument 'seq_len'", "4.40.0",
     'install "transformers<4.38.0"'),
    # each family's own release
    ("TypeError: MistralFlashAttention2.forward() got an unexpected keyword argument 'cache_position'", "4.42.0",
     'install "transformers<4.42.0"'),
    ("TypeError: Qwen2Attention.forward() got an unexpected keyword argument 'position_embeddings'", "4.45.0",
     'install "transformers<4.45.0"'),
    ("TypeError: Qwen2RotaryEmbedding.forward() got an unexpected keyword argument 'seq_len'", "4.46.0",
     'install "transformers<4.45.0"'),
    # LLaVA's model subclasses LlamaForCausalLM: Llama's release
    ("TypeError: LlavaLlamaForCausalLM.forward() got an unexpected keyword argument 'cache_position'", "4.39.3",
     'install "transformers<4.38.0"'),
    # the same old rotary call under 4.38, which wanted position_ids before it dropped seq_len
    ("TypeError: LlamaRotaryEmbedding.forward() missing 1 required positional argument: 'position_ids'", "4.38.2",
     'install "transformers<4.38.0"'),
    ("TypeError: LlamaAttention.forward() missing 1 required positional argument: 'position_embeddings'", "4.48.0",
     'install "transformers<4.48.0"'),
])
def test_a_newer_transformers_is_pinned_below_the_release_that_changed_the_call(text, have, pin):
    m, t = tailored_as(ENTRY, text, facts(packages={"transformers": {"version": have}}))
    assert m.confidence == HIGH
    assert t.summary.startswith("transformers %s " % have), t.summary
    assert t.commands[0].endswith(pin), t.commands
    assert "installed transformers: %s" % have in t.notes


@pytest.mark.parametrize("text, have, want", [
    # code written for a newer transformers, calling transformers' own classes the new way
    ("TypeError: LlamaModel.forward() got an unexpected keyword argument 'cache_position'", "4.37.2",
     'install --upgrade "transformers>=4.38.0"'),
    ("TypeError: Trainer.compute_loss() got an unexpected keyword argument 'num_items_in_batch'", "4.44.0",
     'install --upgrade "transformers>=4.46.0"'),
    # Mistral passes cache_position from 4.42 only
    ("TypeError: MistralModel.forward() got an unexpected keyword argument 'cache_position'", "4.40.0",
     'install --upgrade "transformers>=4.42.0"'),
])
def test_an_older_transformers_than_the_caller_is_upgraded(text, have, want):
    _, t = tailored_as(ENTRY, text, facts(packages={"transformers": {"version": have}}))
    assert "was written for a newer transformers" in t.summary, t.summary
    assert t.commands[0].endswith(want)


@pytest.mark.parametrize("text, have, why", [
    # 4.35 on stopped passing padding_mask; 4.37 still takes seq_len: the failing process imported another
    ("TypeError: attention_forward() got an unexpected keyword argument 'padding_mask'", "4.36.2",
     "imported another transformers"),
    ("TypeError: LlamaRotaryEmbedding.forward() got an unexpected keyword argument 'seq_len'", "4.37.2",
     "imported another transformers"),
    # a function that names no family, under a release some families pass it in and some do not
    ("TypeError: patch.<locals>.forward_437() got an unexpected keyword argument 'cache_position'", "4.38.2",
     "the release differs by model (Llama "),
    ("TypeError: Qwen2VLAttention.forward() got an unexpected keyword argument 'position_embeddings'", "4.44.0",
     "the release differs by model (Llama "),
    # a model with releases of its own, even past every family's boundary: a pin could remove the model
    ("TypeError: qwen2_vl_attention_forward() got an unexpected keyword argument 'position_embeddings'", "4.49.0",
     "the release differs by model (Llama "),
    ("TypeError: VisionSdpaAttention.forward() got an unexpected keyword argument 'position_embeddings'", "4.49.0",
     "the release differs by model (Llama "),
])
def test_where_the_installed_release_decides_nothing_no_pin_is_printed(text, have, why):
    _, t = tailored_as(ENTRY, text, facts(packages={"transformers": {"version": have}}))
    assert t.summary is None and t.commands is None
    assert any(why in n for n in t.notes), t.notes


def test_a_library_trainer_is_upgraded_not_edited():
    _, t = tailored_as(ENTRY, "TypeError: SentenceTransformerTrainer.compute_loss() got an unexpected keyword argument "
                              "'num_items_in_batch'", facts(packages={"transformers": {"version": "4.46.0"}}))
    assert "upgrade sentence-transformers" in t.summary, t.summary
    assert t.commands[0].endswith("install --upgrade sentence-transformers")


def test_without_the_installed_release_the_entry_speaks_for_itself():
    _, t = tailored_as(ENTRY, "TypeError: forward() got an unexpected keyword argument 'cache_position'", facts())
    assert t is None


@pytest.mark.parametrize("text", [
    # another keyword, another library's training_step, a model's forward refusing num_items_in_batch
    # (transformers' own bug in some releases, not an override's signature)
    "TypeError: forward() got an unexpected keyword argument 'attention_mask'",
    "TypeError: training_step() takes 2 positional arguments but 3 were given",
    "TypeError: MarianMTModel.forward() got an unexpected keyword argument 'num_items_in_batch'",
    # torch's and fairseq's MultiheadAttention take key_padding_mask: their refusal is a caller's mistake
    "TypeError: MultiheadAttention.forward() got an unexpected keyword argument 'padding_mask'",
])
def test_near_misses_are_not_this_entry(text):
    assert ENTRY not in [m.id for m in match_text(text)]


def test_a_bare_forward_refusing_padding_mask_is_only_possibly_a_patch():
    # fairseq's layers print the same bare words as a Llama patch written for 4.33
    found = match_text("TypeError: forward() got an unexpected keyword argument 'padding_mask'")
    assert [(m.id, m.confidence) for m in found[:1]] == [(ENTRY, "possible")]
