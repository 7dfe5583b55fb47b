"""What the catalogue reads: which parts of torch, which companions, which CUDA libraries.

Scopes of torch's Python source. ``ALL``: every message there is catalogued, with its class
(these modules are about the environment: device set-up, library loading, launchers, build
tool checks). ``ENV``: only the messages classified environment are kept (large modules,
most of whose messages are about the user's graph or arguments).
"""

ALL, ENV = "all", "environment"

import re


TORCH_SCOPES = (
    ("torch/__init__.py", ALL),             # library loading, Python version of torch.compile
    ("torch/_utils_internal.py", ALL),
    ("torch/version.py", ALL),
    ("torch/cuda/", ALL),
    ("torch/backends/", ALL),
    ("torch/mps/", ALL),
    ("torch/xpu/", ALL),
    ("torch/mtia/", ALL),
    ("torch/accelerator/", ALL),
    ("torch/cpu/", ALL),
    ("torch/amp/", ALL),                   # autocast device checks
    ("torch/serialization.py", ALL),
    ("torch/hub.py", ALL),
    ("torch/multiprocessing/", ALL),
    ("torch/distributed/elastic/", ALL),    # rendezvous, stores, agents, error files
    ("torch/distributed/launcher/", ALL),
    ("torch/distributed/run.py", ALL),
    ("torch/distributed/launch.py", ALL),
    ("torch/distributed/rendezvous.py", ALL),
    ("torch/distributed/constants.py", ALL),
    ("torch/distributed/__init__.py", ALL),
    ("torch/distributed/", ENV),
    ("torch/utils/cpp_extension.py", ALL),
    ("torch/utils/_cpp_extension_versioner.py", ALL),
    ("torch/utils/_triton.py", ALL),        # triton availability
    ("torch/utils/collect_env.py", ALL),
    ("torch/utils/data/", ALL),             # DataLoader workers, shared memory
    ("torch/utils/", ENV),
    ("torch/_inductor/cpp_builder.py", ALL),  # compiler and toolchain checks
    ("torch/_inductor/cpu_vec_isa.py", ALL),
    ("torch/_inductor/codecache.py", ALL),
    ("torch/_inductor/exc.py", ALL),
    ("torch/_inductor/async_compile.py", ALL),
    ("torch/_inductor/compile_worker/", ALL),
    ("torch/_inductor/runtime/triton_compat.py", ALL),
    ("torch/_inductor/", ENV),
    ("torch/_dynamo/eval_frame.py", ENV),   # the Python version checks
    ("torch/_dynamo/", ENV),
    ("torch/onnx/", ENV),
    ("torch/export/", ENV),
)

# torch's CMake files in the wheel (Caffe2, Torch, Tensorpipe): what find_package(Torch) reads for
# C++ programs, CMake-built extensions and language bindings that link libtorch.
TORCH_CMAKE = "torch/share/cmake/"
# torch/lib libraries that are tests or examples, not what a user's torch runs.
TORCH_LIB_SKIP = re.compile(r"test|aoti_custom_ops|backend_with_compiler")

# Status tables of the CUDA libraries a CUDA torch wheel requires (the version: the wheel's own
# Requires-Dist pin, or that of the `cuda-toolkit` it pins); torch prints each status inside its
# own wrapper (the C++ source of the wrapper in the comment). `func`: a `const char *f(int)` asked
# for every code; `names`: the status names read from the library's strings.
STATUS_LIBS = (
    # c10/cuda/CUDAException.h: C10_CUDA_CHECK -> "CUDA error: " + cudaGetErrorString(err)
    {"name": "nvidia-cuda-runtime", "lib": r"/libcudart\.so\.\d+$", "func": "cudaGetErrorString",
     "wrapper": "CUDA error: {}"},
    # aten/src/ATen/cudnn/Exceptions.h: AT_CUDNN_CHECK -> "cuDNN error: " + cudnnGetErrorString
    {"name": "nvidia-cudnn-cu13", "lib": r"/libcudnn_graph\.so\.\d+$", "names": r"CUDNN_STATUS_[A-Z0-9_]+",
     "wrapper": "cuDNN error: {}"},
    # torch/csrc/cuda/nccl.cpp, distributed/c10d/NCCLUtils.hpp: C10D_NCCL_CHECK ->
    # "NCCL error in: FILE:LINE, " + ncclGetErrorString(result) + ", NCCL version X"
    {"name": "nvidia-nccl-cu13", "lib": r"/libnccl\.so\.\d+$", "func": "ncclGetErrorString",
     "wrapper": "NCCL error in: {}, {}, NCCL version {}"},
)
# Status names torch spells itself (its own tables in libtorch_cuda), with their wrapper:
# aten/src/ATen/cuda/CUDABlas.h TORCH_CUDABLAS_CHECK, CUDASolver.h TORCH_CUSOLVER_CHECK.
TORCH_STATUS_NAMES = (
    (r"CUBLAS_STATUS_[A-Z0-9_]+", "CUDA error: {} when calling `{}`"),
    (r"CUSOLVER_STATUS_[A-Z0-9_]+", "cusolver error: {}, when calling `{}`"),
)

# The companions users install most, pinned so that two runs read the same files: the newest
# release the package index offered when the catalogue was made (triton: the one torch 2.14.1
# requires). `libs`:
# the package's own native libraries whose strings are read (vendored third-party libraries
# such as libjpeg or cupti, and LLVM inside libtriton, are not the package's messages).
# `sdist_env`: set while pip reads an sdist's metadata, so its setup.py skips the CUDA build
# it would otherwise start (pip then runs it without build isolation, with this interpreter).
COMPANIONS = (
    {"name": "torchvision", "spec": "torchvision==0.29.1", "libs": r"^torchvision/[^/]+\.so$"},
    {"name": "torchaudio", "spec": "torchaudio==2.11.1", "libs": r"^torchaudio/lib/[^/]+\.so$"},
    {"name": "torchcodec", "spec": "torchcodec==0.17.0", "libs": r"^torchcodec/[^/]+\.so$"},
    {"name": "triton", "spec": "triton==3.8.0", "libs": None},
    {"name": "bitsandbytes", "spec": "bitsandbytes==0.50.2", "libs": r"^bitsandbytes/[^/]+\.so$"},
    {"name": "flash-attn", "spec": "flash-attn==2.8.3.post2", "libs": r"^flash_attn[^/]*/[^/]+\.so$",
     "sdist_env": {"FLASH_ATTENTION_SKIP_CUDA_BUILD": "TRUE"}},
    {"name": "xformers", "spec": "xformers==0.0.35", "libs": r"^xformers/[^/]+\.so$"},
    {"name": "accelerate", "spec": "accelerate==1.16.0", "libs": None},
    {"name": "deepspeed", "spec": "deepspeed==0.19.8", "libs": None, "sdist_env": {"DS_BUILD_OPS": "0"}},
)

# Parts of a companion's tree that are not the installed package.
COMPANION_SKIP = re.compile(r"(?:^|/)(?:tests?|testing|examples?|benchmarks?|docs?|csrc|third_party|build_tools|"
                            r"scripts)/|(?:^|/)setup\.py$|(?:^|/)conftest\.py$")
