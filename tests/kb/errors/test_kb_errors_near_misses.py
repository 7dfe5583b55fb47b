"""Texts that sit next to an entry's message but have another cause: the entry must not claim
them, and the message's real variants must still land on it."""

import os
import subprocess

import pytest

from torchdoctor.match.matcher import match_text
from torchdoctor.model import derived as F

NOT_THEIRS = [
    # The capability warning shortened to the GPU's name is the GPU's; a driver, a CUDA release
    # or an AMD part "not compatible" is not that warning (torch checks capabilities only on CUDA builds).
    ("NVIDIA driver version 470.82 is not compatible with the current PyTorch build", "gpu-capability-not-compatible"),
    ("NVIDIA CUDA 11.8 is not compatible with the current PyTorch", "gpu-capability-not-compatible"),
    ("AMD Radeon RX 580 is not compatible with the current PyTorch build", "gpu-capability-not-compatible"),
    # UCX's own symbol errors outside HPC-X's folder are not the NGC container's clash.
    ("/usr/lib/x86_64-linux-gnu/libucp.so.0: undefined symbol: ucs_config_doc_nop", "hpcx-ucx-library-conflict"),
    ("mpirun: /usr/lib/libuct.so.0: undefined symbol: ucs_async_poll_missed", "hpcx-ucx-library-conflict"),
    # torch.save of a model holding a lambda: pickling, but no child process being started.
    ("  File \"/env/lib/python3.11/site-packages/torch/serialization.py\", line 652, in _save\n    pickler.dump(obj)\n"
     "AttributeError: Can't pickle local object 'build_model.<locals>.<lambda>'", "multiprocessing-cannot-pickle-local-object"),
    # Any conda conflict naming pytorch is not a missing channel.
    ("UnsatisfiableError: The following specifications were found to be incompatible with the existing python "
     "installation in your environment:\n\nSpecifications:\n\n  - pytorch==1.7.1 -> python[version='>=3.8,<3.9.0a0']"
     "\n\nYour python: python=3.10", "conda-torch-not-in-channels"),
    # PyInstaller with setuptools 70: a submodule of pkg_resources, not pkg_resources removed.
    ("ModuleNotFoundError: No module named 'pkg_resources.extern'", "pkg-resources-removed"),
    # Each new entry's neighbour: another status, a torch symbol, another header's standard,
    # another import library, another macro, another framework's version gate or device count.
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb)`",
     "cublas-invalid-value"),
    ("ImportError: /env/site-packages/torch/lib/libtorch_python.so: undefined symbol: _ZN3c1010TensorImpl7releaseEv",
     "torch-python-c-api-symbol-missing"),
    ("/usr/bin/ld: build/foo.o: file not recognized: file truncated", "shared-library-file-too-short"),
    ("#error C++17 or later compatible compiler is required to use Boost.Compute", "cpp-extension-cxx17-required"),
    ("LINK : fatal error LNK1104: cannot open file 'kernel32.lib'", "python-import-library-missing"),
    ("error: 'AT_ASSERT' was not declared in this scope", "extension-source-uses-removed-torch-api"),
    ("ImportError: mylib was not built against numpy 2.0", "companion-no-build-for-this-torch"),
    # blind36's new entries, each beside a text it must not claim: NCCL's other warnings, a kernel
    # line that merely names iommu, hipBLASLt's harmless fallback, a cudaGetDeviceCount error of
    # another number, NCCL's CUDA failure elsewhere in init.cc, another package's CUDA floor, a CLIP
    # model's other attribute, and torchvision's own missing-package message elsewhere.
    ("node1:402:402 [0] NCCL WARN Could not find NET with id 0", "rccl-missing-iommu-pt"),
    ("Kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 amd_iommu=on iommu=pt", "rccl-missing-iommu-pt"),
    ("UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas",
     "hipblaslt-unsupported-arch-error"),
    ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
     "before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was "
     "attempted on non supported HW", "wsl-container-dxg-library-missing"),
    ("host:508:508 [0] enqueue.cc:1556 NCCL WARN Cuda failure 'operation not supported'", "nccl-mempool-unsupported"),
    ("RuntimeError: xformers is only supported on CUDA 11.8 and above", "flash-attn-setup-nvcc-too-old"),
    ("AttributeError: 'CLIPTextModel' object has no attribute 'get_input_embeddings_fn'", "transformers-clip-model-flattened"),
    ("Missing key(s) in state_dict: \"text_model.embeddings.token_embedding.weight\", "
     "\"text_model.embeddings.position_embedding.weight\"", "transformers-clip-model-flattened"),
    # pip's conflict about another package than torch, or torch's own requirement, is not a torch pin.
    ("transformers 4.40.0 requires tokenizers<0.20,>=0.19, but you have tokenizers 0.15.0 which is incompatible.",
     "pip-package-pins-other-torch"),
    ("torch 2.1.0 requires triton==2.1.0, but you have triton 2.0.0 which is incompatible.",
     "pip-package-pins-other-torch"),
    ("torchmetrics 1.2.0 depends on torchvision>=0.8", "pip-package-pins-other-torch"),
    # A demangled c10 symbol missing from torch's own library is torch's, not an extension's.
    ("ImportError: /env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
     "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)",
     "extension-undefined-torch-symbol"),
    # uv's registry miss of a build requirement, not of one of torch's dependencies.
    ("Because wheel was not found in the package registry and you require wheel, we can conclude that your "
     "requirements are unsatisfiable.", "torch-index-lacks-dependency"),
    # A floor (>=) in pip's conflict explanation is rarely the conflicting pin.
    ("    pytorch-lightning 1.5.10 depends on torch>=1.7.*", "pip-package-pins-other-torch"),
    ("RuntimeError: Number of devices should be greater than zero", "ipex-no-dpcpp-devices"),
    ("Error: this crate version expects libfoo 1.2, got 1.3", "tch-libtorch-version-mismatch"),
    ("Package numpy conflicts for:\nscipy -> numpy[version='>=1.21']", "conda-nvidia-channel-missing"),
    # oneAPI's SYCL libraries beside IPEX are not an MKL release mismatch; a Java 8 app that is not
    # TorchServe; a non-ASCII path on Linux (fopen takes UTF-8 there: the file is really missing);
    # non-ASCII text after an ASCII Windows path.
    ("ImportError: libmkl_sycl_blas.so.5: cannot open shared object file: No such file or directory",
     "mkl-library-not-loaded"),
    ("Exception in thread \"main\" java.lang.NoSuchMethodError: java.nio.file.Files.readString(Ljava/nio/file/Path;)"
     "Ljava/lang/String;\n\tat com.example.App.main(App.java:12)", "torchserve-java-too-old"),
    ("open file failed because of errno 2 on fopen: No such file or directory, file path: /home/用户/models/model.pt",
     "torch-serialization-non-ascii-windows-path"),
    ("open file failed because of errno 2 on fopen: No such file or directory, file path: "
     "C:/Users/user/Desktop/models/model.pt (“quoted”)", "torch-serialization-non-ascii-windows-path"),
    # A training script's own refusal of bf16 on any MPS (diffusers' examples), not torch's old
    # message; uv's no-wheel error for a package that is not torch's companion.
    ("ValueError: Mixed precision training with bfloat16 is not supported on MPS. Please use fp16 (recommended) "
     "or fp32 instead.", "mps-bfloat16-old-torch"),
    ("error: Distribution `pyqt5-qt5==5.15.16 @ registry+https://pypi.org/simple` can't be installed because it "
     "doesn't have a source distribution or wheel for the current platform", "uv-companion-no-wheel-for-platform"),
    # A symlink refused outside any model cache (a build tool's own link).
    ("OSError: [WinError 1314] A required privilege is not held by the client: 'C:\\src\\a.txt' -> 'C:\\dst\\a.txt'",
     "hf-hub-windows-symlink-privilege"),
    ("  File \"C:\\tools\\mklink.py\", line 9, in link\n    os.symlink(src, dst)\n"
     "OSError: [WinError 1314] A required privilege is not held by the client: 'a' -> 'b'",
     "hf-hub-windows-symlink-privilege"),
    # datasets' real limit for a remote cache, not the fsspec mismatch that makes a local one look remote.
    ("NotImplementedError: Loading a dataset cached in a S3FileSystem is not supported.", "datasets-fsspec-incompatible"),
    # A package whose name ends in "torch" is not torch; a torchcodec DLL under a folder named pytorch-env.
    ("hint: You're on macOS (`macosx_14_0_arm64`), but `intel-extension-for-pytorch` (v2.5.0) only has wheels for "
     "the following platforms: `manylinux_2_28_x86_64`", "uv-torch-no-wheel-for-platform"),
    ("FileNotFoundError: Could not find module 'C:\\Users\\u\\pytorch-env\\Lib\\site-packages\\torchcodec\\"
     "libtorchcodec_core8.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
     "windows-torch-dll-not-found"),
    # A CUDA library of the same family name is not ROCm's (libcudart, not libamdhip64).
    ("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
     "rocm-library-not-found"),
    # PortAudio's library (sounddevice) is not libsndfile; torch.save of a storage whose device has no
    # location tagger is the saving side, not a checkpoint's tag that the loading torch cannot restore.
    ("OSError: cannot load library 'libportaudio.so.2': libportaudio.so.2: cannot open shared object file: "
     "No such file or directory", "soundfile-libsndfile-missing"),
    ("RuntimeError: don't know how to determine data location of torch.FloatStorage", "torch-load-unknown-device-tag"),
    # torch.jit.load of a file that is really missing: an ASCII path is not the Windows limit.
    ("open file failed because of errno 2 on fopen: No such file or directory, file path: ./models/model.pt",
     "torch-serialization-non-ascii-windows-path"),
    # torch_musa's own kernels missing a torch symbol: torch_musa built for another torch, not the SDK.
    ("ImportError: /env/site-packages/torch_musa/lib/libmusa_kernels.so: undefined symbol: "
     "_ZN2at18_GeneratorRegisterC1ESt8functionIFNS_9GeneratorEaEE", "torch-musa-sdk-mismatch"),
    # A failed wheel build says nothing of a release wheel looked for and missing (a git checkout
    # or an sdist without the download step builds the same way).
    ("  Building wheel for flash-attn (setup.py) ... error\n  error: subprocess-exited-with-error\n"
     "ERROR: Failed building wheel for flash-attn", "companion-prebuilt-wheel-not-found"),
    # The same words where the cause is another: a project folder named huggingface, a local
    # torchcodec.py shadowing the package, a short Windows path (a concurrent download or a cache
    # cleanup), map::at from Triton's AMD backend, an XPU tensor on Windows (C:/Users/ is no Mac).
    ("PermissionError: [Errno 13] Permission denied: '/home/bob/projects/huggingface/transformers/examples/run.py'",
     "hf-cache-dir-not-writable"),
    ("ModuleNotFoundError: No module named 'torchcodec.decoders'; 'torchcodec' is not a package",
     "companion-placeholder-release-installed"),
    ("FileNotFoundError: [Errno 2] No such file or directory: "
     "'C:\\Users\\me\\.cache\\huggingface\\hub\\models--x--y\\blobs\\abc.incomplete'",
     "hf-download-windows-path-too-long"),
    ('  File "/opt/venv/lib/python3.12/site-packages/triton/backends/amd/compiler.py", line 310, in make_llir\n'
     "    pm.run(mod)\nIndexError: map::at", "triton-map-at-old-gpu"),
    ('  File "C:/Users/me/proj/train.py", line 40, in <module>\n    for batch in loader:\n'
     "RuntimeError: _share_filename_: only available on CPU", "mps-tensor-shared-with-dataloader-worker"),
    # CUDA_HOME unset on Linux, or under a Windows user folder, is not the Mac's missing CUDA, even
    # beside a macOS wheel pip skipped or a sentence about Apple Silicon.
    ("  Skipping link: none of the wheel's tags (cp311-cp311-macosx_11_0_arm64) are compatible\n"
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
     "cuda-extension-build-on-macos"),
    ("It works on Apple Silicon with the MPS backend, but on our Ubuntu server:\n"
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
     "cuda-extension-build-on-macos"),
    ('  File "/home/me/env/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1048, in CUDAExtension\n'
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
     "cuda-extension-build-on-macos"),
    ('  File "C:/Users/me/env/Lib/site-packages/torch/utils/cpp_extension.py", line 1048, in CUDAExtension\n'
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
     "cuda-extension-build-on-macos"),
    # Another library's "SMxx kernel" line, or a script's own fallback note, is not SageAttention's.
    ("DeepGEMM: SM100 kernel is not available on this build", "sageattention-kernel-not-available"),
    ("Warning: SM89 kernel not available, using fallback", "sageattention-kernel-not-available"),
    # Beside the entries of the families the blind rounds found missing: the same words with
    # another cause (a Windows ACL, a concurrent download, a real but old torchcodec, Triton
    # 1.x's own map::at, CUDA tensors shared on Linux, Homebrew's FFmpeg, another DeepSpeed
    # field, another package without a wheel, uv's other rename failures).
    # https://github.com/zjunlp/DeepKE/issues/537
    ("PermissionError: [Errno 13] Permission denied: 'C:\\\\Users\\\\lenovo/.cache\\\\huggingface\\\\hub\\\\models--bert-base-chinese\\\\refs\\\\main'", 'hf-cache-dir-not-writable'),
    # https://github.com/eric-mitchell/detect-gpt/issues/5
    ("PermissionError: [Errno 13] Permission denied: 'C:\\\\Users\\\\SOUVIK\\\\.cache\\\\huggingface\\\\datasets\\\\downloads\\\\extracted\\\\6c23c0182c80c071cd57f17c1b534be8fa7ea6cb31f30c8dd7a95bf1ed1b0d33.py'", 'hf-cache-dir-not-writable'),
    # https://github.com/huggingface/transformers/issues/13472
    ("[Errno 13] Permission denied: '/.cache'", 'hf-cache-dir-not-writable'),
    # https://github.com/Blaizzy/mlx-vlm/issues/1315
    ("FileNotFoundError: [Errno 2] No such file or directory: '/Users/jrp/.cache/huggingface/hub/models--facebook--pe-av-large/blobs/7192bdcfc5fec52687b36c92db404a303b0d9bbbb85d26839e530b4f3d44a354.06d762e2.incomplete'", 'hf-download-windows-path-too-long'),
    # https://github.com/huggingface/huggingface_hub/issues/1426
    ("OSError: [Errno 36] File name too long: '/home/haoxuan/.cache/huggingface/hub/models--Salesforce--blip2-opt-6.7b/blobs/W/\"4ebe4bb3f3114daf2e4cc349f24873a1175a35d7.lock'", 'hf-download-windows-path-too-long'),
    # https://github.com/TrajectoryCrafter/TrajectoryCrafter/issues/18
    ("ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: 'C:\\\\Users\\\\IV\\\\AppData\\\\Local\\\\Temp\\\\pip-install-htgsdaan\\\\xformers_4296401f5c784b6a868332960ac6ef11\\\\third_party\\\\flash-attention\\\\csrc\\\\composable_kernel\\\\client_example\\\\24_grouped_conv_activation\\\\grouped_convnd_bwd_data_bilinear\\\\grouped_conv_bwd_data_bilinear_residual_fp16.cpp'", 'hf-download-windows-path-too-long'),
    # https://github.com/ace-step/ACE-Step/issues/325
    ("ModuleNotFoundError: No module named 'torchcodec.encoders'", 'companion-placeholder-release-installed'),
    # https://github.com/meta-pytorch/torchcodec/issues/637
    ("RuntimeError: Could not load libtorchcodec. Likely causes:\n          1. FFmpeg is not properly installed in your environment. We support\n             versions 4, 5, 6 and 7.", 'companion-placeholder-release-installed'),
    # https://github.com/facebookresearch/pifuhd/issues/183
    ("ERROR: Could not find a version that satisfies the requirement pytorch3d (from versions: none)\nERROR: No matching distribution found for pytorch3d", 'companion-placeholder-release-installed'),
    # https://github.com/triton-lang/triton/issues/155
    ("  File \"/home/gmarkall/miniconda3/envs/triton-wheel/lib/python3.9/site-packages/triton/code_gen.py\", line 576, in __call__\n    cache[key] = self._compile(\nIndexError: map::at", 'triton-map-at-old-gpu'),
    # https://github.com/triton-lang/triton/issues/631
    ("IndexError: map::at when calculate offset in tl.arange type", 'triton-map-at-old-gpu'),
    # https://github.com/HuangJunJie2017/BEVDet/issues/127
    ("When I convert model using \"convert_bevdet_to_TRT.py\", I always meet the error \"IndexError: _Map_base::at\".", 'triton-map-at-old-gpu'),
    # https://github.com/mlc-ai/mlc-llm/issues/1216
    ("Cannot find `ld.lld` during ROCm Build", 'triton-rocm-lld-not-found'),
    # https://github.com/ROCm/TheRock/issues/5999
    ("could not find path component of main program: 'amdlld'", 'triton-rocm-lld-not-found'),
    # https://github.com/IRMVLab/SNI-SLAM/issues/27
    ("  File \"/home/xxx/anaconda3/envs/ff/lib/python3.10/site-packages/torch/storage.py\", line 192, in share_memory_\n    self._share_filename_cpu_()\nRuntimeError: _share_filename_: only available on CPU", 'mps-tensor-shared-with-dataloader-worker'),
    # https://github.com/intel/torch-xpu-ops/issues/2879
    ("E       RuntimeError: _share_fd_: only available on CPU", 'mps-tensor-shared-with-dataloader-worker'),
    # https://github.com/vietnh1009/Super-mario-bros-A3C-pytorch/issues/27
    ("_share_filename_: only available on CPU", 'mps-tensor-shared-with-dataloader-worker'),
    # https://github.com/pytorch/vision/issues/7508
    ("[libopenh264 @ 0x55923c8f86c0] Incorrect library version loaded\nError initializing output stream 0:0 -- Error while opening encoder for output stream #0:0 - maybe", 'conda-ffmpeg-libopenh264-missing'),
    # https://github.com/homebrew-ffmpeg/homebrew-ffmpeg/issues/190
    ("dyld[37766]: Library not loaded: /opt/homebrew/opt/ffmpeg/lib/libavcodec.61.dylib\n  Referenced from: <0427B474-C590-3255-85D5-9F517AE9D6B2> /usr/local/lib/libgpac.12.16.0.dylib", 'conda-ffmpeg-libopenh264-missing'),
    # https://github.com/bincrafters/community/issues/1047
    ("ERROR: openh264 not found using pkg-config", 'conda-ffmpeg-libopenh264-missing'),
    # https://github.com/snowflakedb/ArcticTraining/issues/165
    ("[rank7]: pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig\n[rank7]: reduce_bucket_size\n[rank7]:   Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='10e8', input_type=str]\n[rank7]:     For further information visit https://errors.pydantic.dev/2.11/v/int_parsing", 'deepspeed-zero3-auto-bucket-size-float'),
    # https://github.com/FlagOpen/FlagEmbedding/issues/1487
    ("[rank3]: pydantic_core._pydantic_core.ValidationError: 5 validation errors for DeepSpeedBF16Config\n[rank3]: loss_scale\n[rank3]:   Extra inputs are not permitted [type=extra_forbidden, input_value=0, input_type=int]", 'deepspeed-zero3-auto-bucket-size-float'),
    # https://github.com/OpenRLHF/OpenRLHF/issues/63
    ("ValidationError: 3 validation errors for DeepSpeedZeroConfig\nzero_hpz_partition_size\nextra fields not permitted (type=value_error.extra)\nzero_quantized_gradients\nextra fields not permitted (type=value_error.extra)", 'deepspeed-zero3-auto-bucket-size-float'),
    # https://github.com/devilismyfriend/StableTuner/issues/110
    ("(ST) E:\\StableTuner>pip install --upgrade --force-reinstall triton==1.1.1\nERROR: Could not find a version that satisfies the requirement triton==1.1.1 (from versions: none)\nERROR: No matching distribution found for triton==1.1.1", 'decord-no-wheel-for-platform'),
    # https://github.com/NVIDIAGameWorks/kaolin/issues/925
    ("ERROR: Could not find a version that satisfies the requirement kaolin==0.18.0 (from versions: 0.1)\nERROR: No matching distribution found for kaolin==0.18.0", 'decord-no-wheel-for-platform'),
    # https://github.com/astral-sh/uv/issues/10030
    ("error: Failed to install: httpx-0.28.1-py3-none-any.whl (httpx==0.28.1)\n  Caused by: Failed to persist temporary file to C:\\Users\\Mike\\AppData\\Roaming\\uv\\tools\\posting\\Lib\\site-packages\\..\\..\\Scripts\\httpx.exe: Access is denied. (os error 5)", 'uv-cache-rename-access-denied-windows'),
    # https://github.com/astral-sh/uv/issues/1327
    ("  × Failed to create virtualenv\n  ├─▶ failed to remove directory `.venv`\n  ╰─▶ Access is denied. (os error 5)", 'uv-cache-rename-access-denied-windows'),
    # https://github.com/pytorch/pytorch/issues/138211
    ("backend='inductor' raised:\nPermissionError: [WinError 5] Access is denied: 'C:\\\\Users\\\\Maraan\\\\AppData\\\\Local\\\\Temp\\\\torchinductor_Maraan\\\\triton\\\\0\\\\tmp.b6f93184-80c2-4f7a-a7b7-8e353f008ca4'", 'uv-cache-rename-access-denied-windows'),
    # The neighbours of the entries added from blind33-35's families: clang without libc headers on
    # Linux (no Windows marker), NCCL's status 217 outside the SHM transport, cuBLAS's status without
    # ZLUDA, a torch symbol without std::string (libtorch not linked at all), position_ids beside
    # another key, the XPU count warning (a notice of its own), another package without a wheel, the
    # CUDA runtime's plain no-kernel-image, another missing header, bitsandbytes without GPU support
    # on a CUDA machine, the loader's cuDNN DLL, another math function of glibc's.
    ("/tmp/tmpk2j3/cuda_utils.c:1:10: fatal error: 'stdio.h' file not found\n"
     "  File \"/usr/lib/python3.12/site-packages/triton/backends/nvidia/driver.py\", line 1, in <module>",
     'triton-windows-clang-crt-headers-missing'),
    ("misc.cc:44 NCCL WARN Cuda failure 217 'peer access is not supported between these two devices'",
     'nccl-cumem-host-peer-access-unsupported'),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
     "&alpha, a, lda, b, ldb, &beta, c, ldc)`", 'zluda-cublas-not-supported'),
    ("main.cpp:(.text+0x2a): undefined reference to `at::_ops::ones::call(c10::ArrayRef<c10::SymInt>, "
     "std::optional<c10::ScalarType>)'", 'libtorch-cxx11-abi-flavour-mismatch'),
    ('Unexpected key(s) in state_dict: "bert.embeddings.position_ids", "classifier.weight".',
     'transformers-position-ids-state-dict-key'),
    ("UserWarning: XPU device count is zero! (Triggered internally at /pytorch/c10/xpu/XPUFunctions.cpp:60.)",
     'xpu-runtime-not-installed'),
    ("ERROR: No matching distribution found for torch-tensorrt", 'torch-directml-no-wheel-for-python'),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device",
     'flash-attn3-kernel-on-blackwell'),
    ("csrc/ops.cu:3:10: fatal error: cuda_runtime.h: No such file or directory", 'python-headers-missing'),
    ("UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit "
     "multiplication, and GPU quantization are unavailable.", 'bitsandbytes-no-rocm-library'),
    ("Could not locate zlibwapi.dll. Please make sure it is in your library path!", 'cpp-extension-compiler-not-found'),
    ('/usr/include/bits/mathcalls.h(62): error: exception specification is incompatible with that of previous '
     'function "sinh"', 'nvcc-glibc-c23-math-noexcept'),
    # pip's and numba's other dependency messages: a requirement missing, the resolver refusing before it
    # installs, numba's lower bound
    ("numba 0.57.1 requires numpy, which is not installed.", "pip-package-pins-other-dependency"),
    ("ERROR: Cannot install numba==0.57.1 and numpy==1.25.2 because these package versions have conflicting "
     "dependencies.", "pip-package-pins-other-dependency"),
    ("Numba needs NumPy 1.18 or greater", "pip-package-pins-other-dependency"),
    # a CPU build installed on purpose, a CUDA build's version, collect_env's report of a CPU machine (no question
    # in it: tests/match/test_match_printed.py)
    ("pip install torch==2.1.0+cpu --index-url https://download.pytorch.org/whl/cpu", "torch-not-compiled-with-cuda"),
    ("PyTorch version: 2.3.1+cpu\nIs debug build: False\nCUDA used to build PyTorch: None", "torch-not-compiled-with-cuda"),
    ("PyTorch version: 2.3.1+cu121", "torch-not-compiled-with-cuda"),
    ("Environment: OS Windows 11, torch version is 2.1.0+cpu, python 3.10. Bug: the export to ONNX gives wrong shapes "
     "for dynamic axes", "torch-not-compiled-with-cuda"),
    ("ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by /envs/torch/lib/python3.9/"
     "site-packages/scipy/linalg/_fblas.cpython-39-x86_64-linux-gnu.so)", "glibc-too-old-for-torch"),
    ("ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by /home/u/miniconda3/envs/torch/lib/"
     "libstdc++.so.6)", "glibc-too-old-for-torch"),
    # another GL call on None (the project's own object), libGL missing for OpenCV
    ("AttributeError: 'NoneType' object has no attribute 'glBindTexture'", "pyopengl-gl-library-not-loadable"),
    ("ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
     "pyopengl-gl-library-not-loadable"),
]


@pytest.mark.parametrize("text,entry", NOT_THEIRS)
def test_a_neighbouring_text_is_not_claimed(text, entry):
    assert entry not in [m.id for m in match_text(text)]


THEIRS = [
    # nvcc's "--" turned into a dash by a paste; a torch wheel's dist-info path past Windows' limit;
    # pip refusing a pinned torchcodec whose only release for this platform is the placeholder.
    ("fatal error C1189: #error: \u2013 unsupported Microsoft Visual Studio version! Only the versions between "
     "2017 and 2022 (inclusive) are supported!", "nvcc-unsupported-host-compiler"),
    ("ERROR: Could not install packages due to an OSError: [WinError 206] The filename or extension is too long: "
     "'C:\\\\ci\\\\env\\\\Lib\\\\site-packages\\\\torch-2.13.0+cu130.dist-info\\\\licenses\\\\third_party\\\\kineto'",
     "windows-long-path-torch-install"),
    ("ERROR: Could not find a version that satisfies the requirement TorchCodec==0.2.1 (from versions: 0.0.0.dev0)",
     "companion-placeholder-release-installed"),
    # a torch version with a CPU tag told in a sentence or a report
    ("the cuda availability check turns out to be 'False' as the torch version for this environment is '1.10.0cpu'",
     "torch-not-compiled-with-cuda"),
    ("CUDA is not available: I checked and the installed torch version is 2.1.0+cpu", "torch-not-compiled-with-cuda"),
    # Other compilers' wording of Tensor.type() refused by AT_DISPATCH (MSVC, clang).
    ("error C2440: 'initializing': cannot convert from 'const at::DeprecatedTypeProperties' to 'c10::ScalarType'",
     "extension-source-uses-removed-torch-api"),
    ("error: no viable conversion from 'const at::DeprecatedTypeProperties' to 'c10::ScalarType'",
     "extension-source-uses-removed-torch-api"),
    # A ROCm build's invalid image named by HIP's own error: not CUDA's PTX JIT.
    ("RuntimeError: CUDA error: device kernel image is invalid (hipErrorInvalidImage)", "hip-invalid-device-function"),
    ("RuntimeError: CUDA error: device kernel image is invalid", "cuda-ptx-jit-failed"),
    # Variants of new entries' messages: uv's sharing violation, the Python import of a library that
    # needs libopenh264, Triton's older ROCm linker message, pip's requirements-file line for decord.
    ("  `-> failed to rename file from C:\\Users\\me\\AppData\\Local\\uv\\cache\\.tmpAb12Cd to "
     "C:\\Users\\me\\AppData\\Local\\uv\\cache\\archive-v0\\XyZ: The process cannot access the file because "
     "it is being used by another process. (os error 32)", "uv-cache-rename-access-denied-windows"),
    ("ImportError: libopenh264.so.5: cannot open shared object file: No such file or directory",
     "conda-ffmpeg-libopenh264-missing"),
    ("Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found", "triton-rocm-lld-not-found"),
    ("ERROR: Could not find a version that satisfies the requirement decord==0.6.0 (from -r requirements.txt (line 12)) "
     "(from versions: none)", "decord-no-wheel-for-platform"),
    # uv's hint with its backticks and "the following platforms:" lost in a paste.
    ("hint: You're on macOS (macosx_15_0_x86_64), but torch (v2.8.0) only has wheels for macosx_11_0_arm64",
     "uv-torch-no-wheel-for-platform"),
    # A companion's prebuilt wheel of another Python: pip's tag check, not torch's.
    ("ERROR: sageattention-2.2.0+cu128.torch2.11-cp311-cp311-win_amd64.whl is not a supported wheel on this platform.",
     "torch-wheel-not-supported-platform"),
    ("The server socket on [::ffff:10.4.6.125]:63617 has timed out, will retry.", "dist-rendezvous-connect-failed"),
    ("ImportError: libmkl_intel_lp64.so.2: cannot open shared object file: No such file or directory",
     "mkl-library-not-loaded"),
    ("java.lang.UnsupportedClassVersionError: org/pytorch/serve/ModelServer has been compiled by a more recent "
     "version of the Java Runtime (class file version 61.0), this version of the Java Runtime only recognizes "
     "class file versions up to 55.0", "torchserve-java-too-old"),
    ("NVIDIA A100 is not compatible with the current PyTorch", "gpu-capability-not-compatible"),
    ("ImportError: /opt/hpcx/ucx/lib/libucs.so.0: undefined symbol: ucm_set_global_opts", "hpcx-ucx-library-conflict"),
    # Python's own C-API names in every spelling: Py..., _Py..., Py_..., _Py_...
    ("ImportError: /env/lib/python3.8/site-packages/torch/lib/libtorch_python.so: undefined symbol: _Py_ZeroStruct",
     "torch-python-c-api-symbol-missing"),
    ("ImportError: /env/site-packages/torch/lib/libtorch_python.so: undefined symbol: Py_BuildValue",
     "torch-python-c-api-symbol-missing"),
    ("LINK : fatal error LNK1104: cannot open file 'python3.lib'", "python-import-library-missing"),
    ("LINK : fatal error LNK1104: cannot open file 'python312_d.lib'", "python-import-library-missing"),
    # retyped without the loader's colon
    ("libcudart.so.9.0 cannot open shared object file no such file or directory", "cuda-runtime-lib-cannot-open"),
    ("Package pytorch-cuda conflicts for:\ntorchaudio==0.13.1 -> pytorch-cuda[version='11.6.*|11.7.*']",
     "conda-nvidia-channel-missing"),
    ("    w.start()\n  File \"C:\\env\\lib\\multiprocessing\\popen_spawn_win32.py\", line 93, in __init__\n"
     "AttributeError: Can't pickle local object 'CVDB.<locals>.transform'", "multiprocessing-cannot-pickle-local-object"),
    # torch_xla before 2.0 carried XLA's client under a tensorflow/compiler path: still torch_xla's.
    ("RuntimeError: tensorflow/compiler/xla/xla_client/computation_client.cc:274 : Missing XLA configuration",
     "torch-xla-missing-xla-configuration"),
    # DeepSpeed before its ">- DeepSpeed Op Builder:" prefix
    ("Exception: Installed CUDA version 11.0 does not match the version torch was compiled with 11.1, unable to "
     "compile cuda/cpp extensions without a matching cuda version.", "deepspeed-cuda-toolkit-mismatch"),
]


@pytest.mark.parametrize("text,entry", THEIRS)
def test_a_variant_of_the_message_lands_on_its_entry(text, entry):
    found = match_text(text)
    assert found and found[0].id == entry, [m.id for m in found]


def test_a_generic_loader_message_is_possible_with_the_loader_s_cause_unless_torch_s_own():
    found = match_text("ImportError: /opt/conda/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
                       "(required by /workspace/build/lib/libmigraphx_gpu.so.2011000)")
    assert found[0].id == "glibcxx-version-not-found" and found[0].confidence == "possible"
    assert "dynamic loader" in found[0].neutral.by
    # A library built only on PyTorch names it: the same message is torch's.
    found = match_text("ImportError: /opt/conda/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
                       "(required by /env/site-packages/detectron2/_C.cpython-310-x86_64-linux-gnu.so)")
    assert found[0].id == "glibcxx-version-not-found" and found[0].confidence == "high"


def test_a_path_is_prepended_without_a_trailing_separator():
    # An empty entry in LD_LIBRARY_PATH is the current directory to the loader.
    cmd = F.prepend_path_cmd("LD_LIBRARY_PATH", "/usr/lib/wsl/lib")
    assert cmd == "export LD_LIBRARY_PATH=/usr/lib/wsl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # Run by a real POSIX shell, unset and set.
    for before, after in ((None, "/usr/lib/wsl/lib"), ("/a:/b", "/usr/lib/wsl/lib:/a:/b")):
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        if before is not None:
            env["LD_LIBRARY_PATH"] = before
        out = subprocess.run(["sh", "-c", cmd + '; printf %s "$LD_LIBRARY_PATH"'], env=env,
                             capture_output=True, text=True, timeout=30).stdout
        assert out == after


@pytest.mark.parametrize("text,failure,notice", [
    ("| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |\n"
     "RuntimeError: CUDA error: no kernel image is available for execution on the device",
     "cuda-no-kernel-image", "nvidia-smi-cuda-umd-version-label"),
    ("20:13:32 - NCCL WARN NET/OFI Only EFA provider is supported\n"
     "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error",
     "nccl-unhandled-system-error", "aws-ofi-nccl-no-efa-device"),
])
def test_a_notice_beside_a_failure_is_only_possible(text, failure, notice):
    found = match_text(text)
    assert found[0].id == failure
    assert [m.confidence for m in found if m.id == notice] == ["possible"]


def test_the_610_banner_alone_is_never_a_diagnosis():
    found = match_text("| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |")
    assert [(m.id, m.confidence) for m in found] == [("nvidia-smi-cuda-umd-version-label", "possible")]


def test_a_hip_line_does_not_hide_a_real_ptx_failure_elsewhere():
    # The HIP reading is decided on its own line: an NVIDIA PTX failure in the same text keeps
    # its entry, and CUDA's words beside HIP's error name are HIP's.
    text = ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat\n"
            "RuntimeError: CUDA error: a PTX JIT compilation failed")
    assert {"hip-invalid-device-function", "cuda-ptx-jit-failed"} <= {m.id for m in match_text(text)}
    # As a write-up quotes it: the message in quotes, HIP's name after the closing quote.
    hip = 'CUDA error: device kernel image is invalid" (hipErrorInvalidImage)'
    assert [m.id for m in match_text(hip)][:1] == ["hip-invalid-device-function"]
    assert "cuda-ptx-jit-failed" not in [m.id for m in match_text(hip)]


def test_torchvisions_own_pin_outranks_the_generic_one_and_the_version_keeps_no_period():
    # pip check's form ends with a period; the version pip printed is the one the hook pins.
    found = match_text("torchvision 0.14.1 has requirement torch==1.13.1, but you have torch 2.0.0+cu117.\n"
                       "fastai 2.7.11 has requirement torch<1.14,>=1.7, but you have torch 2.0.0+cu117.")
    assert [m.id for m in found][:2] == ["torchvision-requires-other-torch", "pip-package-pins-other-torch"]
    assert found[1].groups["have"] == "2.0.0+cu117" and found[0].groups["have"] == "2.0.0+cu117"


def _pins(text, facts):
    from torchdoctor.areas.companions.pins import tailor_package_pins
    (m,) = [m for m in match_text(text) if m.id == "pip-package-pins-other-torch"]
    return tailor_package_pins(m, facts)


def test_the_pin_hook_never_installs_torch_where_the_conflict_was_not_printed():
    from conftest import make_facts
    line = "fastai 2.7.11 requires torch<1.14,>=1.7, but you have torch 2.13.0+cu130 which is incompatible."
    # This interpreter has no torch: the keep-torch command would install one.
    no_torch = _pins(line, make_facts(packages={"installed": {"numpy": {"version": "2.1.0"}}}))
    assert [c for c in no_torch.commands if "install" in c] == [] and "has no torch" in no_torch.summary
    # The same release of another build (+cpu here, +cu130 in the message): pinning it would swap builds.
    other = _pins(line, make_facts(packages={"installed": {"torch": {"version": "2.13.0+cpu"}}}))
    assert [c for c in other.commands if "install" in c] == [] and "2.13.0+cpu" in other.summary
    same = _pins(line, make_facts(packages={"installed": {"torch": {"version": "2.13.0+cu130"}}}))
    assert same.commands[0].endswith('install "fastai" "torch==2.13.0+cu130"')


def test_the_onnx_opset_warning_is_a_notice_below_a_consumers_failure():
    text = ("Setting ONNX exporter to use operator set version 18 because the requested opset_version 13 is a lower "
            "version than we have implementations for. Automatic version conversion will be performed.\n"
            "[torch.onnx] Translate the graph into ONNX... \u2705\n"
            "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from "
            "model.onnx failed:Unsupported model IR version: 10, max supported IR version: 9")
    found = match_text(text)
    assert found[0].id != "onnx-export-opset-raised-dynamo-exporter"
    assert "onnx-export-dynamo-default" not in [m.id for m in found]


def test_a_local_collate_fn_pickled_by_torch_save_is_not_a_dataloader_worker():
    text = ("  File \"/env/lib/python3.11/site-packages/torch/serialization.py\", line 652, in _save\n"
            "    pickler.dump(obj)\n"
            "AttributeError: Can't pickle local object 'Trainer.__init__.<locals>.collate_fn'")
    assert "multiprocessing-cannot-pickle-local-object" not in [m.id for m in match_text(text)]


def test_pips_resolver_line_of_torchvision_is_torchvisions_entry():
    text = ("The conflict is caused by:\n    The user requested torch==1.10.0\n"
            "    torchvision 0.11.2 depends on torch==1.10.1")
    assert [m.id for m in match_text(text)][:1] == ["torchvision-requires-other-torch"]


def test_pips_conflict_line_naming_torch_is_only_possibly_a_pin():
    # "Cannot install ... and torch==X" says a conflict exists, not which: torch's own dependency
    # pinned elsewhere prints it too.
    sympy = ("ERROR: Cannot install -r requirements.txt (line 12) and torch==2.5.1 because these package versions "
             "have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested sympy==1.12\n"
             "    torch 2.5.1 depends on sympy==1.13.1")
    top = match_text(sympy)[0]
    assert top.id == "pip-resolver-conflict-names-torch" and top.confidence == "possible"
    # The companion's own line, when shown, names the cause.
    audio = ("ERROR: Cannot install -r ../model/requirements.txt (line 5) and torch==1.13.1 because these package "
             "versions have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested torch==1.13.1\n"
             "    torchaudio 0.9.0 depends on torch==1.9.0")
    assert match_text(audio)[0].id == "torchaudio-requires-other-torch"


@pytest.mark.parametrize("requested,found", [
    # torchaudio's line agrees with the request: speechbrain's bound is the conflict, whatever the order
    ("The user requested torch==1.12.0", ["pip-package-pins-other-torch"]),
    ("The user requested (constraint) torch==1.12.0", ["pip-package-pins-other-torch"]),
    # torchaudio wants another torch than the one requested: its line is the conflict
    ("The user requested torch==1.13.1", ["torchaudio-requires-other-torch", "pip-package-pins-other-torch"]),
    # a local tag on the request still agrees (pip's ==1.12.0 accepts 1.12.0+cu113)
    ("The user requested torch==1.12.0+cu113", ["pip-package-pins-other-torch"]),
    # ... but another build of the same release does not (+cpu is no +cu113)
    ("The user requested torch==1.12.0+cpu\n    torchaudio 0.12.0+cu113 depends on torch==1.12.0+cu113",
     ["torchaudio-requires-other-torch", "pip-package-pins-other-torch"]),
    # a constraint that disagrees keeps torchaudio's line a conflict, whatever the request says
    ("The user requested torch==1.12.0\n    The user requested (constraint) torch==1.11.0",
     ["torchaudio-requires-other-torch", "pip-package-pins-other-torch"]),
])
def test_a_companion_line_agreeing_with_the_requested_torch_is_not_the_conflict(requested, found):
    lines = ["    torchaudio 0.12.0 depends on torch==1.12.0", "    speechbrain 0.5.11 depends on torch<=1.11 and >=1.7"]
    for listing in (["    " + requested] + lines, lines + ["    " + requested]):
        assert [m.id for m in match_text("The conflict is caused by:\n" + "\n".join(listing))] == found


def test_a_log_scan_reads_the_requested_torch_of_a_conflict_listing(tmp_path):
    import io
    from torchdoctor.match.logscan import scan_stream
    log = (b"Collecting x\n" * 5000 + b"The conflict is caused by:\n    The user requested torch==1.12.0\n"
           b"    torchaudio 0.12.0 depends on torch==1.12.0\n"
           b"    speechbrain 0.5.11 depends on torch<=1.11 and >=1.7\n")
    assert [m.id for m in scan_stream(io.BytesIO(log), chunk_size=4096)] == ["pip-package-pins-other-torch"]


@pytest.mark.parametrize("symbol", [
    "?decref_pyobject@TensorImpl@c10@@UEBAXXZ",
    "?warning_handler@c10@@YAPEAVWarningHandler@1@XZ",
    "?foo@detail@impl@c10@@YAXXZ",
])
def test_torchcodecs_windows_loader_names_torch_symbols_of_any_depth(symbol):
    text = "Procedure %s not found in DLL: C:\\env\\Lib\\site-packages\\torchcodec\\libtorchcodec_core7.dll." % symbol
    assert match_text(text)[0].id == "torchcodec-built-for-other-torch"


def test_a_dataloader_beside_an_unrelated_local_object_is_not_the_worker_pickling():
    text = ("torch 2.5.1\nAttributeError: Can't get local object 'Model.<locals>.Inner'\n"
            "loader = DataLoader(ds, num_workers=0, worker_init_fn=seed_worker)")
    assert all(m.id != "multiprocessing-cannot-pickle-local-object" for m in match_text(text))


@pytest.mark.parametrize("text", [
    # pip's conflict line with no torch in it
    "ERROR: Cannot install -r requirements.txt (line 3), -r requirements.txt (line 4) and whisperx because these "
    "package versions have conflicting dependencies.",
    # another command's failure
    "subprocess.CalledProcessError: Command '['ldd', '--version']' returned non-zero exit status 1.",
    "subprocess.CalledProcessError: Command '['where', 'nvcc']' returned non-zero exit status 1.",
])
def test_new_wordings_stay_quiet_on_their_neighbours(text):
    ids = {m.id for m in match_text(text)}
    assert not ids & {"pip-resolver-conflict-names-torch", "pip-package-pins-other-torch", "triton-libcuda-not-found",
                      "cpp-extension-compiler-not-found"}, ids


@pytest.mark.parametrize("text", [
    "GPU with CUDA capability sm_35 is not supported by this version of cuDNN",
    "Device with CUDA capability sm_61 is not yet tested",
    "Your GPU with CUDA capability sm_70 is not supported by the Marlin kernel",
    # nvcc's own refusals of an architecture: the toolkit's, not torch's build
    "nvcc fatal   : Value 'sm_120' is not defined for option 'gpu-architecture'",
    "nvcc fatal : Unsupported gpu architecture 'compute_120'",
])
def test_the_capability_wordings_do_not_claim_other_libraries_messages(text):
    assert all(m.id != "gpu-capability-not-compatible" for m in match_text(text))


FORK_FRAME = ('  File "/usr/lib/python3.8/multiprocessing/popen_fork.py", line 70, in _launch\n'
              '    self.pid = os.fork()\n')
LOADER_FRAME = ('  File "/env/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 441, in _get_iterator\n'
                '    return _MultiProcessingDataLoaderIter(self)\n'
                '  File "/env/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 1042, in __init__\n'
                '    w.start()\n')


def test_errno_12_at_a_dataloader_fork_is_the_fork_and_alone_only_possibly_host_ram():
    at_fork = [m.id for m in match_text(LOADER_FRAME + FORK_FRAME + "OSError: [Errno 12] Cannot allocate memory")]
    assert at_fork == ["dataloader-worker-fork-enomem"]  # the fork's reading hides the bare one
    alone = match_text("OSError: [Errno 12] Cannot allocate memory")
    assert [(m.id, m.confidence) for m in alone] == [("host-ram-exhausted", "possible")]
    # any other fork (gunicorn, a multiprocessing pool) is no DataLoader's: host RAM, as a possibility
    other = match_text(FORK_FRAME + "OSError: [Errno 12] Cannot allocate memory")
    assert [(m.id, m.confidence) for m in other] == [("host-ram-exhausted", "possible")]
    # an Errno 12 inside a worker (an mmap the worker made), or a subprocess beside a printed num_workers
    worker = ("RuntimeError: Caught OSError in DataLoader worker process 3.\n  File \"/env/lib/python3.8/site-packages/"
              "torch/utils/data/dataloader.py\", line 1, in _next_data\nOSError: [Errno 12] Cannot allocate memory")
    assert [m.id for m in match_text(worker)] == ["host-ram-exhausted"]
    # another errno at the same fork, or Python's MemoryError, is not this reading
    for text in ("OSError: [Errno 24] Too many open files", "MemoryError"):
        assert "dataloader-worker-fork-enomem" not in [m.id for m in match_text(LOADER_FRAME + FORK_FRAME + text)]


def test_a_bare_errno_12_beside_torchs_own_allocator_message_keeps_it_a_diagnosis():
    text = ("RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: not enough memory: you "
            "tried to allocate 1073741824 bytes.\nOSError: [Errno 12] Cannot allocate memory")
    for t in (text, "\n".join(reversed(text.splitlines()))):
        assert [(m.id, m.confidence) for m in match_text(t)] == [("host-ram-exhausted", "high")]


def first_or_quiet(text, expected, entry):
    """`text` lands on `expected` first or, with expected None, `entry` stays out of its readings."""
    found = [m.id for m in match_text(text)]
    if expected is None:
        assert entry not in found, found
    else:
        assert found[:1] == [expected], found


@pytest.mark.parametrize("text,expected", [
    # a Python 2 pickle, read by pickle, NumPy or a body-model loader
    ("    data = pickle.load(f)\nUnicodeDecodeError: 'ascii' codec can't decode byte 0x81 in position 1224: "
     "ordinal not in range(128)", "pickle-from-python2"),
    ("  File \"/env/lib/python3.7/site-packages/numpy/lib/npyio.py\", line 460, in load\n    return pickle.load(fid, "
     "**pickle_kwargs)\nUnicodeDecodeError: 'ascii' codec can't decode byte 0xc8 in position 0: ordinal not in "
     "range(128)", "pickle-from-python2"),
    # a protocol-2 pickle opened in text mode: its first byte, in the file's decoder
    ('    data = pickle.load(fo)\n  File "/env/lib/python3.8/codecs.py", line 322, in decode\n    (result, consumed) = self._buffer_decode(data, '
     "self.errors, final)\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0x80 in position 0: invalid start byte",
     "pickle-from-python2"),
    # the same decoder errors about anything but a pickle say nothing of one
    ("  File \"setup.py\", line 8, in <module>\n    long_description = f.read()\nUnicodeDecodeError: 'ascii' codec "
     "can't decode byte 0xe2 in position 5712: ordinal not in range(128)", None),
    ("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte", None),
    # a C locale reading a README in a pip log that names cloudpickle; a weights file opened as a JSON config
    ("Collecting cloudpickle>=1.2.0\n  File \"/usr/lib/python3.6/encodings/ascii.py\", line 26, in decode\n"
     "UnicodeDecodeError: 'ascii' codec can't decode byte 0xe2 in position 2087: ordinal not in range(128)", None),
    ('  File "/usr/lib/python3.8/codecs.py", line 322, in decode\nUnicodeDecodeError: \'utf-8\' codec can\'t decode '
     "byte 0x80 in position 0: invalid start byte\nOSError: It looks like the config file at "
     "'checkpoints/pytorch_model.bin' is not a valid JSON file.", None),
    # a project's own to_pickle helper is no pickle being read
    ('  File "x.py", line 3\n    df.to_pickle(out)\n    text = open(fn).read()\nUnicodeDecodeError: \'ascii\' codec '
     "can't decode byte 0xc3 in position 88: ordinal not in range(128)", None),
    # NumPy's wrapper around other pickle failures keeps their own readings
    ("ModuleNotFoundError: No module named 'numpy._core'\nOSError: Failed to interpret file 'data/smpl_mean.pkl' as "
     "a pickle", None),
])
def test_a_python_2_pickle_is_read_from_the_decoder_error_only_beside_a_pickle(text, expected):
    first_or_quiet(text, expected, "pickle-from-python2")


@pytest.mark.parametrize("text,expected", [
    ("ImportError: cannot import name 'deform_conv_cuda'", "cuda-extension-package-not-built"),
    ("ImportError: cannot import name 'nms_ext' from 'mmdet.ops.nms' (/u/site-packages/mmdet/ops/nms/__init__.py)",
     "cuda-extension-package-not-built"),
    # a Python name the library moved is still the version mismatch
    ("ImportError: cannot import name 'build_detector' from 'mmdet.models'", "hf-library-version-mismatch"),
    ("ImportError: cannot import name 'cuda' from 'numba'", None),
    # Python names that end like an extension's are not one
    ("ImportError: cannot import name 'build_ext' from 'setuptools.command.build_ext' "
     "(/env/lib/python3.10/site-packages/setuptools/command/build_ext.py)", "hf-library-version-mismatch"),
    ("ImportError: cannot import name 'move_to_cuda' from 'fairseq.utils' (/e/site-packages/fairseq/utils.py)",
     "hf-library-version-mismatch"),
    ("cannot import name 'use_cuda' from 'utils' (/home/u/proj/utils/__init__.py)", None),
    # any extension-named module whose package folder holds no built file at all
    ("ImportError: cannot import name 'sparse_conv_ext' from 'mmdet3d.ops.spconv' (unknown location)",
     "cuda-extension-package-not-built"),
    ("ImportError: cannot import name 'resample2d_cuda' from 'networks.resample2d_package' (unknown location)",
     "cuda-extension-package-not-built"),
    ("cannot import name 'load_ext' from 'IPython.core'", None),
])
def test_a_compiled_ops_name_is_an_unbuilt_extension_not_a_moved_name(text, expected):
    first_or_quiet(text, expected, "cuda-extension-package-not-built")


@pytest.mark.parametrize("text", [
    "AttributeError: 'Trainer' object has no attribute '_detect_anomaly'",
    "TypeError: _write_metrics() missing 1 required positional argument: 'data_time'",
    "TypeError: from_config() takes 2 positional arguments but 3 were given",
    "TypeError: ROIHeads.from_config() takes 2 positional arguments but 3 were given",
])
def test_detectron2_changes_under_an_older_project_are_a_library_version_mismatch(text):
    assert [m.id for m in match_text(text)][:1] == ["hf-library-version-mismatch"]


@pytest.mark.parametrize("text", [
    "TypeError: from_config() takes 2 positional arguments but 4 were given",
    "AttributeError: 'Model' object has no attribute '_detect_anomaly_hook'",
    "TypeError: _write_metrics() missing 1 required positional argument: 'prefix'",
])
def test_other_signatures_and_names_are_not_detectrons_changes(text):
    assert "hf-library-version-mismatch" not in [m.id for m in match_text(text)]


@pytest.mark.parametrize("text,expected", [
    ("ModuleNotFoundError: No module named 'nms.cpu_nms'", "cuda-extension-package-not-built"),
    ("ModuleNotFoundError: No module named 'FaceBoxes.utils.nms.cpu_nms'", "cuda-extension-package-not-built"),
    ("ModuleNotFoundError: No module named 'my_cpu_nms'", "python-package-missing"),
    # PyABSA's words after the one unexpected key; other keys beside it are another cause
    ('Unexpected key(s) in state_dict: "bert4global.embeddings.position_ids". Fail to load the model from x!',
     "transformers-position-ids-state-dict-key"),
    ('Unexpected key(s) in state_dict: "bert.embeddings.position_ids", "bert.pooler.dense.weight". Fail to load the '
     "model", None),
    # transformers up to 4.33 refusing a tokenizer a newer one saved
    ("ValueError: Non-consecutive added token '<unk>' found. Should have index 32000 but has index 0 in saved "
     "vocabulary.", "hf-library-version-mismatch"),
    # other "non-consecutive" complaints are not the tokenizer's check
    ("AssertionError: Non-consecutive class ids found in the dataset: expected 3 but got 5", None),
    ("ValueError: Non-consecutive added token list in config.yaml", None),
])
def test_compiled_nms_ops_position_ids_and_added_tokens(text, expected):
    found = [m.id for m in match_text(text)]
    assert found[:1] == ([expected] if expected else []), found


@pytest.mark.parametrize("text,expected", [
    ("Looking in indexes: https://test.pypi.org/simple/\nERROR: Could not find a version that satisfies the requirement "
     "webcolors (from tllib) (from versions: none)", "testpypi-lacks-dependencies"),
    ("Looking in indexes: https://test.pypi.org/simple/\nERROR: Could not find a version that satisfies the "
     "requirement nibabel==3.2.1 (from bpreg)", "testpypi-lacks-dependencies"),
    # TestPyPI beside PyPI, pip's version list, a requirements file, a verbose 404 it skips: not this
    ("Looking in indexes: https://pypi.org/simple, https://test.pypi.org/simple/\nERROR: Could not find a version "
     "that satisfies the requirement torch==1.4.0 (from versions: 1.11.0, 1.12.0, 1.13.0)", None),
    ("pip install -i https://test.pypi.org/simple/ mypkg==0.1.3\nERROR: Could not find a version that satisfies the "
     "requirement mypkg==0.1.3 (from versions: 0.1.0, 0.1.1)", None),
    ("pip install -i https://test.pypi.org/simple/ -r requirements.txt\nERROR: Could not find a version that "
     "satisfies the requirement numpy==1.26.4 (from -r requirements.txt (line 3))", None),
    ("Could not fetch URL https://test.pypi.org/simple/numpy/: 404 Client Error: Not Found - skipping", None),
    # the same refusal from PyPI or a mirror is not TestPyPI's
    ("Looking in indexes: https://pypi.tuna.tsinghua.edu.cn/simple\nERROR: Could not find a version that satisfies the "
     "requirement webcolors (from tllib) (from versions: none)", None),
])
def test_testpypi_as_the_only_index_lacks_the_dependencies(text, expected):
    first_or_quiet(text, expected, "testpypi-lacks-dependencies")


def test_glibc_is_torch_s_only_for_torch_s_own_files():
    # A package whose name starts with "torch" (torch_radon's module) is an extension, not torch;
    # any other compiled package in site-packages is too, never at high confidence (a TensorFlow
    # module is another stack's); torch's own folder and libraries stay torch's.
    found = match_text("ImportError: /usr/lib64/libm.so.6: version `GLIBC_2.27' not found (required by "
                       "/usr/local/lib64/python3.6/site-packages/torch_radon_cuda.cpython-36m-x86_64-linux-gnu.so)")
    assert found[0].id == "glibc-too-old-for-extension", [m.id for m in found]
    found = match_text("ImportError: /lib/x86_64-linux-gnu/libm.so.6: version `GLIBC_2.29' not found (required by "
                       "/home/u/py38/lib/python3.8/site-packages/chaine/crf.cpython-38-x86_64-linux-gnu.so)")
    assert found[0].id == "glibc-too-old-for-extension" and found[0].confidence != "high"
    found = match_text("ImportError: /lib/x86_64-linux-gnu/libm.so.6: version `GLIBC_2.29' not found (required by "
                       "/home/u/py38/lib/python3.8/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so)")
    assert all(m.confidence != "high" for m in found)
    # torchaudio's own library, and any package of a conda environment that happens to be named torch
    for path in ("/env/lib/python3.10/site-packages/torchaudio/lib/libtorchaudio.so",
                 "/envs/torch/lib/python3.9/site-packages/scipy/linalg/_fblas.cpython-39-x86_64-linux-gnu.so"):
        found = match_text("OSError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by %s)" % path)
        assert found[0].id == "glibc-too-old-for-extension", (path, [m.id for m in found])
    for path in ("/var/task/torch/_C.cpython-311-x86_64-linux-gnu.so",  # pip --target, outside site-packages
                 "/env/lib/python3.10/site-packages/torch/lib/libtorch_cpu.so",
                 "/env/lib/python3.10/site-packages/torch/_C.cpython-310-x86_64-linux-gnu.so",
                 "/env/lib/python3.10/site-packages/torch.libs/libgomp-a34b3233.so.1",
                 "/opt/conda/lib/libtorch_cuda.so",
                 "/opt/libtorch/lib/libc10.so"):
        found = match_text("OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.28' not found (required by "
                           "%s)" % path)
        assert found[0].id == "glibc-too-old-for-torch", (path, [m.id for m in found])
