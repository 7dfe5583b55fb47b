"""torch's explanation of its split CPU/CUDA libraries, pasted without the line before it (the
'Cannot ... without ATen_cuda library' that names the call), is still the CUDA half not loaded."""

from torchdoctor.match.matcher import match_text

TAIL = ("PyTorch splits its backend into two shared libraries: a CPU library and a CUDA library; this error has "
        "occurred because you are trying to use some CUDA functionality, but the CUDA library has not been loaded "
        "by the dynamic linker for some reason.")


def test_the_explanation_alone_is_the_cuda_library_not_loaded():
    found = match_text(TAIL)
    assert found and found[0].id == "aten-cuda-library-not-loaded", [m.id for m in found]
