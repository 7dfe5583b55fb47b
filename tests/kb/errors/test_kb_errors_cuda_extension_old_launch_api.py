"""An extension whose kernel launches came from an nvcc older than 9.2 (cudaSetupArgument,
cudaConfigureCall, cudaLaunch) loaded beside a newer CUDA runtime; the launch API of 9.2 and later
(cudaLaunchKernel) and torch's own symbols are other entries' or none."""

import pytest

from torchdoctor.match.matcher import HIGH, match_text

ENTRY = "cuda-extension-old-launch-api"


@pytest.mark.parametrize("sym", ["cudaSetupArgument", "cudaConfigureCall", "cudaLaunch"])
def test_each_old_launch_function_is_this_entry(sym):
    text = "ImportError: /home/u/DCNv2/_ext.cpython-38-x86_64-linux-gnu.so: undefined symbol: %s" % sym
    found = match_text(text)
    assert found and found[0].id == ENTRY and found[0].confidence == HIGH, [(m.id, m.confidence) for m in found]


@pytest.mark.parametrize("text", [
    "ImportError: /home/u/ext/_C.so: undefined symbol: cudaLaunchKernel",
    "ImportError: /home/u/ext/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
])
def test_the_new_launch_api_and_torch_symbols_are_not_this_entry(text):
    assert ENTRY not in [m.id for m in match_text(text)]
