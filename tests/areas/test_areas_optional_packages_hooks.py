"""Optional packages a feature imports on demand: installed in this interpreter means the failing
process ran another one; missing means this interpreter's pip, with the distribution's own name."""

from torchdoctor.areas.optional_packages import dist_name, report_key
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from hook_facts import explain as explain_as


def facts(installed):
    return Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
                  "packages": {"installed": installed}})


def explain(text, f):
    return explain_as(text, "python-package-missing", f)


def test_a_missing_package_is_installed_with_this_interpreters_pip_under_its_pip_name():
    e = explain("ValueError: Using `fp8` precision requires `transformer_engine` to be installed.", facts({}))
    assert e.fix.commands == ["/opt/env/bin/python -m pip install 'transformer-engine[pytorch]'"]


def test_an_installed_package_means_the_failing_process_ran_another_interpreter():
    e = explain("ImportError: DeepSpeed is not available => install it using `pip3 install deepspeed` or build it "
                "from source", facts({"deepspeed": {"version": "0.16.4", "location": "/opt/env/lib"}}))
    assert "deepspeed 0.16.4 is installed in /opt/env/bin/python" in e.fix.summary
    assert not any("pip install" in c for c in e.fix.commands)


def test_torch_hub_lists_every_missing_dependency():
    e = explain("RuntimeError: Missing dependencies: fastBPE, sacremoses, subword_nmt", facts({}))
    assert e.fix.commands == ["/opt/env/bin/python -m pip install fastbpe sacremoses subword_nmt"]


def test_names_in_messages_map_to_the_distributions_pip_knows():
    assert dist_name("PIL") == "Pillow" and dist_name("opt_einsum") == "opt-einsum"
    assert report_key("transformer-engine[pytorch]") == "transformer-engine"
    assert report_key("torchdata>=0.8.0") == "torchdata"


def test_a_plain_module_not_found_is_this_entry_only_as_a_possibility():
    # Python's words for any module: never a diagnosis, since the module may be the project's own
    found = match_text("ModuleNotFoundError: No module named 'gdown'")
    assert [(m.id, m.confidence) for m in found] == [("python-package-missing", "possible")]


def test_torch_cuda_nvml_queries_install_nvidia_ml_py_under_either_name_torch_gives():
    # torch before 2.9 named the import (pynvml); later ones name the distribution.
    for text in ("ModuleNotFoundError: pynvml does not seem to be installed or it can't be imported.",
                 "ModuleNotFoundError: nvidia-ml-py does not seem to be installed or it can't be imported."):
        e = explain(text, facts({}))
        assert e.fix.commands == ["/opt/env/bin/python -m pip install nvidia-ml-py"], text


def test_timms_hub_message_with_an_old_hub_installed_is_an_upgrade():
    # timm says "not installed" when an old huggingface_hub lacks a function it imports
    e = explain("RuntimeError: Hugging Face hub model specified but package not installed. Run `pip install "
                "huggingface_hub`.", facts({"huggingface-hub": {"version": "0.9.1"}}))
    assert "older than this timm needs" in e.fix.summary
    assert e.fix.commands == ["/opt/env/bin/python -m pip install --upgrade huggingface_hub"]
