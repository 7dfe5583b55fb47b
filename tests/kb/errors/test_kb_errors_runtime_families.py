"""The runtime families of torch's environment messages (distributed launch, NCCL, shared memory,
memory, CUDA statuses, cuSOLVER, NVML): which entry a line lands on, and the lines they must leave
to a more specific entry or to nobody. Lines are built in the formats torch, c10d, gloo and NCCL
print; none is an evaluation text."""

import pytest

from torchdoctor.match.matcher import match_text


def top(text):
    found = match_text(text)
    return found[0].id if found else None


ROUTES = [
    ("[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29501 (errno: 98 - Address already in use).",
     "dist-rendezvous-port-in-use"),
    ("[W1201 socket.cpp:464] [c10d] The server socket has failed to listen on [::]:443 (errno: 13 - Permission denied).",
     "dist-rendezvous-port-privileged"),
    ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [node-3]:29500 (errno: 111 - Connection refused).",
     "dist-rendezvous-connect-failed"),
    ("[W socket.cpp:752] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not "
     "supported by protocol).", "dist-ipv6-unavailable"),
    ("torch.distributed.DistStoreError: Timed out waiting on barrier on rank 3, for key prefix: custom (world_size=4, "
     "missing_ranks=[rank 1], timeout=0:05:00)", "dist-store-barrier-timeout"),
    ("RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.1.2.3]:4411",
     "dist-peer-connection-closed"),
    ("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable WORLD_SIZE expected, "
     "but not set", "dist-launch-endpoint-missing"),
    ("[W1201 socket.cpp:697] [c10d] The IPv6 network addresses of (gpu-07, 29500) cannot be retrieved (gai error: -2 - "
     "Name or service not known).", "dist-hostname-lookup-failed"),
    ("RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable "
     "to find address for: eth9", "gloo-socket-interface-invalid"),
    ("RuntimeError: Distributed package doesn't have MPI built in. MPI is only included if you build PyTorch from source "
     "on a host that has MPI installed.", "mpi-not-built-in"),
    ("RuntimeError: Capturing NCCL collectives is only allowed with NCCL >= 2.9.6", "nccl-undefined-symbol-import"),
    ("[rank2]:[E1201 ProcessGroupNCCL.cpp:1595] NCCL timeout in: ProcessGroupNCCL::barrier", "nccl-watchdog-timeout"),
    ("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
     "'spawn' start method", "cuda-in-forked-subprocess"),
    ("RuntimeError: CUDA error: initialization error", "cuda-in-forked-subprocess"),
    ("RuntimeError: could not unlink the shared memory file /torch_1234_5678_0 : No such file or directory (2)",
     "shm-segment-removed"),
    ("RuntimeError: [enforce fail at alloc_cpu.cpp:117] err == 0. DefaultCPUAllocator: can't allocate memory: you tried "
     "to allocate 34359738368 bytes. Error code 12 (Cannot allocate memory)", "host-ram-exhausted"),
    ("libgomp: Out of memory allocating 4096 bytes", "host-ram-exhausted"),
    ("[W1201 CUDACachingAllocator.cpp:1012] nvmlDeviceGetComputeRunningProcesses failed; omitting per-process memory "
     "info from CUDA out-of-memory messages. This is expected on platforms with partial NVML support such as "
     "Tegra/Jetson.", "cuda-oom-nvml-assert"),
    ("RuntimeError: cusolver error: CUSOLVER_STATUS_NOT_INITIALIZED, when calling `cusolverDnCreate(handle)`",
     "cusolver-cusparse-failure"),
    ("RuntimeError: cusolver error: CUSOLVER_STATUS_ALLOC_FAILED, when calling `cusolverDnCreate(handle)`",
     "cublas-alloc-failed"),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasLtMatmul(...)`", "cublas-not-supported"),
    ("RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", "cuda-hardware-fault"),
    ("RuntimeError: CUDA error: the remote procedural call between the MPS server and the MPS client failed",
     "cuda-gpu-sharing-service-error"),
    ("RuntimeError: CUDA error: PTX JIT compiler library not found", "cuda-ptx-jit-failed"),
    ("RuntimeError: CUDA error: API call is not supported in the installed CUDA driver", "cuda-driver-insufficient"),
    ("RuntimeError: CUDA error: CUDA driver is a stub library", "cuda-driver-stub-library"),
    # torch's TORCH_CUDASPARSE_CHECK wording: a handle cuSPARSE could not create, not a forked process
    ("RuntimeError: CUDA error: initialization error when calling `cusparseCreate(handle)`", "cusolver-cusparse-failure"),
    ("UserWarning: 'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't "
     "be used.", "pin-memory-without-accelerator"),
    ("ImportError: torch._nccl_ep is unavailable; this PyTorch was not built with USE_NCCL_EP (or, for a "
     "USE_SYSTEM_NCCL=ON build, the nccl4py wheel is missing).", "torch-feature-package-missing"),
]


@pytest.mark.parametrize("text,entry", ROUTES, ids=[e for _, e in ROUTES])
def test_a_line_lands_on_its_family(text, entry):
    assert top(text) == entry


def test_a_failed_nccl_call_is_only_possible_and_its_status_decides():
    m = match_text("RuntimeError: NCCL AllReduce failed")[0]
    assert m.id == "nccl-operation-failed" and m.confidence == "possible"
    assert top("torch.distributed.DistBackendError: NCCL Send failed: remote process exited or there was a network "
               "error") == "nccl-remote-error"


def test_wrappers_leave_the_error_inside_them_to_its_entry():
    assert top("[rank0]:[E1201 ProcessGroupNCCL.cpp:1595] Process group watchdog thread terminated with exception: "
               "CUDA error: an illegal memory access was encountered") == "cuda-illegal-memory-access"
    assert top("torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 "
               "&& device < num_gpus INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/CUDAContext.cpp\":50, please "
               "report a bug to PyTorch.") == "cuda-device-index-num-gpus-assert"
    assert top("misc.cc:44 NCCL WARN Cuda failure 217 'peer access is not supported between these two devices'\n"
               "ncclUnhandledCudaError: Call to CUDA function failed.") == "nccl-unhandled-cuda-error"
    # NCCL's "Last error" names no file; 217 from an NCCL >= 2.24 communicator is the SHM transport's
    # cuMem import on GPUs without peer access, and from an older NCCL something else
    assert top("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
               "ProcessGroupNCCL.cpp:3353, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
               "2.26.2\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
               "Cuda failure 217 'peer access is not supported between these two devices'") == \
        "nccl-cumem-host-peer-access-unsupported"
    assert top("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
               "ProcessGroupNCCL.cpp:1207, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
               "2.18.1\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
               "Cuda failure 217 'peer access is not supported between these two devices'") == "nccl-unhandled-cuda-error"
    # MPS inside the device count warning: the MPS entry, not the generic count entry beside it
    found = [m.id for m in match_text(
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
        "before calling NumCudaDevices() that might have already set an error? Error 805: MPS client failed to connect "
        "to the MPS control daemon or the MPS server")]
    assert found[0] == "cuda-gpu-sharing-service-error" and "cuda-get-device-count-error" not in found


@pytest.mark.parametrize("text", [
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 1073741824 bytes.",
    "OSError: [Errno 98] Address already in use",
    "Error: listen EADDRINUSE: address already in use 127.0.0.1:5173",
    "ssh: connect to host 10.0.0.2 port 22: Connection refused",
    "ERROR: Could not install packages due to an OSError: [Errno 24] Too many open files",
])
def test_other_programs_lines_are_not_claimed(text):
    assert [m.id for m in match_text(text) if m.entry.category in (
        "oom", "dist-config", "dist-rank", "nccl-error", "gpu-runtime-fault")] == []


def test_bitsandbytes_cpu_only_library_wording_of_0_50():
    # bitsandbytes 0.50 answers a GPU function of its CPU library with this line (cextension.py)
    text = ("RuntimeError: Method 'cquantize_blockwise_fp16_nf4' not available in CPU-only version of bitsandbytes.\n"
            "Reinstall with GPU support or use CUDA-enabled hardware.")
    assert match_text(text)[0].id == "bitsandbytes-cuda-library-not-loaded"


@pytest.mark.parametrize("text", [
    # 0.37 names the one library it looks for, 0.38 to 0.41 the list
    "UserWarning: /home/u/miniconda3/envs/textgen did not contain libcudart.so as expected! Searching further paths...",
    "UserWarning: /opt/env did not contain ['libcudart.so', 'libcudart.so.11.0', 'libcudart.so.12.0'] as expected! "
    "Searching further paths...",
])
def test_bitsandbytes_searching_past_the_environment_for_the_cuda_runtime_is_possibly_the_cpu_fallback(text):
    m = match_text(text)[0]
    assert m.id == "bitsandbytes-cuda-library-not-loaded" and m.confidence == "possible"


def test_the_warning_does_not_doubt_the_failure_that_follows_it():
    text = ("/home/u/miniconda3/envs/llm did not contain ['libcudart.so', 'libcudart.so.11.0'] as expected! "
            "Searching further paths...\nCUDA SETUP: Something unexpected happened. Please compile from source\n"
            "CUDA SETUP: Setup Failed!")
    m = match_text(text)[0]
    assert m.id == "bitsandbytes-cuda-library-not-loaded" and m.confidence == "high" and "possibly" not in m.groups


# ------------------------------------------------------- a segfault after import ---
@pytest.mark.parametrize("text", [
    "YOLOR 2023-5-30 torch 2.1.0+cu121 CUDA:0 (NVIDIA GeForce RTX 4060 Laptop GPU, 7940.125MB)\n\nFusing layers... \n"
    "Segmentation fault (core dumped)",
    "import torch\nx = torch.randn(3).cuda()\nFatal Python error: Segmentation fault",
])
def test_a_segfault_in_a_torch_program_is_possibly_the_native_stack(text):
    (m,) = [m for m in match_text(text) if m.id == "torch-process-segfault"]
    assert match_text(text)[0].id == "torch-process-segfault" and m.confidence == "possible"


@pytest.mark.parametrize("text, entry", [
    ("$ python -c 'import torch'\nSegmentation fault (core dumped)", "torch-import-segfault"),
])
def test_the_specific_segfault_entries_keep_their_rows(text, entry):
    ids = [m.id for m in match_text(text)]
    assert ids[0] == entry and "torch-process-segfault" not in ids


@pytest.mark.parametrize("text", [
    "./main -m ggml-model-q4_0.gguf\nSegmentation fault (core dumped)",  # llama.cpp: nothing of torch
    "tensorflow/core/common_runtime/gpu/gpu_device.cc:1635] Created device\nSegmentation fault (core dumped)",
])
def test_a_segfault_without_torch_in_view_is_not_claimed(text):
    assert "torch-process-segfault" not in [m.id for m in match_text(text)]


@pytest.mark.parametrize("text", [
    # torchrun's report of a rank's death: run and dist name the rank and its gdb command themselves
    "  torch-2.13.0+cpu\n  traceback : Signal 11 (SIGSEGV) received by PID 25822",
    # a compiler or conda crashing while building or installing: not the torch program's crash
    "pip install torch-2.13.0\nc++: internal compiler error: Segmentation fault signal terminated program cc1plus",
    "import torch\n/bin/sh: line 1: 4242 Segmentation fault (core dumped) /usr/local/cuda/bin/nvcc -c kernel.cu",
])
def test_segfaults_that_are_not_the_torch_programs_own(text):
    assert "torch-process-segfault" not in [m.id for m in match_text(text)]


@pytest.mark.parametrize("text", [
    "config loaded.\nKilled",
    " 31%|#####     | 331/1063 [01:06<03:59,  3.06it/s]Killed",
    "[1]+  Killed                  python train.py --gpu 0",
    "./train.sh: line 12: 48213 Killed                  python train.py",
    "When I try to run the train code , I get a error : killed by OOM killer",
    "my code was killed due to being out of memory",
    "[Sun Mar 30 08:24:00 2025] Out of memory: Killed process 7899 (python) total-vm:26184840kB, anon-rss:15370088kB",
    "Memory cgroup out of memory: Killed process 7899 (python) total-vm:26184840kB",
    "Out of memory: Kill process 7899 (python) score 912 or sacrifice child",
    "  5/100 [01:02<12:30, 12.30s/it]Killed",
])
def test_a_kill_by_the_kernel_and_its_reports_are_possibly_host_ram(text):
    # SIGKILL's report carries no cause of its own: the out-of-memory killer is the likely one, not a certainty
    found = match_text(text)
    assert found and found[0].id == "host-ram-exhausted" and found[0].confidence == "possible", \
        [(m.id, m.confidence) for m in found]


@pytest.mark.parametrize("text", [
    "The job was killed by the admin after 48 hours",
    "Killed: 9",
    "Worker killed by signal 15",
    "RuntimeError: DataLoader worker (pid 8544) is killed by signal: Killed.",
    "My job got killed due to out of memory on GPU",
    "The training got killed due to OOM on the GPU (CUDA)",
    "my training job was killed due to OOM on my RTX 3090",
    "got killed due to out of memory (GPU has 8GB)",
    # pip killed while it downloads torch: its own entry (--no-cache-dir)
    "Collecting torch\n  Downloading torch-2.1.0-cp310-cp310-manylinux1_x86_64.whl (670.2 MB)\n"
    "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 670.2/670.2 MB 3.1 MB/s eta 0:00:01\nKilled",
])
def test_other_kills_are_not_host_ram(text):
    assert "host-ram-exhausted" not in [m.id for m in match_text(text)][:1]


def test_torch_1s_own_allocator_message_is_host_ram_with_its_size():
    from hook_facts import facts, tailored_as
    m, t = tailored_as("host-ram-exhausted", "RuntimeError: $ Torch: not enough memory: you tried to allocate 72GB. "
                       "Buy new RAM! at /pytorch/aten/src/TH/THGeneral.cpp:204",
                       facts(memory={"total_bytes": 64 * 2 ** 30, "available_bytes": 60 * 2 ** 30}))
    assert m.confidence == "high" and "larger than all of this machine's RAM" in t.summary, t
