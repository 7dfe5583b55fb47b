"""Libraries and tools out of step with the code that uses them: any installed library missing a
name, Lightning against torch 2, pandas' optional-dependency floor, Python 3.11's dataclass
defaults, zsh's glob of pip extras, an app's own no-GPU notice. The lines are built for the test in
the formats Python, pandas, Lightning and zsh print; none is an evaluation text."""

import pytest

from torchdoctor.areas.optional_packages import dist_name
from torchdoctor.areas.registry import all_hooks as hooks

from hook_facts import facts, top
from torchdoctor.match.matcher import POSSIBLE, match_text


def tailored(text, f):
    m = top(text)
    return hooks()[m.entry.tailor](m, f)


SITE = "/home/u/venv/lib/python3.11/site-packages"
WIN_SITE = "C:\\Users\\u\\miniconda3\\envs\\geo\\Lib\\site-packages"


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name 'Units' from 'torchgeo.samplers' (%s\\torchgeo\\samplers\\__init__.py)" % WIN_SITE,
    "ImportError: cannot import name 'clipped' from 'albucore.utils' (%s/albucore/utils.py)" % SITE,
    "ImportError: cannot import name 'LegacyThing' from 'somelib' (%s/somelib/__init__.py)" % SITE,
    "ImportError: cannot import name 'instantiate' from 'monai.utils' (/opt/conda/lib/python3.10/dist-packages/monai/utils/__init__.py)",
    "AttributeError: module 'albumentations' has no attribute 'Affine'. Did you mean: 'IAAAffine'?",
    "AttributeError: module 'kornia.geometry' has no attribute 'warp_affine3d'",
    # Lightning's trainer without an attribute an integration reads, and a callback hook it removed
    "AttributeError: 'Trainer' object has no attribute 'training_type_plugin'",
    "RuntimeError: The `on_init_start` callback hook was deprecated in v1.6 and is no longer supported as of v1.8.",
])
def test_a_name_missing_from_an_installed_library_is_its_version(text):
    assert top(text).id == "hf-library-version-mismatch"


@pytest.mark.parametrize("text", [
    # the user's own module, and a circular import: not an installed library's version
    "ImportError: cannot import name 'helper' from 'utils' (/home/u/project/utils.py)",
    "ImportError: cannot import name 'A' from partially initialized module 'mypkg' (most likely due to a circular "
    "import) (%s/mypkg/__init__.py)" % SITE,
    "AttributeError: module 'mymodel' has no attribute 'Net'",
    # a circular import or a local file named like the library
    "AttributeError: partially initialized module 'timm' has no attribute 'create_model' (most likely due to a "
    "circular import)",
    # a private name: a broken install, not a version
    "ImportError: cannot import name '_imaging' from 'PIL' (%s/PIL/__init__.py)" % SITE,
])
def test_the_users_own_modules_are_not_a_library_version(text):
    m = top(text)
    assert m is None or m.id != "hf-library-version-mismatch"


def test_torchs_own_names_are_left_to_torchs_entries():
    m = top("ImportError: cannot import name 'sdpa_kernel' from 'torch.nn.attention' (%s/torch/nn/attention/__init__.py)" % SITE)
    assert m is not None and m.id != "hf-library-version-mismatch"


@pytest.mark.parametrize("module,dist", [("google.protobuf.internal", "protobuf"), ("pkg_resources.extern", "setuptools"),
                                         ("open_clip.model", "open-clip-torch"), ("albucore.utils", "albucore")])
def test_the_hook_names_the_pip_name_of_the_module(module, dist):
    t = tailored("ImportError: cannot import name 'thing' from '%s' (%s/%s/__init__.py)" % (module, SITE, module), facts())
    assert t.commands[0] == "/home/u/venv/bin/python -m pip show %s" % dist


def test_the_hook_names_the_distribution_and_its_version_where_known():
    t = tailored("ImportError: cannot import name 'x' from 'sklearn.utils' (%s/sklearn/utils/__init__.py)" % SITE, facts())
    assert t.commands == ["/home/u/venv/bin/python -m pip show scikit-learn", "/home/u/venv/bin/python -m pip check"]
    t = tailored("ImportError: cannot import name 'Spam' from 'accelerate' (%s/accelerate/__init__.py)" % SITE,
                 facts(packages={"accelerate": {"version": "0.20.3", "location": SITE}}))
    assert "installed accelerate: 0.20.3" in t.notes and "no `Spam`" in t.summary


@pytest.mark.parametrize("text", [
    "TypeError: __init__() got an unexpected keyword argument 'progress_bar_refresh_rate'",
    # GitHub's Markdown renders __init__ in prose as a bold "init"
    "TypeError: init() got an unexpected keyword argument \u2018progress_bar_refresh_rate\u2019",
    "TypeError: Trainer.__init__() got an unexpected keyword argument 'weights_summary'",
])
def test_lightnings_removed_trainer_arguments(text):
    assert top(text).id == "lightning2-trainer-removed-argument"


def test_a_bare_init_with_an_ordinary_argument_is_no_lightning_reading():
    m = top("TypeError: init() got an unexpected keyword argument 'max_value'")
    assert m is None or m.id != "lightning2-trainer-removed-argument"


LR_API = ("lightning_fabric.utilities.exceptions.MisconfigurationException: The provided lr scheduler %s doesn't "
          "follow PyTorch's LRScheduler API. You should override the `LightningModule.lr_scheduler_step` hook")


@pytest.mark.parametrize("sched", ["StepLR", "`CosineAnnealingLR`"])
def test_an_old_lightning_refuses_torch_2_schedulers(sched):
    m = top(LR_API % sched)
    assert m.id == "lightning-lr-scheduler-api-torch2" and m.confidence == "high"


def test_a_scheduler_that_is_not_torchs_is_no_lightning_version_reading():
    # every Lightning refuses a scheduler that is no torch LRScheduler (timm's): the hook is the fix
    m = top(LR_API % "`CosineLRScheduler`")
    assert m is None or m.id != "lightning-lr-scheduler-api-torch2"


def test_pandas_optional_dependency_floor_is_a_package_too_old():
    m = top("UserWarning: Pandas requires version '1.3.6' or newer of 'bottleneck' (version '1.3.5' currently installed).")
    assert m.id == "python-package-missing" and m.groups["pkg"] == "bottleneck" and m.groups["need"] == "1.3.6"


def test_an_apps_no_gpu_notice_is_cuda_not_available_possibly():
    m = top("2024-01-02 10:00:00,000 [INFO] TORCH CUDA version not installed/working.")
    assert m.id == "cuda-not-available" and m.confidence == "possible"
    assert top("** TORCH CUDA version installed and working. **") is None


DATACLASS = ("ValueError: mutable default <class 'esmlike.trunk.StructureConfig'> for field structure is not allowed: "
             "use default_factory")


@pytest.mark.parametrize("kind", ["list", "dict", "set"])
def test_a_list_dict_or_set_default_is_refused_on_every_python_and_is_no_311_reading(kind):
    m = top("ValueError: mutable default <class '%s'> for field tags is not allowed: use default_factory" % kind)
    assert m is None or m.id != "python311-dataclass-mutable-default"


def test_python_311_dataclass_defaults():
    m = top(DATACLASS)
    assert m.id == "python311-dataclass-mutable-default" and m.confidence == "high"
    t = tailored(DATACLASS, facts(py="3.12.3"))
    # the class named is the default value's type, not the package to upgrade: no pip name guessed
    assert t.commands == ["python3.10 -m venv .venv", ".venv/bin/python -m pip install <package>"]
    assert "above dataclasses.py" in t.summary
    t = tailored(DATACLASS, facts(py="3.12.3", system="Windows"))
    assert t.commands[0] == "py -3.10 -m venv .venv"
    # the Python read here accepts such defaults: the failing program ran on another one
    t = tailored(DATACLASS, facts(py="3.10.12"))
    assert t.commands is None and "another Python" in t.cause


@pytest.mark.parametrize("line,req", [
    ("zsh: no matches found: fair-esmlike[fold]", "fair-esmlike[fold]"),
    ("zsh: no matches found: .[dev,test]", ".[dev,test]"),
    ("no matches found: transformers[torch]==4.40.0", "transformers[torch]==4.40.0"),
])
def test_zsh_refusing_pip_extras_gets_the_quoted_command(line, req):
    m = top("$ pip install %s\n%s" % (req, line))
    assert m.id == "zsh-glob-pip-extras" and m.groups["req"] == req
    t = hooks()[m.entry.tailor](m, facts())
    assert t.commands == ['/home/u/venv/bin/python -m pip install "%s"' % req]
    # zsh's line does not show an -e the command had: a local project's reading says to keep it
    assert bool(t.notes) == req.startswith(".")


@pytest.mark.parametrize("text,pkg", [
    ("ImportError: \nT5Tokenizer requires the SentencePiece library but it was not found in your environment. Checkout "
     "the instructions on the\ninstallation page of its repo", "SentencePiece"),
    ("ImportError: Detectron2LayoutModel requires the detectron2 library but it was not found in your environment.",
     "detectron2"),
])
def test_transformers_style_requires_backends_names_the_missing_package(text, pkg):
    m = top(text)
    assert m.id == "python-package-missing" and m.groups["pkg"] == pkg


def test_requires_backends_for_a_framework_is_not_a_plain_package():
    m = top("ImportError: AutoModel requires the PyTorch library but it was not found in your environment.")
    assert m is None or m.id != "python-package-missing"


def test_msvc_missing_is_possible_for_any_build_and_a_diagnosis_for_a_torch_extension():
    # Any package's build on Windows prints it (a TTS library's, matplotlib's): explain says
    # "possibly" with the cause in words for any build; beside torch's cpp_extension it is sure.
    m = top("error: Microsoft Visual C++ 14.0 or greater is required. Get it with \"Microsoft C++ Build Tools\"\n"
            "Failed to build tts")
    assert m.id == "cpp-extension-msvc-build-tools-missing" and m.confidence == "possible" and m.neutral is not None
    m = top("  File \"C:\\venv\\lib\\site-packages\\torch\\utils\\cpp_extension.py\", line 1, in build\n"
            "error: Microsoft Visual C++ 14.0 or greater is required.")
    assert m.id == "cpp-extension-msvc-build-tools-missing" and m.confidence == "high"


@pytest.mark.parametrize("text", [
    "  File \"/env/lib/python3.10/site-packages/groundingdino/models/GroundingDINO/ms_deform_attn.py\", line 53, in forward\n"
    "    output = _C.ms_deform_attn_forward(\nNameError: name '_C' is not defined",
    "---> 53         output = _C.ms_deform_attn_forward(\n     54             value,\n\nNameError: name '_C' is not defined",
    "    return _C.nms_rotated(boxes, scores, iou_threshold)\nNameError: name '_C' is not defined",
    "UserWarning: Failed to load custom C++ ops. Running on CPU mode Only!\nNameError: name '_C' is not defined",
    # the line alone: torch's own import would show torch's __init__.py beside it
    "NameError: name '_C' is not defined",
])
def test_a_packages_unbuilt_c_extension_called_is_not_torchs_own(text):
    assert top(text).id == "package-c-extension-not-built"


def test_torchs_own_name_c_error_stays_torchs():
    text = ("  File \"/home/u/pytorch/torch/__init__.py\", line 465, in <module>\n    for name in dir(_C):\n"
            "NameError: name '_C' is not defined")
    assert top(text).id == "torch-c-module-not-found"
    # a package's reading would print a `pip install -e .` that, in a PyTorch checkout, builds torch
    assert [m.id for m in match_text(text)].count("package-c-extension-not-built") == 0


def test_torchs_own_name_beside_a_packages_unbuilt_c_extension_is_the_package():
    text = ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: "
            "return torch._C._cuda_getDeviceCount() > 0\n"
            "  File \"/content/GroundingDINO/groundingdino/models/GroundingDINO/ms_deform_attn.py\", line 53, in forward\n"
            "    output = _C.ms_deform_attn_forward(\nNameError: name '_C' is not defined")
    assert top(text).id == "package-c-extension-not-built"


@pytest.mark.parametrize("text", ["I'm trying to run it but it says torch module not found",
                                  "Pytorch module not found when I start the app",
                                  "getting error module not found name 'torch'"])
def test_the_reporters_words_for_no_torch(text):
    assert top(text).id == "torch-module-not-found"


@pytest.mark.parametrize("system,first", [("Windows", 'setx PHONEMIZER_ESPEAK_LIBRARY "C:\\Program Files\\eSpeak NG\\libespeak-ng.dll"'),
                                          ("Darwin", "brew install espeak-ng"),
                                          ("Linux", "sudo apt-get install -y espeak-ng")])
def test_phonemizer_without_espeak_gets_this_oss_commands(system, first):
    text = "    raise RuntimeError(  # pragma: nocover\nRuntimeError: espeak not installed on your system"
    m = top(text)
    assert m.id == "phonemizer-espeak-not-found"
    t = hooks()[m.entry.tailor](m, facts(system=system))
    assert t.commands[0] == first
    t = hooks()[m.entry.tailor](m, facts(system=system, env={"PHONEMIZER_ESPEAK_LIBRARY": "/opt/x.so"}))
    assert any("/opt/x.so" in n for n in t.notes)


@pytest.mark.parametrize("text,want", [
    ("from mpi4py import MPI\nImportError: DLL load failed while importing MPI: The specified module could not be found.",
     "mpi4py-msmpi-missing"),
    ("ImportError: DLL load failed while importing MPI: The specified procedure could not be found.",
     "mpi4py-msmpi-missing"),
    ("RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used "
     "to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 11.8.", "cpp-extension-cuda-version-mismatch"),
    ("[WARNING]your gpu arch (12, 0) isn't compiled in prebuilt, may cause invalid device function. available: "
     "{(8, 6), (8, 9)}", "cuda-no-kernel-image"),
    ("I got many errors starting from common \"espeak not installed\"", "phonemizer-espeak-not-found"),
    ("the program fails because \"torch\" is not installed even after pip install requirements",
     "torch-module-not-found"),
])
def test_more_wordings_of_known_causes(text, want):
    assert top(text).id == want


def test_torch_not_installed_with_cuda_is_no_missing_torch():
    m = top("\"torch\" is not installed with CUDA support, only the CPU build")
    assert m is None or m.id != "torch-module-not-found"


def test_torch_named_as_a_backend_that_was_not_found_is_no_missing_torch():
    m = top("ValueError: the torch module was not found in the list of supported backends")
    assert m is None or m.id != "torch-module-not-found"


@pytest.mark.parametrize("text,dist", [
    ("ImportError: \nCLIPImageProcessor requires the OpenCV library but it was not found in your environment.",
     "opencv-python"),
    ("ImportError: Detectron2LayoutModel requires the detectron2 library but it was not found in your environment.",
     "git+https://github.com/facebookresearch/detectron2.git"),
    # Meta's SAM is imported as segment_anything and published as segment-anything
    ("    from segment_anything import SamPredictor, sam_model_registry\n"
     "ModuleNotFoundError: No module named 'segment_anything'", "segment-anything"),
])
def test_requires_backends_installs_the_pip_name(text, dist):
    t = tailored(text, facts())
    assert t.commands == ["/home/u/venv/bin/python -m pip install %s" % dist]


def test_requires_backends_never_installs_torchvision_beside_a_torch():
    m = top("ImportError: AutoImageProcessor requires the Torchvision library but it was not found in your environment.")
    assert m is None or m.id != "python-package-missing"


def test_a_version_floor_asks_pip_for_that_version():
    t = tailored("UserWarning: Pandas requires version '2.8.4' or newer of 'numexpr' (version '2.7.3' currently "
                 "installed).", facts())
    assert t.commands == ["/home/u/venv/bin/python -m pip install 'numexpr>=2.8.4'"]


def test_phonemizer_on_fedora_and_on_a_mac_of_either_homebrew():
    text = "RuntimeError: espeak not installed on your system"
    m = top(text)
    t = hooks()[m.entry.tailor](m, facts(os={"system": "Linux", "machine": "x86_64", "distro": "Fedora Linux 40"}))
    assert t.commands[0] == "sudo dnf install -y espeak-ng"
    t = hooks()[m.entry.tailor](m, facts(system="Darwin"))
    assert "$(brew --prefix)/lib/libespeak-ng.dylib" in t.commands[1]  # /opt/homebrew or /usr/local


@pytest.mark.parametrize("text,entry", [
    ("zsh: no matches found: *.ckpt", "zsh-glob-pip-extras"),
    # a private attribute of the trainer is the code's own business, not an API a release removed
    ("AttributeError: 'Trainer' object has no attribute '_results'", "hf-library-version-mismatch"),
    # an indexing expression typed at zsh, not a requirement
    ("zsh: no matches found: model.layers[0].weight", "zsh-glob-pip-extras"),
    # another error raised inside a compiled op: its frame line is no missing extension
    ("    output = _C.ms_deform_attn_forward(\nRuntimeError: expected scalar type Float but found Half",
     "package-c-extension-not-built"),
    ("    return _C.parse_schema(schema)\nRuntimeError: Unknown builtin op: aten::foo", "package-c-extension-not-built"),
    # another speech front end, and eSpeak reported present
    ("RuntimeError: festival not installed on your system", "phonemizer-espeak-not-found"),
    ("espeak-ng is installed and on PATH", "phonemizer-espeak-not-found"),
    # another extension module's DLL failure in the same wording
    ("ImportError: DLL load failed while importing cv2: The specified module could not be found.",
     "mpi4py-msmpi-missing"),
    ("ImportError: DLL load failed while importing _mpi_helpers: The specified module could not be found.",
     "mpi4py-msmpi-missing"),
    # transformers' own failure on a dict sub-config, and an attribute that is no config's
    ("AttributeError: 'dict' object has no attribute '_attn_implementation_internal'", "hf-library-version-mismatch"),
    ("AttributeError: 'BertModel' object has no attribute 'attn_implementation'", "hf-library-version-mismatch"),
    # the import line must name the library: the user's own module
    ("    from mymodels.utils import ModelOutput\nImportError: cannot import name 'ModelOutput'\n",
     "hf-library-version-mismatch"),
    # Python 3.8's circular import names its module: not the older Python's bare form
    ("    from transformers import AutoTokenizer\nImportError: cannot import name 'AutoTokenizer' from partially "
     "initialized module 'transformers' (most likely due to a circular import)\n", "hf-library-version-mismatch"),
])
def test_lookalikes_are_not_read_as_the_entry(text, entry):
    m = top(text)
    assert m is None or m.id != entry


@pytest.mark.parametrize("text", [
    # AutoAWQ: its kernels never loaded, and the NameError its backward raises later
    "AssertionError: AWQ kernels could not be loaded. Please install them from https://github.com/casper-hansen/AutoAWQ_kernels",
    '  File "/usr/local/lib/python3.10/dist-packages/awq/modules/linear/gemm.py", line 66, in backward\n'
    "    if awq_ext is None:\nNameError: name 'awq_ext' is not defined",
])
def test_awq_kernels_that_never_loaded_are_an_unbuilt_extension(text):
    assert top(text).id == "package-c-extension-not-built"


@pytest.mark.parametrize("text", [
    # AutoGPTQ's logger, and the bare line it prints without one
    "2023-08-23 13:49:27,776 - WARNING - qlinear_old.py:16 - CUDA extension not installed.",
    "WARNING:auto_gptq.nn_modules.qlinear_old:CUDA extension not installed.",
    "CUDA extension not installed.\nCUDA extension not installed.",
])
def test_autogptqs_kernels_not_loaded_is_its_own_notice(text):
    m = top(text)
    assert m.id == "autogptq-cuda-extension-not-loaded" and m.entry.notice


def test_autogptqs_notice_beside_another_failure_is_only_possible():
    m = top("CUDA extension not installed.\nValueError: Found modules on cpu/disk. Using Exllama backend requires "
            "all the modules to be on GPU.")
    assert m is None or m.id != "autogptq-cuda-extension-not-loaded" or m.confidence == POSSIBLE


def test_a_kernel_built_for_another_torch_keeps_its_undefined_symbol_reading():
    text = ("CUDA extension not installed.\nImportError: /usr/lib/python3.10/site-packages/exllama_kernels.cpython-310-"
            "x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
    assert [m.id for m in match_text(text)][0] == "extension-undefined-torch-symbol"


def test_the_words_in_a_sentence_are_not_the_log_line():
    m = top("The CUDA extension not installed. warning appears but the model works")
    assert m is None or m.id not in ("package-c-extension-not-built", "autogptq-cuda-extension-not-loaded")


@pytest.mark.parametrize("obj", ["SpanMarkerConfig", "LatentAttentionConfig", "ConfigDict"])
def test_a_config_class_older_than_transformers(obj):
    m = top("AttributeError: '%s' object has no attribute '_attn_implementation_internal'" % obj)
    assert m.id == "hf-library-version-mismatch"
    t = tailored("AttributeError: '%s' object has no attribute '_attn_implementation_internal'" % obj,
                 facts(packages={"transformers": {"version": "4.57.1"}}))
    assert t.summary.startswith("`%s` was written for an older transformers than the installed 4.57.1" % obj)


def test_pythons_before_3_8_name_no_module_but_the_import_line_does():
    text = ("  File \"convert.py\", line 9, in <module>\n    from transformers.utils import ModelOutput\n"
            "ImportError: cannot import name 'ModelOutput'\n")
    m = top(text)
    assert m.id == "hf-library-version-mismatch"
    t = hooks()[m.entry.tailor](m, facts(packages={"transformers": {"version": "4.5.1"}}))
    assert t.summary.startswith("transformers 4.5.1 here has no `ModelOutput`") and t.notes == [
        "installed transformers: 4.5.1"]


# `cannot import name 'X' from 'pkg.mod'` with no path after it (cut by the reporter, or Python
# printing none): a library's submodule imported without the name, read possibly, for any library.
@pytest.mark.parametrize("text,summary,show", [
    ("ImportError: cannot import name 'stats' from 'opacus.utils'", "The opacus the failing code imported has no",
     "pip show opacus"),
    ("ImportError: cannot import name 'OutputEncoderCallback' from 'neuralop.training'",
     "The neuralop the failing code imported has no", "pip show neuralop"),
    # pip knows pyannote's audio package by its dotted name; detectron2 by its project name, not the git URL
    ("ImportError: cannot import name 'Pipeline' from 'pyannote.audio.core'",
     "The pyannote.audio the failing code imported has no", "pip show pyannote.audio"),
    ("ImportError: cannot import name 'CfgNode' from 'detectron2.config'",
     "The detectron2 the failing code imported has no", "pip show detectron2"),
])
def test_a_name_missing_from_any_library_module_is_read_possibly(text, summary, show):
    m = top(text)
    assert m.id == "hf-library-version-mismatch" and m.confidence == POSSIBLE
    t = hooks()[m.entry.tailor](m, facts())
    assert t.summary.startswith(summary) and t.commands[0].endswith(show)


@pytest.mark.parametrize("module,shown", [
    ("google.cloud.storage.blob", "google.cloud.storage"),  # pip reads it as google-cloud-storage
    ("google.generativeai.types", "google.generativeai"),
    ("google.auth.transport.requests", "google.auth"),
    ("azure.storage.blob.aio", "azure.storage.blob"),
    ("azure.core.exceptions", "azure.core"),
    ("urllib3.contrib", "urllib3"),  # a PyPI package, whatever its name sounds like
])
def test_a_namespace_package_is_shown_by_its_distributions_name(module, shown):
    m = top("ImportError: cannot import name 'Thing' from '%s'" % module)
    t = hooks()[m.entry.tailor](m, facts())
    assert t.commands[0].endswith("pip show %s" % shown)


def test_the_installed_release_of_a_dotted_distribution_is_named():
    m = top("ImportError: cannot import name 'Pipeline' from 'pyannote.audio.core'")
    t = hooks()[m.entry.tailor](m, facts(packages={"pyannote-audio": {"version": "2.1.1"}}))
    assert t.summary.startswith("pyannote.audio 2.1.1 here has no `Pipeline`")


@pytest.mark.parametrize("text", [
    # the project's own modules: a circular import or a file of the same name, not a release
    "ImportError: cannot import name 'load_config' from 'utils'",
    "ImportError: cannot import name 'build_model' from 'models.common'",
    "ImportError: cannot import name 'foo' from 'mypkg.bar' (/home/me/project/mypkg/bar.py)",
    "ImportError: cannot import name 'foo' from partially initialized module 'mypkg' (most likely due to a circular import)",
    # setuptools' own module: the toolchain entries read it where torch's cpp_extension is in the text
    "ImportError: cannot import name 'packaging' from 'pkg_resources'",
    # the standard library, a project's own top-level modules, a single name (a library or a project's file)
    "ImportError: cannot import name 'gcd' from 'fractions'",
    "ImportError: cannot import name 'Mapping' from 'collections'",
    "ImportError: cannot import name 'Literal' from 'typing'",
    "ImportError: cannot import name 'train_one_epoch' from 'engine'",
    "ImportError: cannot import name 'TaskType' from 'anomalib'",
    "ImportError: cannot import name 'build' from 'engine.trainer'",
    # a path after spaces (one wrapped onto the next line is not seen: lines are read one at a time)
    "ImportError: cannot import name 'foo' from 'mypkg.bar'  (/home/me/project/mypkg/bar.py)",
    # other frameworks' own modules
    "ImportError: cannot import name 'maps' from 'jax.experimental'",
    "ImportError: cannot import name 'Dense' from 'keras.layers'",
    # more of the standard library's packages
    "ImportError: cannot import name 'ServerProxy' from 'xmlrpc.client'",
    "ImportError: cannot import name 'Path' from 'pathlib._local'",
])
def test_a_name_missing_from_a_projects_own_module_is_not_a_library_release(text):
    assert all(m.id != "hf-library-version-mismatch" for m in match_text(text))


@pytest.mark.parametrize("name,have,spec", [("_attn_implementation", "4.35.2", '"transformers>=4.36.0"'),
                                            ("_attn_implementation_autoset", "4.45.0", '"transformers>=4.46.0,<4.54.0"'),
                                            # 4.54 dropped _autoset again: an upgrade would not bring it
                                            ("_attn_implementation_autoset", "4.57.1", '"transformers>=4.46.0,<4.54.0"')])
def test_a_transformers_outside_the_attention_attributes_releases_is_moved_into_them(name, have, spec):
    t = tailored("AttributeError: 'LlamaConfig' object has no attribute '%s'" % name,
                 facts(packages={"transformers": {"version": have}}))
    assert t.summary.startswith("transformers %s is outside the releases that set `%s`" % (have, name))
    assert t.commands == ["/home/u/venv/bin/python -m pip install %s" % spec]


def test_without_transformers_facts_both_directions_are_said():
    t = tailored("AttributeError: 'LlamaConfig' object has no attribute '_attn_implementation_internal'", facts())
    assert t.summary.startswith("Either the transformers that ran is outside the releases that set "
                                "`_attn_implementation_internal` (transformers 4.36.0 and later")


def test_a_name_the_import_line_does_not_hold_keeps_the_entrys_own_fix():
    # the failing import is deeper than the paste shows: which library lacks the name is not said
    t = tailored("    from transformers.utils import ModelOutput\nImportError: cannot import name 'cached_path'\n",
                 facts(packages={"transformers": {"version": "4.5.1"}}))
    assert t is None


def test_an_import_line_with_a_trailing_comment_is_read_too():
    m = top("    from transformers import AdamW, get_linear_schedule_with_warmup  # optim\n"
            "ImportError: cannot import name 'get_linear_schedule_with_warmup'\n")
    assert m.id == "hf-library-version-mismatch"
