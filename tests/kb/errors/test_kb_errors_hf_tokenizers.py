"""Tokenizers that transformers cannot build: a class name the installed transformers does not
have (newer, spelt otherwise, or another package's), and a custom SentencePiece tokenizer
written for transformers before 4.34."""

import json
import os
import subprocess

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text

from hook_facts import facts, top, venv_with

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


def test_a_misspelt_class_under_a_transformers_without_it_needs_the_upgrade_too():
    t = tailored("LLaMATokenizer", packages={"transformers": {"version": "4.27.4"}})
    assert "and upgrade transformers 4.27.4, which predates it (4.28.0)" in t.summary
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=4.28.0,<5"']


@pytest.mark.parametrize("cls,have,since", [("LlamaTokenizer", "4.27.4", "4.28.0"),
                                            ("Qwen2Tokenizer", "4.36.2", "4.37.0"),
                                            ("GemmaTokenizer", "4.37.2", "4.38.0")])
def test_a_class_newer_than_the_installed_transformers_is_an_upgrade_to_its_first_release(cls, have, since):
    t = tailored(cls, packages={"transformers": {"version": have}})
    assert t.summary.startswith("%s first shipped in transformers %s (%s is installed here)" % (cls, since, have))
    # a 4.x class: below 5, which removed much that code written for 4.x calls
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=%s,<5"' % since]


def test_a_config_saved_by_transformers_5_is_edited_or_transformers_5_installed():
    t = tailored("TokenizersBackend", torch="2.5.1", packages={"transformers": {"version": "4.57.1"}})
    assert t.summary.startswith("The model was saved by transformers 5")
    assert '"tokenizer_class" to "PreTrainedTokenizerFast"' in t.summary
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=5.0.0"']
    # transformers 5 needs Python 3.10 and torch 2.2: only the edit is offered
    t = tailored("TokenizersBackend", torch="2.5.1", py="3.9.18", packages={"transformers": {"version": "4.57.1"}})
    assert "which this environment does not have" in t.summary and t.commands == []


@pytest.mark.parametrize("torch", ["1.13.1", "2.1.0a0+32f93b1"])
def test_the_upgrade_stops_below_the_first_transformers_that_disables_this_torch(torch):
    # transformers 4.52 disables a torch below 2.1 (read in the 4.51.0 and 4.52.0 wheels), comparing whole
    # versions: an NGC 2.1.0a0 is below it
    t = tailored("LlamaTokenizer", torch=torch, packages={"transformers": {"version": "4.27.4"}})
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=4.28.0,<4.52"']


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


INIT_ORDER = "chatglm-tokenizer-newer-transformers"


@pytest.mark.parametrize("text,confidence", [
    ("AttributeError: 'IndoNLGTokenizer' object has no attribute 'sp_model'", POSSIBLE),
    ("AttributeError: 'ReplitLMTokenizer' object has no attribute 'sp_model'", POSSIBLE),
    # the classes known to be written this way: a diagnosis
    ("AttributeError: 'BaichuanTokenizer' object has no attribute 'sp_model'", HIGH),
])
def test_any_sentencepiece_tokenizer_without_sp_model_is_one_written_for_transformers_before_4_34(text, confidence):
    m = top(text)
    assert m.id == INIT_ORDER and m.confidence == confidence


def init_order(text, **kw):
    m = top(text)
    return hooks()[m.entry.tailor](m, facts(**kw))


def test_a_newer_transformers_is_pinned_back():
    t = init_order("AttributeError: 'P5Tokenizer' object has no attribute 'sp_model'",
                   packages={"transformers": {"version": "4.34.0"}})
    assert t.summary.startswith("`P5Tokenizer` was written for transformers before 4.34 (4.34.0 is installed here)")
    assert t.commands == ['/home/u/venv/bin/python -m pip install "transformers<4.34"']


def test_an_older_transformers_here_means_another_one_ran():
    t = init_order("AttributeError: 'P5Tokenizer' object has no attribute 'sp_model'",
                   packages={"transformers": {"version": "4.30.2"}})
    assert t.summary.startswith("transformers 4.30.2 here is older than 4.34")
    assert "import transformers" in t.commands[0]


def test_on_python_3_12_the_pin_back_has_no_wheels_so_the_code_is_updated_instead():
    # transformers 4.33 needs tokenizers<0.14, whose last release (0.13.3) has wheels up to cp311
    t = init_order("AttributeError: 'ChatGLMTokenizer' object has no attribute 'sp_tokenizer'", py="3.12.4",
                   packages={"transformers": {"version": "4.40.0"}})
    assert "On Python 3.12 the pin back cannot install from wheels" in t.summary and t.commands == []


def test_transformers_own_sentencepiece_classes_are_not_custom_code():
    ids = [m.id for m in match_text("AttributeError: 'T5Tokenizer' object has no attribute 'sp_model'")]
    assert INIT_ORDER not in ids


def test_sentencepiece_installed_here_means_another_interpreter_or_nothing_to_convert():
    m = top(CONVERT % "")
    t = hooks()[m.entry.tailor](m, facts(packages={"sentencepiece": {"version": "0.2.0"},
                                                   "transformers": {"version": "4.27.4"}}))
    assert t.summary.startswith("sentencepiece 0.2.0 is installed in /home/u/venv/bin/python")
    assert "import sentencepiece" in t.commands[0]


@pytest.mark.parametrize("text", [
    # another attribute of an arbitrary tokenizer: its own code, no release boundary known
    "AttributeError: 'MyTokenizer' object has no attribute 'vocab'",
    # another library's tokenizer without its own `sp` attribute (not transformers' sp_model)
    "AttributeError: 'SentencePieceTokenizer' object has no attribute 'sp'",
    # the tokenizer's own words about a missing file, not a class lookup
    "OSError: Can't load tokenizer for 'bert-base-uncased'.",
])
def test_other_tokenizer_errors_are_not_these(text):
    ids = [m.id for m in match_text(text)]
    assert INIT_ORDER not in ids and "hf-tokenizer-class-not-found" not in ids


def test_speechbrains_symlink_refusal_is_the_windows_privilege():
    m = top("SpeechBrain's fetch links the file:\nOSError: [WinError 1314] A required privilege is not held by the client")
    assert m.id == "hf-hub-windows-symlink-privilege"


# A tiny fast tokenizer's files, written with the tokenizers library inside the test's environment;
# the config names the class a LLaMA conversion names.
MAKE_MODEL = r"""
import json, os, sys
from tokenizers import Tokenizer, models, pre_tokenizers
folder, cls = sys.argv[1], sys.argv[2]
os.makedirs(folder, exist_ok=True)
vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "hello": 3, "world": 4}
tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.Whitespace()
tok.save(os.path.join(folder, "tokenizer.json"))
with open(os.path.join(folder, "tokenizer_config.json"), "w") as fh:
    json.dump({"tokenizer_class": cls, "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}, fh)
"""
LOAD = "import sys; from transformers import AutoTokenizer; print(AutoTokenizer.from_pretrained(sys.argv[1])('hello world')['input_ids'])"


def break_and_heal(py, run, env, model, words, entry, command_end):
    """Load the tokenizer (it fails with `words`), explain the failure with the environment's own
    facts, run the first printed command, load again: the loaded result."""
    from torchdoctor.gather.light import light_facts

    broken = run(py, "-c", LOAD, model)
    assert broken.returncode != 0 and words in broken.stderr, broken.stderr[-600:]
    m = top(broken.stderr)
    assert m.id == entry
    t = hooks()[m.entry.tailor](m, light_facts(py))
    assert t.commands[0].endswith(command_end), t.commands
    healed = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=900, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]
    loaded = run(py, "-c", LOAD, model)
    assert loaded.returncode == 0, loaded.stderr[-600:]
    return loaded


@pytest.mark.slow
def test_a_real_transformers_without_the_class_is_healed_by_the_printed_upgrade(tmp_path):
    from torchdoctor.gather.light import light_facts

    py, run, env = venv_with(tmp_path, "transformers==4.27.4")
    model = str(tmp_path / "model")
    assert run(py, "-c", MAKE_MODEL, model, "LlamaTokenizer").returncode == 0
    loaded = break_and_heal(py, run, env, model, NOT_FOUND % "LlamaTokenizer", "hf-tokenizer-class-not-found",
                            '-m pip install --upgrade "transformers>=4.28.0,<5"')
    assert "3, 4" in loaded.stdout

    # the early conversions' spelling, under a transformers that has the class: the file is corrected
    misspelt = str(tmp_path / "misspelt")
    assert run(py, "-c", MAKE_MODEL, misspelt, "LLaMATokenizer").returncode == 0
    broken = run(py, "-c", LOAD, misspelt)
    assert NOT_FOUND % "LLaMATokenizer" in broken.stderr, broken.stderr[-600:]
    m = top(broken.stderr)
    t = hooks()[m.entry.tailor](m, light_facts(py))
    assert '"tokenizer_class" to "LlamaTokenizer"' in t.summary and t.commands == []
    config = os.path.join(misspelt, "tokenizer_config.json")
    with open(config) as fh:
        data = json.load(fh)
    data["tokenizer_class"] = "LlamaTokenizer"  # what the summary says to do
    with open(config, "w") as fh:
        json.dump(data, fh)
    loaded = run(py, "-c", LOAD, misspelt)
    assert loaded.returncode == 0 and "3, 4" in loaded.stdout, loaded.stderr[-600:]


CONVERT = ("ValueError: Couldn't instantiate the backend tokenizer from one of: \n(1) a `tokenizers` library serialization "
           "file, \n(2) a slow tokenizer instance to convert or \n(3) an equivalent slow tokenizer class to instantiate and "
           "convert. \nYou need to have sentencepiece%s installed to convert a slow tokenizer to a fast one.")


@pytest.mark.parametrize("words,have,proto", [
    ("", "4.27.4", '"protobuf<=3.20.3"'),        # its generated protobuf module predates protobuf 4
    (" or tiktoken", "4.57.1", "protobuf"),      # 4.31 added one for protobuf 4
    ("", None, "protobuf"),
])
def test_a_sentencepiece_tokenizer_converted_to_a_fast_one_needs_sentencepiece_and_protobuf(words, have, proto):
    m = top(CONVERT % words)
    assert m.id == "python-package-missing" and m.confidence == HIGH
    t = hooks()[m.entry.tailor](m, facts(packages={"transformers": {"version": have}} if have else {}))
    assert t.commands == ["/home/u/venv/bin/python -m pip install sentencepiece %s" % proto]
    assert "use_fast=False" in t.summary


MAKE_SPM = r"""
import json, os, sys
import sentencepiece as spm
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
corpus = os.path.join(folder, "corpus.txt")
with open(corpus, "w") as fh:
    fh.write("\n".join("hello world this is a tiny corpus for a test tokenizer number %d" % i for i in range(200)))
spm.SentencePieceTrainer.train(input=corpus, model_prefix=os.path.join(folder, "spiece"), vocab_size=40,
                               bos_id=-1, eos_id=1, unk_id=2, pad_id=0, minloglevel=2)
os.remove(corpus)
with open(os.path.join(folder, "tokenizer_config.json"), "w") as fh:
    json.dump({"tokenizer_class": "T5Tokenizer"}, fh)
"""


@pytest.mark.slow
def test_a_real_missing_sentencepiece_is_healed_by_the_printed_command(tmp_path):
    py, run, env = venv_with(tmp_path, "transformers==4.27.4", "sentencepiece")
    model = str(tmp_path / "model")
    assert run(py, "-c", MAKE_SPM, model).returncode == 0
    assert run(py, "-m", "pip", "uninstall", "-q", "-y", "sentencepiece").returncode == 0
    loaded = break_and_heal(py, run, env, model, "You need to have sentencepiece installed", "python-package-missing",
                            '-m pip install sentencepiece "protobuf<=3.20.3"')
    assert "[" in loaded.stdout


# A BPE tokenizer.json as tokenizers 0.20 and later save it: merges as pairs.
NEW_FORMAT = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
              "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
              "model": {"type": "BPE", "dropout": None, "unk_token": "[UNK]", "continuing_subword_prefix": None,
                        "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                        "vocab": {"[UNK]": 0, "a": 1, "b": 2, "ab": 3}, "merges": [["a", "b"]]}}
LOAD_FILE = ("import sys; from transformers import PreTrainedTokenizerFast; "
             "print(PreTrainedTokenizerFast(tokenizer_file=sys.argv[1])('ab ab')['input_ids'])")


@pytest.mark.slow
def test_a_tokenizer_json_in_the_new_format_is_healed_by_the_printed_transformers_upgrade(tmp_path):
    from torchdoctor.gather.light import light_facts

    py, run, env = venv_with(tmp_path, "transformers==4.44.2")
    path = str(tmp_path / "tokenizer.json")
    with open(path, "w") as fh:
        json.dump(NEW_FORMAT, fh)
    broken = run(py, "-c", LOAD_FILE, path)
    assert broken.returncode != 0 and "untagged enum ModelWrapper" in broken.stderr, broken.stderr[-600:]
    m = top(broken.stderr)
    assert m.id == "hf-tokenizer-json-newer-format"
    t = hooks()[m.entry.tailor](m, light_facts(py))
    assert "predates" in t.summary and t.commands[0].endswith('-m pip install --upgrade "transformers>=4.45.0,<5"'), t
    healed = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=900, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]
    loaded = run(py, "-c", LOAD_FILE, path)
    assert loaded.returncode == 0 and "[3, 3]" in loaded.stdout, loaded.stderr[-600:]
