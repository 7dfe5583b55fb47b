"""diffusers before 0.8.0 cannot load transformers' image processors: DiffusionPipeline's loader
getattr()s None. Read in diffusers' pipeline_utils only, never in transformers' own getattr."""

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH

ENTRY = "diffusers-too-old-for-pipeline-component"
TRACE = ('  File "/usr/local/lib/python3.8/site-packages/diffusers/pipeline_utils.py", line 455, in from_pretrained\n'
         "    load_method = getattr(class_obj, load_method_name)\n"
         "TypeError: getattr(): attribute name must be string")


@pytest.mark.parametrize("text", [
    TRACE,
    "bug:getattr(): attribute name must be string\n\nI've encountered a mistake ... outdated version of diffusers.",
    "--> 201             save_method = getattr(sub_model, save_method_name)\nTypeError: getattr(): attribute name "
    "must be string",
])
def test_read_in_diffusers_pipeline_loading(text):
    m = top(text)
    assert m is not None and m.id == ENTRY and m.confidence == HIGH


@pytest.mark.parametrize("text", [
    "TypeError: getattr(): attribute name must be string",  # nothing says diffusers
    '  File "/opt/conda/lib/python3.8/site-packages/transformers/models/auto/tokenization_auto.py", line 395, in '
    "tokenizer_class_from_name\n    return getattr(module, class_name)\nTypeError: getattr(): attribute name must be "
    "string",  # transformers' tokenizer lookup: sentencepiece missing, another cause
])
def test_not_read_elsewhere(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def test_an_old_diffusers_is_upgraded_past_080():
    _, t = tailored_as(ENTRY, TRACE, facts(packages={"diffusers": {"version": "0.3.0"},
                                                     "transformers": {"version": "4.29.2"}}))
    assert t.summary.startswith("diffusers 0.3.0 predates 0.8.0")
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "diffusers>=0.8.0"']


@pytest.mark.parametrize("have", ["0.8.0", "0.20.0"])
def test_a_diffusers_that_loads_image_processors_gets_no_upgrade(have):
    _, t = tailored_as(ENTRY, TRACE, facts(packages={"diffusers": {"version": have}}))
    assert "imported an older diffusers" in t.summary and not any("install" in c for c in t.commands)


def test_no_diffusers_read_leaves_the_entrys_own_fix():
    _, t = tailored_as(ENTRY, TRACE, facts())
    assert t is None


@pytest.mark.parametrize("text", [
    # Python 3.11+ words the same getattr(None) this way (diffusers 0.3/0.4)
    "    load_method = getattr(class_obj, load_method_name)\nTypeError: attribute name must be string, not 'NoneType'",
    # diffusers 0.5 to 0.7 check first
    "ValueError: The component <class 'transformers.models.clip.image_processing_clip.CLIPImageProcessor'> of <class "
    "'diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion.StableDiffusionPipeline'> cannot be loaded as it "
    "does not seem to have any of the loading methods defined in {'ModelMixin': ['save_pretrained', 'from_pretrained']}.",
])
def test_the_other_wordings_of_the_same_cause(text):
    m = top(text)
    assert m is not None and m.id == ENTRY and m.confidence == HIGH


def test_python_311s_getattr_words_alone_are_any_programs():
    text = ('from diffusers import StableDiffusionPipeline\n  File "train.py", line 9, in <module>\n'
            '    dtype = getattr(torch, cfg.get("dtype"))\nTypeError: attribute name must be string, not \'NoneType\'')
    m = top(text)
    assert m is None or m.id != ENTRY


def test_the_save_paths_311_wording_is_read():
    save = ("    save_method = getattr(sub_model, save_method_name)\n"
            "TypeError: attribute name must be string, not 'NoneType'")
    m = top(save)
    assert m is not None and m.id == ENTRY
