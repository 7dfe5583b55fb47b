"""Wordings and families the blind17 round found unanswered, each checked on texts of other
public reports: the entry chosen and how sure the text alone makes it."""

import pytest

from test_kb_errors_blind16_families import top
from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts


@pytest.mark.parametrize("text,want", [
    # NCCL's shared-memory segment in a container (NVIDIA/nccl-tests#166)
    ("ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment "
     "/dev/shm/nccl-KWfVyt (size 5967872)", "nccl-unhandled-system-error"),
    # cuDNN 9's loader line without its "Invalid handle." prefix (petermg/Chatterbox-TTS-Extended#28)
    ("Cannot load symbol cudnnCreateConvolutionDescriptor", "cudnn9-library-load-failed"),
    # cpp_extension's CUDA check printed as a tuple, its placeholders unfilled
    ("RuntimeError: ('The detected CUDA version (%s) mismatches the version that was used to compilePyTorch (%s). "
     "Please make sure to use the same CUDA versions.', '11.8', '12.4')", "cpp-extension-cuda-version-mismatch"),
    # an MSVC toolset tripping over compiled_autograd.h, English wording
    ("C:\\env\\Lib\\site-packages\\torch\\include\\torch/csrc/dynamo/compiled_autograd.h(1134): error C2872: 'std': "
     "ambiguous symbol", "msvc-std-ambiguous-compiled-autograd"),
    # WinError 127 on fbgemm.dll is a procedure missing from a DLL of that name loaded first,
    # not libomp missing (WinError 126)
    ("OSError: [WinError 127] The specified procedure could not be found. Error loading "
     "\"C:\\env\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.",
     "windows-dll-procedure-not-found"),
    ("OSError: [WinError 126] The specified module could not be found. Error loading "
     "\"C:\\env\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.",
     "windows-fbgemm-dll-missing-libomp"),
])
def test_the_wording_lands_on_its_entry(text, want):
    assert top(text).id == want


def test_the_tuple_form_passes_both_cuda_versions_to_the_hook():
    m = top("RuntimeError: ('The detected CUDA version (%s) mismatches the version that was used to compilePyTorch "
            "(%s). Please make sure to use the same CUDA versions.', '11.3', '12.8')")
    assert m.groups["nvcc"] == "11.3" and m.groups["torch_cuda"] == "12.8"


def test_xformers_triton_notice_is_said_to_be_harmless():
    m = top("A matching Triton is not available, some optimizations will not be enabled")
    assert m.id == "xformers-triton-notice" and "still work" in m.entry.cause


def test_torch_version_xpu_names_the_release_that_added_it():
    m = top("AttributeError: module 'torch.version' has no attribute 'xpu'")
    assert m.id == "torch-api-newer-than-installed"
    t = hooks()[m.entry.tailor](m, Facts({"torch": {"version": "2.5.1+xpu"}, "os": {"system": "Linux"},
                                          "python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}}))
    assert t is not None and any("first appeared in torch 2.6" in n for n in t.notes)


@pytest.mark.parametrize("text", [
    "error C2872: 'std': ambiguous symbol",
    "torch 2.5.1\nerror C2872: 'std': ambiguous symbol",   # a torch marker does not make it the header's
    "Windows Install From Source - error C2872: 'std': ambiguous symbol",
    "Windows (x64) build fails: error C2872: 'std': ambiguous symbol",
])
def test_the_bare_msvc_error_is_only_possibly_compiled_autograd(text):
    # The same MSVC error comes from any C++ code with two namespaces called std in view (torch
    # 1.0's pimpl.h under VS2017, pytorch/pytorch#15697); without the header's line it is a
    # symptom whose fix starts by finding that line.
    m = top(text)
    assert m.id == "msvc-std-ambiguous-symbol" and m.confidence == "possible"


@pytest.mark.parametrize("text", [
    "C:\\proj\\src\\bvh.cu(5): error C2872: 'std': ambiguous symbol",
    "...\\torch\\include\\torch\\nn\\pimpl.h(65): error C2872: 'std': ambiguous symbol",
    "C:/proj/src/bvh.cu:5: error C2872: 'std': ambiguous symbol",
    "C:\\proj\\my_ext.cpp: error C2872: 'std': ambiguous symbol",
    "[12/40] C:\\proj\\bvh.cu error C2872: 'std': ambiguous symbol",
])
def test_the_msvc_error_in_another_file_is_not_claimed(text):
    assert all(m.id not in ("msvc-std-ambiguous-compiled-autograd", "msvc-std-ambiguous-symbol")
               for m in match_text(text))


@pytest.mark.parametrize("text", [
    # a driver-version sentence that is not torch's message
    "The driver is too old for this game",
])
def test_near_misses_are_not_claimed(text):
    assert all(m.id not in ("msvc-std-ambiguous-compiled-autograd", "nvidia-driver-too-old") for m in match_text(text))


@pytest.mark.parametrize("text,want", [
    # the call printed, with its own closing parenthesis before the verb
    ("print(torch.cuda.is_available()) returns False", "cuda-not-available"),
    ("print(torch.backends.mps.is_available()) returns False", "mps-not-available"),
    # a REPL transcript: the value alone on the next line
    (">>> torch.cuda.is_available()\nFalse", "cuda-not-available"),
    (">>> torch.backends.mps.is_available()\nFalse", "mps-not-available"),
])
def test_is_available_false_in_other_shapes(text, want):
    m = top(text)
    assert m.id == want and m.confidence == "possible"  # a symptom: why is the question


def test_false_at_the_start_of_a_sentence_is_no_transcript():
    assert not match_text("torch.cuda.is_available() False positives are rare in our tests")
