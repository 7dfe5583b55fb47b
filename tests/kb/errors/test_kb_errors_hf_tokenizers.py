"""Tokenizers that transformers cannot build: a class name the installed transformers does not
have (newer, spelt otherwise, or another package's), and a custom SentencePiece tokenizer
written for transformers before 4.34."""

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import HIGH, match_text

from hook_facts import facts, top

NOT_FOUND = "ValueError: Tokenizer class %s does not exist or is not currently imported."


def tailored(cls, **kw):
    m = top(NOT_FOUND % cls)
    assert m.id == "hf-tokenizer-class-not-found" and m.confidence == HIGH
    return hooks()[m.entry.tailor](m, facts(**kw))


@pytest.mark.parametrize("cls", ["LLaMATokenizer", "LLamaTokenizer", "LLaMATokenizerFast"])
def test_a_misspelt_llama_class_is_corrected_in_the_models_file(cls):
    t = tailored(cls, packages={"transformers": {"version": "4.30.2"}})
    assert "names `%s`; transformers' class is `LlamaTokenizer`" % cls in t.summary
    assert '"tokenizer_class" to "LlamaTokenizer"' in t.summary and t.commands == []


@pytest.mark.parametrize("cls,have,since", [("LlamaTokenizer", "4.27.4", "4.28.0"),
                                            ("Qwen2Tokenizer", "4.36.2", "4.37.0"),
                                            ("GemmaTokenizer", "4.37.2", "4.38.0")])
def test_a_class_newer_than_the_installed_transformers_is_an_upgrade_to_its_first_release(cls, have, since):
    t = tailored(cls, packages={"transformers": {"version": have}})
    assert t.summary.startswith("%s first shipped in transformers %s (%s is installed here)" % (cls, since, have))
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=%s"' % since]


def test_a_class_the_installed_transformers_has_means_another_transformers_ran():
    t = tailored("LlamaTokenizer", packages={"transformers": {"version": "4.40.0"}})
    assert t.summary.startswith("transformers 4.40.0 here has LlamaTokenizer: the failing process imported an older")
    assert "import transformers" in t.commands[0]


def test_a_class_of_no_transformers_release_names_its_package_or_the_models_code():
    t = tailored("IndoNLGTokenizer", packages={"transformers": {"version": "4.34.0"}})
    assert t.summary.startswith("`IndoNLGTokenizer` is no tokenizer class of the transformers that ran (4.34.0 here)")
    assert "trust_remote_code=True" in t.summary
    # without facts: the same reading, no installed version claimed
    assert "here" not in tailored("IndoNLGTokenizer").summary.split(":")[0]


@pytest.mark.parametrize("text", [
    "AttributeError: 'IndoNLGTokenizer' object has no attribute 'sp_model'",
    "AttributeError: 'ReplitLMTokenizer' object has no attribute 'sp_model'",
    "AttributeError: 'BaichuanTokenizer' object has no attribute 'sp_model'",
])
def test_any_sentencepiece_tokenizer_without_sp_model_is_one_written_for_transformers_before_4_34(text):
    assert top(text).id == "chatglm-tokenizer-newer-transformers"


@pytest.mark.parametrize("text", [
    # another attribute of an arbitrary tokenizer: its own code, no release boundary known
    "AttributeError: 'MyTokenizer' object has no attribute 'vocab'",
    # not a tokenizer class
    "AttributeError: 'SentencePieceProcessor' object has no attribute 'sp_model'",
    # the tokenizer's own words about a missing file, not a class lookup
    "OSError: Can't load tokenizer for 'bert-base-uncased'.",
])
def test_other_tokenizer_errors_are_not_these(text):
    ids = [m.id for m in match_text(text)]
    assert "chatglm-tokenizer-newer-transformers" not in ids and "hf-tokenizer-class-not-found" not in ids
