"""Libraries that changed under the code that calls them, read from their own sources: spaCy 3's
API under spaCy 2 code, and transformers 4.22 to 4.24 refusing BLIP's image features in generate().
The hooks go by the installed release and Python."""

import shlex
import subprocess

import pytest

from hook_facts import facts, failing_in_venv, tailored_as, top
from torchdoctor.match.matcher import HIGH

SPACY = "spacy3-breaks-spacy2-code"
E966 = ("ValueError: [E966] `nlp.add_pipe` now takes the string name of the registered component factory, not a "
        "callable component. Expected string, but got <spacy.pipeline.sentencizer.Sentencizer object at 0x7f> "
        "(name: 'None').")
E941 = ("OSError: [E941] Can't find model 'de'. It looks like you're trying to load a model from a shortcut, which is "
        "obsolete as of spaCy v3.0. To load the model, use its full name instead:")
SPACY2_CODE = ("import spacy\nnlp = spacy.blank('en')\nnlp.add_pipe(nlp.create_pipe('sentencizer'))\n"
               "print([s.string for s in nlp('Hello there. Bye now.').sents])")
BLIP = "blip-transformers-model-kwargs"
# BLIP's text decoder (salesforce/BLIP models/med.py) in miniature: its prepare_inputs_for_generation
# names the catch-all model_kwargs, and it generates with the image features as cross-attention inputs.
BLIP_CODE = """
import torch
from transformers import BertConfig, BertLMHeadModel
# what BLIP's med.py imports from modeling_utils: the upgrade must keep it importable
from transformers.modeling_utils import (PreTrainedModel, apply_chunking_to_forward,
                                         find_pruneable_heads_and_indices, prune_linear_layer)
class Decoder(BertLMHeadModel):
    def prepare_inputs_for_generation(self, input_ids, past=None, attention_mask=None, **model_kwargs):
        if attention_mask is None:
            attention_mask = input_ids.new_ones(input_ids.shape)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "past_key_values": past,
                "encoder_hidden_states": model_kwargs.get("encoder_hidden_states", None),
                "encoder_attention_mask": model_kwargs.get("encoder_attention_mask", None), "is_decoder": True}
torch.manual_seed(0)
cfg = BertConfig(vocab_size=30, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                 is_decoder=True, add_cross_attention=True)
out = Decoder(cfg).eval().generate(input_ids=torch.tensor([[1]]), max_length=4, num_beams=1, pad_token_id=0,
                                   eos_token_id=2, encoder_hidden_states=torch.zeros(1, 3, 16),
                                   encoder_attention_mask=torch.ones(1, 3, dtype=torch.long))
print(tuple(out.shape))
"""
BLIP_TEXT = ("ValueError: The following `model_kwargs` are not used by the model: ['encoder_hidden_states', "
             "'encoder_attention_mask'] (note: typos in the generate arguments will also show up in this list)")


def test_spacy_3_on_python_3_11_keeps_spacy_2_or_ports():
    m, t = tailored_as(SPACY, E966, facts(packages={"spacy": {"version": "3.7.5"}}))
    assert m.confidence == HIGH
    assert t.commands == ['/home/u/venv/bin/python -m pip install "spacy<3" "numpy<2"']
    assert "spaCy 3.7.5 is 3.x" in t.summary


def test_a_shortcut_name_gets_its_full_model_name():
    _, t = tailored_as(SPACY, E941, facts(packages={"spacy": {"version": "3.0.9"}}))
    # spaCy 2 links the shortcut only when downloaded by it; porting names the full model
    assert t.commands[-1] == "/home/u/venv/bin/python -m spacy download de"
    assert 'spacy.load("de_core_news_sm")' in t.summary


def test_no_spacy_2_pin_where_it_has_no_wheel():
    _, t = tailored_as(SPACY, E966, facts(py="3.12.4", packages={"spacy": {"version": "3.8.2"}}))
    assert t.commands == [] and "no wheel for Python 3.12" in t.summary


@pytest.mark.parametrize("version", ["2.3.9", "1.9.0"])
def test_an_older_spacy_here_means_another_environment_failed(version):
    _, t = tailored_as(SPACY, E966, facts(packages={"spacy": {"version": version}}))
    assert "spaCy %s here is older than 3.0" % version in t.summary and "import spacy as m" in t.commands[0]


def test_doc_string_is_spacy_1_code_no_pin_revives():
    _, t = tailored_as(SPACY, "AttributeError: 'spacy.tokens.doc.Doc' object has no attribute 'string'",
                       facts(packages={"spacy": {"version": "3.7.5"}}))
    assert t.commands == [] and "spaCy 1 code" in t.summary


@pytest.mark.parametrize("text", [
    "[E050] Can't find model 'en_core_web_sm'. It doesn't seem to be a Python package or a valid path to a data "
    "directory.",  # the model package is missing: not an API change
    "AttributeError: 'Span' object has no attribute 'string'",  # another library's Span
    "AttributeError: 'spacy.tokens.span.Span' object has no attribute 'text_with_ws_'",
])
def test_other_spacy_errors_are_not_the_v3_break(text):
    m = top(text)
    assert m is None or m.id != SPACY


@pytest.mark.parametrize("version,upgrade", [("4.22.0", True), ("4.24.0", True), ("4.21.3", False),
                                             ("4.25.0", False), ("4.25.1", False), ("4.46.0", False)])
def test_blip_is_upgraded_only_where_transformers_refuses_it(version, upgrade):
    m, t = tailored_as(BLIP, BLIP_TEXT, facts(packages={"transformers": {"version": version}}))
    assert m.confidence == HIGH
    if upgrade:
        # a ceiling too: from 4.56 BLIP's med.py cannot import its helpers from modeling_utils
        assert t.commands == ['/home/u/venv/bin/python -m pip install "transformers>=4.25.1,<4.56"']
    else:
        assert "another environment" in t.summary and "import transformers; print(transformers.__version__, transformers.__file__)" in t.commands[0]


def test_an_unreadable_transformers_version_leaves_the_entrys_own_fix():
    _, t = tailored_as(BLIP, BLIP_TEXT, facts(packages={"transformers": {"version": "unknown"}}))
    assert t is None


def test_other_unused_model_kwargs_are_not_blips():
    m = top("ValueError: The following `model_kwargs` are not used by the model: ['token_type_ids'] (note: typos in "
            "the generate arguments will also show up in this list)")
    assert m is None or m.id != BLIP


@pytest.mark.slow
def test_spacy_2_code_fails_on_spacy_3_for_real_and_the_printed_pin_heals_it(tmp_path):
    py, t = failing_in_venv(tmp_path, "spacy>=3,<4", SPACY2_CODE, SPACY)
    # the pin carries NumPy's: spaCy 2.3.9 beside the NumPy 2 that spaCy 3 brought stops at import
    assert t.commands[0].endswith('install "spacy<3" "numpy<2"'), t.commands
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", SPACY2_CODE], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "['Hello there. ', 'Bye now.']"


@pytest.mark.slow
def test_blip_fails_on_transformers_4_24_for_real_and_the_printed_upgrade_heals_it(tmp_path):
    py, t = failing_in_venv(tmp_path, ["torch==2.13.0", "transformers==4.24.0", "numpy<2"], BLIP_CODE, BLIP)
    assert "transformers 4.24.0 is one of the releases" in t.summary
    assert len(t.commands) == 1 and t.commands[0].endswith('install "transformers>=4.25.1,<4.56"')
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", BLIP_CODE], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "(1, 4)"
