"""A fake GPU for the tune tests: a `torch` package to put first on PYTHONPATH that loads
the real (CPU) torch of the test venv and then makes it look like a CUDA (or MPS) build
with one device.

Unlike tests/fakes.py's fake_torch (a few attributes for the probe), tune needs tensors
that really compute, so this one keeps real torch and fakes only the device surface:
torch.cuda.is_available() and friends, cuDNN's presence and version, a device name and
compute capability, and `.to("cuda")` / autocast("cuda") landing on the CPU. The real
worker runs in a real child process, so every GPU code path of tune (which settings
apply, which TF32 API, SDPA backends, the varying-shape cuDNN benchmark, the device
synchronising timer) runs; only the numbers are the CPU's.
"""

import os
import textwrap

SHIM = '''\
import importlib.machinery, importlib.util, os, sys, time, types
_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_paths = [p for p in sys.path if os.path.abspath(p or os.curdir) != _root]
_spec = importlib.machinery.PathFinder.find_spec("torch", _paths)
_real = importlib.util.module_from_spec(_spec)
sys.modules["torch"] = _real
_spec.loader.exec_module(_real)
T = _real
KIND = {kind!r}
MARK = {mark!r}
T.__version__ = {version!r} or T.__version__

def _mark(what):
    if MARK and not os.path.exists(MARK + "." + what):
        open(MARK + "." + what, "w").close()

def _cpu(a):
    if isinstance(a, str) and a.split(":")[0] in ("cuda", "mps"):
        return "cpu"
    if isinstance(a, T.device) and a.type in ("cuda", "mps"):
        return T.device("cpu")
    return a

_to = T.Tensor.to
def _fake_to(self, *a, **k):
    return _to(self, *[_cpu(x) for x in a], **dict((n, _cpu(v)) for n, v in k.items()))
T.Tensor.to = _fake_to
for _name in ("randn", "rand", "zeros", "ones", "empty", "full", "arange", "tensor", "randint"):
    def _wrap(fn):
        def f(*a, **k):
            if "device" in k:
                k["device"] = _cpu(k["device"])
            return fn(*a, **k)
        return f
    setattr(T, _name, _wrap(getattr(T, _name)))
_autocast = T.autocast
class autocast(_autocast):
    def __init__(self, device_type, *a, **k):
        _mark("autocast_" + device_type)
        _autocast.__init__(self, "cpu" if device_type in ("cuda", "mps") else device_type, *a, **k)
T.autocast = autocast

if KIND == "cuda":
    def _sync(*a, **k):
        _mark("synchronize")
        time.sleep({sync_s!r})  # a real device synchronisation costs tens of microseconds
    T.cuda.is_available = lambda: True
    T.cuda.device_count = lambda: 1
    T.cuda.get_device_name = lambda i=0: {name!r}
    T.cuda.get_device_capability = lambda i=0: {capability!r}
    T.cuda.synchronize = _sync
    T.cuda.is_bf16_supported = lambda *a, **k: {bf16!r}
    T.cuda.empty_cache = lambda: None
    T.cuda.get_device_properties = lambda i=0: types.SimpleNamespace(total_memory=80 * 2 ** 30, name={name!r})
    T.version.cuda = "12.4"
    T.backends.cudnn.is_available = lambda: True
    T.backends.cudnn.version = lambda: 90100
    if {legacy_tf32!r}:
        # A build from before 2.9: allow_tf32 flags, no fp32_precision API.
        T.backends.cuda.matmul = types.SimpleNamespace(allow_tf32=False)
        T.backends.cudnn.conv = types.SimpleNamespace()
        T.backends.cudnn.rnn = types.SimpleNamespace()
elif KIND == "mps":
    def _sync(*a, **k):
        _mark("synchronize")
    T.backends.mps.is_available = lambda: True
    T.backends.mps.is_built = lambda: True
    T.mps.synchronize = _sync
{extra}
'''


def fake_gpu_torch(root, kind: str = "cuda", name: str = "NVIDIA A100-SXM4-80GB", capability=(8, 0),
                   bf16: bool = True, legacy_tf32: bool = False, version: str = "", mark: str = "",
                   extra: str = "", sync_s: float = 0.0) -> str:
    """Write ROOT/torch/__init__.py (the shim) and return ROOT for PYTHONPATH.

    `sync_s`: what each torch.cuda.synchronize() costs, as on a real GPU.

    `mark`: a path prefix; the shim creates MARK.synchronize the first time the device is
    synchronised and MARK.autocast_cuda when autocast is asked for the device."""
    root = str(root)
    os.makedirs(os.path.join(root, "torch"), exist_ok=True)
    with open(os.path.join(root, "torch", "__init__.py"), "w") as fh:
        fh.write(SHIM.format(kind=kind, name=name, capability=tuple(capability), bf16=bool(bf16),
                             legacy_tf32=bool(legacy_tf32), version=version, mark=mark, sync_s=float(sync_s),
                             extra=textwrap.dedent(extra)))
    return root
