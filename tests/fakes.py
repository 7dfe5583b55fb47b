"""Fake environments for tests: a fake `torch` package to put on PYTHONPATH and
fake `nvidia-smi` / `nvcc` executables to put on PATH.

They are real files that the real probe imports and runs in a real child
process; only torch's and NVIDIA's answers are made up.
"""

import json
import os
import stat
import textwrap
from typing import List, Optional, Sequence, Tuple


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(textwrap.dedent(text))
    if mode:
        os.chmod(path, mode)


def fake_torch(root, version: str = "2.4.1+cu124", cuda: Optional[str] = "12.4",
               available: bool = True, devices: Sequence[Tuple[str, Tuple[int, int]]] = (("NVIDIA A100-SXM4-80GB", (8, 0)),),
               arch_list: Optional[List[str]] = None, cudnn: Optional[int] = 90100,
               init_warning: Optional[str] = None, import_code: str = "", with_dist_info: bool = True,
               backends: Sequence[str] = ("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp"),
               extra_init: str = "") -> str:
    """Create ROOT/torch/ (+ dist-info) and return ROOT for PYTHONPATH."""
    root = str(root)
    pkg = os.path.join(root, "torch")
    if arch_list is None:
        arch_list = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"] if cuda else []
    write(os.path.join(pkg, "__init__.py"), textwrap.dedent("""\
        {import_code}
        __version__ = {version!r}
        from . import version, cuda, backends
        class _Config:
            @staticmethod
            def show():
                return "PyTorch built with:\\n  - GCC 9.3\\n  - CPU capability usage: AVX2\\n  - Build settings: BLAS_INFO=mkl, USE_CUDA={use_cuda}, USE_CUDNN={use_cuda}, TORCH_VERSION={base}, \\n"
            @staticmethod
            def parallel_info():
                return "ATen/Parallel:\\n\\tat::get_num_threads() : 4\\n\\tat::get_num_interop_threads() : 4\\nATen parallel backend: OpenMP\\n"
        __config__ = _Config()
        def are_deterministic_algorithms_enabled():
            return False
        def get_float32_matmul_precision():
            return "highest"
        def get_num_threads():
            return 4
        {extra_init}
        """).format(import_code=import_code, version=version, use_cuda="ON" if cuda else "OFF",
                   base=version.split("+")[0], extra_init=extra_init))
    write(os.path.join(pkg, "version.py"), """\
        __version__ = {v!r}
        git_version = "0123456789abcdef0123456789abcdef01234567"
        debug = False
        cuda = {c!r}
        hip = None
        """.format(v=version, c=cuda))
    devs = [{"name": n, "cap": list(c)} for n, c in devices] if available else []
    write(os.path.join(pkg, "cuda", "__init__.py"), """\
        import warnings
        _DEVS = {devs}
        def is_available():
            {warn}
            return {available}
        def device_count():
            return len(_DEVS)
        def get_arch_list():
            return {arch}
        def get_device_name(i):
            return _DEVS[i]["name"]
        def get_device_capability(i):
            return tuple(_DEVS[i]["cap"])
        class _Props:
            def __init__(self, i):
                self.total_memory = 80 * 2**30
                self.multi_processor_count = 108
        def get_device_properties(i):
            return _Props(i)
        """.format(devs=json.dumps(devs), available=bool(available) and bool(cuda), arch=json.dumps(arch_list),
                   warn=("warnings.warn(%r)" % init_warning) if init_warning else "pass"))
    write(os.path.join(pkg, "backends", "__init__.py"), "")
    for name in backends:
        body = "def is_available():\n    return True\n"
        if name == "cuda":
            body = ("def is_built():\n    return %r\n" % bool(cuda) +
                    "class _M:\n    allow_tf32 = False\nmatmul = _M()\n"
                    "def flash_sdp_enabled():\n    return True\n")
        elif name == "cudnn":
            body = ("def is_available():\n    return %r\n" % bool(cuda and cudnn) +
                    "def version():\n    return %r\n" % (cudnn if cuda else None) +
                    "enabled = True\nbenchmark = False\ndeterministic = False\nallow_tf32 = True\n")
        elif name == "mps":
            body = "def is_built():\n    return False\ndef is_available():\n    return False\n"
        write(os.path.join(pkg, "backends", name, "__init__.py"), body)
    if with_dist_info:
        write(os.path.join(root, "torch-%s.dist-info" % version, "METADATA"),
              "Metadata-Version: 2.1\nName: torch\nVersion: %s\n" % version)
        write(os.path.join(root, "torch-%s.dist-info" % version, "INSTALLER"), "pip\n")
    return root


def fake_dist(root, name: str, version: str) -> None:
    """A bare dist-info so the probe sees `name==version` installed."""
    write(os.path.join(str(root), "%s-%s.dist-info" % (name, version), "METADATA"),
          "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))


def fake_bin(bindir, name: str, script: str) -> str:
    """An executable shell script NAME in BINDIR (put BINDIR first on PATH)."""
    path = os.path.join(str(bindir), name)
    write(path, "#!/bin/sh\n" + textwrap.dedent(script), mode=stat.S_IRWXU)
    return path


def fake_nvidia_smi(bindir, driver: str = "550.54.15", cuda: str = "12.4",
                    gpus: Sequence[Tuple[str, str]] = (("NVIDIA A100-SXM4-80GB", "8.0"),),
                    umd_banner: bool = False) -> str:
    """`umd_banner`: the banner of the 610 driver series on ("KMD Version", "CUDA UMD Version")."""
    rows = "\n".join("%d, %s, %s, %s, 81920, GPU-%08d-aaaa-bbbb-cccc-%012d" % (i, n, driver, cap, i, i)
                     for i, (n, cap) in enumerate(gpus))
    return fake_bin(bindir, "nvidia-smi", textwrap.dedent("""\
        case "$1" in
          --query-gpu=*) cat <<'EOF'
        {rows}
        EOF
          ;;
          *) cat <<'EOF'
        +-----------------------------------------------------------------------------+
        | NVIDIA-SMI {driver}    {dlabel}: {driver}    {clabel}: {cuda}     |
        +-----------------------------------------------------------------------------+
        EOF
          ;;
        esac
        """).format(rows=rows, driver=driver, cuda=cuda,
                    dlabel="KMD Version" if umd_banner else "Driver Version",
                    clabel="CUDA UMD Version" if umd_banner else "CUDA Version"))


def fake_nvcc(bindir, release: str = "12.4") -> str:
    return fake_bin(bindir, "nvcc", """\
        echo "nvcc: NVIDIA (R) Cuda compiler driver"
        echo "Cuda compilation tools, release {r}, V{r}.131"
        """.format(r=release))
