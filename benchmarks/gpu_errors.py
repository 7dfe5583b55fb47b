"""Real failures on a real NVIDIA GPU, each explained by `torchdoctor explain` and scored.

Every case below makes torch fail the way users report it (a forked DataLoader worker touching
CUDA, a class label out of range, a checkpoint saved on a GPU loaded where none is visible, two
NCCL ranks on one GPU, ...), on the machine it runs on: nothing is simulated. Each case names,
before any run, the knowledge-base entry that is the right answer (`expect`; None where no entry
fitted when the case was written: that row counts as a miss until one does). The output of the
failing process, as a user would paste it, goes to `explain --json --no-env`; the top match is
scored against `expect`.

    python benchmarks/gpu_errors.py [--python PY] [--out DIR] [--jobs N] [--only NAME,...]

Writes DIR/cases.jsonl (one row per case: the text, the expected and the answered entry, the
confidence) and prints a table and the score. Cases whose fix is an environment variable are
healed for real: explain's fix is applied and the case must then run clean ("not healed" is a
miss). Exit status 0 when every case ran (a miss is a
measurement, not a failure; with --fail-on-miss it is one), 1 when the machine has no usable CUDA
torch. A case that prints nothing (or only times out) is not scored.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (expect, also-right, env, code-or-launcher). The code is written to case.py and run as
# `PY case.py`; a list is a launcher's argv whose last item is the script's code, with "{py}"
# standing for the interpreter, "{port}" for a free loopback port, "{tmp}" for the case's folder.
# expect None: a usage error no entry is meant for (silence is right).
CASES: dict[str, tuple] = {
    "fork-child-uses-cuda": ("cuda-in-forked-subprocess", (), {}, r"""
import torch, multiprocessing as mp
torch.zeros(1, device='cuda')
def child():
    torch.zeros(1, device='cuda')
p = mp.get_context('fork').Process(target=child); p.start(); p.join()
raise SystemExit(p.exitcode)
"""),
    "dataloader-worker-uses-cuda": ("cuda-in-forked-subprocess", (), {}, r"""
import torch
from torch.utils.data import DataLoader, Dataset
class D(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return torch.ones(2, device='cuda') * i
torch.zeros(1, device='cuda')
for b in DataLoader(D(), batch_size=2, num_workers=2, multiprocessing_context='fork'):
    print(b)
"""),
    "cross-entropy-label-out-of-range": ("nll-loss-target-out-of-range", ("cuda-kernel-assertion-failed",), {}, r"""
import torch, torch.nn.functional as F
logits = torch.randn(4, 3, device='cuda')
target = torch.tensor([0, 1, 2, 5], device='cuda')
print(F.cross_entropy(logits, target).item())
"""),
    "embedding-index-out-of-range": ("embedding-index-out-of-range", ("cuda-index-out-of-bounds",), {}, r"""
import torch
emb = torch.nn.Embedding(10, 4).cuda()
print(emb(torch.tensor([[1, 2, 30]], device='cuda')).sum().item())
"""),
    "bce-input-out-of-range": ("bce-input-out-of-range", (), {}, r"""
import torch, torch.nn.functional as F
x = torch.tensor([0.2, 1.5], device='cuda'); y = torch.tensor([0.0, 1.0], device='cuda')
print(F.binary_cross_entropy(x, y).item())
"""),
    "oom-memory-fraction": ("cuda-out-of-memory", (), {}, r"""
import torch
torch.cuda.set_per_process_memory_fraction(0.001)
x = torch.empty(2**30, dtype=torch.uint8, device='cuda')
"""),
    "oom-training-batch": ("cuda-out-of-memory", (), {}, r"""
import torch
m = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(8)]).cuda()
free, total = torch.cuda.mem_get_info()
batch = int(free / (8192 * 4 * 8) * 3)
out = m(torch.randn(batch, 8192, device='cuda'))
out.sum().backward()
"""),
    "load-cuda-checkpoint-no-gpu-visible": ("deserialize-cuda-on-cpu-only", (), {"CUDA_VISIBLE_DEVICES": ""}, r"""
import torch, sys
torch.load(sys.argv[1])
"""),
    "cuda-visible-devices-empty": ("no-cuda-gpus-available", ("cuda-not-available",), {"CUDA_VISIBLE_DEVICES": ""}, r"""
import torch
model = torch.nn.Linear(4, 4).to('cuda')
"""),
    "cuda-visible-devices-bad-index": ("no-cuda-gpus-available", ("cuda-not-available",), {"CUDA_VISIBLE_DEVICES": "7"}, r"""
import torch
print('available', torch.cuda.is_available())
x = torch.randn(3).cuda()
"""),
    "set-device-past-count": ("cuda-invalid-device-ordinal", (), {}, r"""
import torch
torch.cuda.set_device(torch.cuda.device_count() + 2)
torch.zeros(1, device='cuda')
"""),
    "device-properties-past-count": ("cuda-invalid-device-ordinal", ("dataparallel-invalid-device-id",), {}, r"""
import torch
print(torch.cuda.get_device_properties(torch.cuda.device_count() + 2))
"""),
    # torch 2.10 dropped this check: on a newer torch the right outcome is no error at all.
    "deterministic-cublas": ("cublas-workspace-config-required", (), {}, r"""
import torch
torch.use_deterministic_algorithms(True)
a = torch.randn(64, 64, device='cuda'); print((a @ a).sum().item())
"""),
    "deterministic-op-missing": ("op-no-deterministic-implementation", (), {}, r"""
import torch
torch.use_deterministic_algorithms(True)
print(torch.histc(torch.randn(100, device='cuda'), bins=10))
"""),
    "tensors-on-two-devices": ("tensors-on-different-devices", (), {}, r"""
import torch
w = torch.randn(4, 4, device='cuda'); x = torch.randn(4, 4)
print(torch.mm(x, w))
"""),
    "conv-input-on-cpu": ("input-weight-type-mismatch", ("tensors-on-different-devices",), {}, r"""
import torch
conv = torch.nn.Conv2d(3, 8, 3).cuda()
print(conv(torch.randn(1, 3, 16, 16)).shape)
"""),
    "sdpa-flash-only-fp32": ("sdpa-no-available-kernel", (), {}, r"""
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
q = torch.randn(2, 4, 128, 64, device='cuda')
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    print(F.scaled_dot_product_attention(q, q, q).shape)
"""),
    "cuda-graph-capture-sync": ("cuda-graph-capture-forbidden-op", (), {}, r"""
import torch
x = torch.ones(4, device='cuda'); g = torch.cuda.CUDAGraph()
torch.cuda.synchronize()
with torch.cuda.graph(g):
    y = x * 2
    print(y.sum().item())
"""),
    "sync-debug-mode-error": (None, (), {}, r"""
import torch
torch.cuda.set_sync_debug_mode('error')
x = torch.ones(4, device='cuda')
print(x.sum().item())
"""),
    "pin-memory-no-gpu-visible": ("pin-memory-without-accelerator", (), {"CUDA_VISIBLE_DEVICES": ""}, r"""
import torch
from torch.utils.data import DataLoader
for b in DataLoader(list(range(4)), batch_size=2, pin_memory=True):
    pass
"""),
    "nccl-no-gpu-visible": ("process-group-nccl-no-gpus", (), {"CUDA_VISIBLE_DEVICES": "", "MASTER_ADDR": "127.0.0.1", "RANK": "0", "WORLD_SIZE": "1", "MASTER_PORT": "{port}"}, r"""
import torch, torch.distributed as dist
dist.init_process_group('nccl')
dist.all_reduce(torch.ones(1))
"""),
    "init-process-group-no-env": ("dist-launch-endpoint-missing", (), {}, r"""
import torch.distributed as dist
dist.init_process_group('nccl')
"""),
    "nccl-two-ranks-one-gpu": ("nccl-duplicate-gpu", (), {}, [
        "{py}", "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", r"""
import torch, torch.distributed as dist
dist.init_process_group('nccl')
torch.cuda.set_device(0)
x = torch.ones(1, device='cuda'); dist.all_reduce(x); torch.cuda.synchronize(); print(x)
"""]),
    "nccl-socket-ifname-missing": ("nccl-socket-interface-not-found", (), {"NCCL_SOCKET_IFNAME": "nosuchif0", "MASTER_ADDR": "127.0.0.1", "RANK": "0", "WORLD_SIZE": "1", "MASTER_PORT": "{port}"}, r"""
import torch, torch.distributed as dist
dist.init_process_group('nccl', device_id=torch.device('cuda:0'))
x = torch.ones(1, device='cuda'); dist.all_reduce(x); torch.cuda.synchronize(); print(x)
"""),
    "rendezvous-port-in-use": ("dist-rendezvous-port-in-use", (), {"HOLD_PORT": "{port}"}, [
        "{py}", r"""
import os, socket, subprocess, sys
s = socket.socket(); s.bind(('127.0.0.1', int(os.environ['HOLD_PORT']))); s.listen()
code = "import torch.distributed as dist; dist.init_process_group('gloo')"
env = dict(os.environ, MASTER_ADDR='127.0.0.1', MASTER_PORT=os.environ['HOLD_PORT'], RANK='0', WORLD_SIZE='1')
sys.exit(subprocess.run([sys.executable, '-c', code], env=env, timeout=60).returncode)
"""]),
    "triton-cc-missing": ("c-compiler-executable-missing", ("triton-c-compiler-missing",), {"CC": "/nonexistent/gcc", "TRITON_CACHE_DIR": "{tmp}/triton", "TORCHINDUCTOR_CACHE_DIR": "{tmp}/inductor"}, r"""
import torch
f = torch.compile(lambda x: (x.sin() + 1).relu())
print(f(torch.randn(64, device='cuda')).sum().item())
"""),
    "triton-ptxas-missing": ("triton-ptxas-not-found", (), {"TRITON_PTXAS_PATH": "/nonexistent/ptxas", "TRITON_CACHE_DIR": "{tmp}/triton", "TORCHINDUCTOR_CACHE_DIR": "{tmp}/inductor"}, r"""
import torch
f = torch.compile(lambda x: (x.cos() * 3).relu())
print(f(torch.randn(64, device='cuda')).sum().item())
"""),
    "illegal-memory-access": ("cuda-illegal-memory-access", (), {}, r"""
import torch, triton, triton.language as tl
@triton.jit
def k(p):
    tl.store(p + (1 << 40), 1.0)
x = torch.zeros(1, device='cuda'); k[(1,)](x); torch.cuda.synchronize()
"""),
    "amp-gradscaler-deprecated": ("amp-gradscaler-device-specific-deprecated", (), {}, r"""
import torch, warnings
warnings.simplefilter('always')
s = torch.cuda.amp.GradScaler()
"""),
    # Labelled None (a usage error) before the first run; its text showed an environment setting
    # torch refuses, which now has an entry tailored like check's rule of the same id.
    "alloc-conf-unknown-key": ("alloc-conf-unknown-key", (), {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segment:True"}, r"""
import torch
torch.zeros(1, device='cuda')
"""),
    "git-lfs-pointer-checkpoint": ("checkpoint-git-lfs-pointer", (), {}, r"""
import torch
open('model.pt', 'w').write('version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 102502400\n')
torch.load('model.pt', map_location='cuda')
"""),
    "truncated-checkpoint": ("checkpoint-truncated", (), {}, r"""
import torch
torch.save({'w': torch.randn(256, 256, device='cuda')}, 'model.pt')
data = open('model.pt', 'rb').read(); open('model.pt', 'wb').write(data[: len(data) // 2])
torch.load('model.pt', map_location='cuda')
"""),
    "expandable-segments-ipc": ("expandable-segments-ipc-disabled", (), {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, r"""
import torch, torch.multiprocessing as mp
def child(q):
    print(q.get().sum().item())
if __name__ == '__main__':
    ctx = mp.get_context('spawn'); q = ctx.Queue()
    p = ctx.Process(target=child, args=(q,)); p.start()
    q.put(torch.ones(1024, device='cuda')); p.join(60)
    raise SystemExit(p.exitcode)
"""),
    "cpp-extension-cuda-home-bogus": ("cuda-home-not-set", ("cpp-extension-build-failed",), {"CUDA_HOME": "/nonexistent/cuda", "TORCH_EXTENSIONS_DIR": "{tmp}/ext"}, r"""
import torch
from torch.utils.cpp_extension import load_inline
src = "__global__ void k(float* x) { x[threadIdx.x] = 1; }\nvoid run(torch::Tensor x) { k<<<1, 32>>>(x.data_ptr<float>()); }"
m = load_inline('ext_cuda_home', cpp_sources='void run(torch::Tensor x);', cuda_sources=src, functions=['run'])
"""),
    "gloo-collective-timeout": ("gloo-collective-timeout", (), {}, [
        "{py}", "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", r"""
import datetime, time, torch, torch.distributed as dist
dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=5))
if dist.get_rank() == 0:
    dist.all_reduce(torch.ones(4))
else:
    time.sleep(20)
"""]),
    "nccl-cpu-tensor": ("dist-no-backend-for-device", (), {"MASTER_ADDR": "127.0.0.1", "RANK": "0", "WORLD_SIZE": "1", "MASTER_PORT": "{port}"}, r"""
import torch, torch.distributed as dist
dist.init_process_group('nccl')
dist.all_reduce(torch.ones(4))
"""),
    "inductor-cache-unwritable": ("torch-output-location-not-writable", ("container-home-cache-not-writable",), {"TORCHINDUCTOR_CACHE_DIR": "/proc/torchinductor_cache", "TRITON_CACHE_DIR": "/proc/triton_cache"}, r"""
import torch
f = torch.compile(lambda x: x.exp() * 2)
print(f(torch.randn(64, device='cuda')).sum().item())
"""),
    "cuda-tensor-to-numpy": (None, (), {}, r"""
import torch
print(torch.ones(3, device='cuda').numpy())
"""),
    # Added for the third run, labelled before it; entries that did not exist then are named by
    # the family they need.
    # B=512 took over 150 s to compile in the third run: two 256x256 fp32 tiles (512 KiB) are
    # already past any GPU's per-block shared memory.
    "triton-shared-memory-too-small": ("triton-out-of-resources-shared-memory", (), {"TRITON_CACHE_DIR": "{tmp}/triton"}, r"""
import torch, triton, triton.language as tl
@triton.jit
def k(x, y, B: tl.constexpr):
    o = tl.arange(0, B)
    a = tl.load(x + o[:, None] * B + o[None, :])
    tl.store(y + o[:, None] * B + o[None, :], tl.dot(a, a))
B = 256
x = torch.randn(B, B, device='cuda'); y = torch.empty_like(x)
k[(1,)](x, y, B, num_stages=2); torch.cuda.synchronize()
"""),
    "gradscaler-bf16-params": ("gradscaler-bf16-params", (), {}, r"""
import torch
m = torch.nn.Linear(8, 8).cuda().bfloat16(); opt = torch.optim.SGD(m.parameters(), 0.1)
scaler = torch.amp.GradScaler('cuda')
loss = m(torch.randn(4, 8, device='cuda', dtype=torch.bfloat16)).float().sum()
scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
"""),
    "default-device-cuda-dataloader-shuffle": ("generator-device-mismatch", (), {}, r"""
import torch
from torch.utils.data import DataLoader
torch.set_default_device('cuda')
for b in DataLoader(list(range(10)), batch_size=2, shuffle=True):
    print(b)
"""),
    "ddp-unused-parameters": ("ddp-unused-parameters", (), {}, [
        "{py}", "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "1", r"""
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group('nccl'); torch.cuda.set_device(0)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.a = torch.nn.Linear(4, 4); self.b = torch.nn.Linear(4, 4)
    def forward(self, x):
        return self.a(x)
m = DDP(M().cuda(), device_ids=[0])
for _ in range(2):
    m(torch.randn(2, 4, device='cuda')).sum().backward()
dist.destroy_process_group()
"""]),
    # The third run's form (Python numbers and two dtypes) never reached the limit; a new rank
    # each call always recompiles.
    "dynamo-recompile-limit": ("dynamo-recompile-limit", (), {"TORCHINDUCTOR_CACHE_DIR": "{tmp}/inductor", "TRITON_CACHE_DIR": "{tmp}/triton"}, r"""
import torch
@torch.compile(backend='eager')
def f(x):
    return x * 2
for k in range(1, 12):
    f(torch.randn(*([2] * k), device='cuda'))
"""),
    "numpy-array-in-checkpoint": ("torch-load-weights-only-failed", (), {}, r"""
import numpy as np, torch
torch.save({'w': torch.ones(2, device='cuda'), 'stats': np.arange(3)}, 'ckpt.pt')
torch.load('ckpt.pt')
"""),
    "oom-with-expandable-segments": ("cuda-out-of-memory", (), {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, r"""
import torch
torch.cuda.set_per_process_memory_fraction(0.01)
x = torch.empty(2**32, dtype=torch.uint8, device='cuda')
"""),
    "pool-map-cuda-after-fork": ("cuda-in-forked-subprocess", (), {}, r"""
import torch, multiprocessing as mp
def work(i):
    return torch.ones(1, device='cuda').item() * i
if __name__ == '__main__':
    torch.cuda.init()
    with mp.get_context('fork').Pool(2) as p:
        print(p.map(work, range(4)))
"""),
    "half-times-float-matmul": (None, (), {}, r"""
import torch
a = torch.randn(4, 4, device='cuda', dtype=torch.half); b = torch.randn(4, 4, device='cuda')
print(a @ b)
"""),
}


# Cases whose failure is a warning: scored even when the process exits 0.
WARNING_CASES = {"amp-gradscaler-deprecated", "pin-memory-no-gpu-visible", "dynamo-recompile-limit"}
# Cases whose fix is an environment variable: explain (with this machine's facts) is asked for
# its fix, its first export/unset is applied and the case is run again; healed = it then exits 0.
HEAL_CASES = {"alloc-conf-unknown-key", "cuda-visible-devices-empty", "cuda-visible-devices-bad-index"}
_ENV_CMD = re.compile(r"(?:export (?P<var>\w+)=(?:'(?P<quoted>[^']*)'|(?P<plain>\S*))|unset (?P<unset>\w+))")


def heal(py: str, env: dict, argv: list, cwd: Path, text: str) -> dict:
    """Apply explain's first environment fix for this text and run the case again."""
    ex = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--json", "--python", py, "-"],
                        input=text, capture_output=True, text=True, cwd=ROOT,
                        env=dict(env, PYTHONPATH=str(ROOT)), timeout=120)
    try:
        commands = json.loads(ex.stdout)["matches"][0]["fix"]["commands"]
    except (ValueError, KeyError, IndexError):
        return {"healed": False, "why": "explain gave no fix: " + (ex.stderr or ex.stdout)[-300:]}
    m = next((m for m in map(_ENV_CMD.fullmatch, commands) if m), None)
    if m is None:
        return {"healed": False, "why": "no export/unset among %s" % commands}
    fixed = dict(env)
    if m.group("unset"):
        fixed.pop(m.group("unset"), None)
    else:
        fixed[m.group("var")] = m.group("quoted") if m.group("quoted") is not None else m.group("plain")
    p = subprocess.run(argv, env=fixed, cwd=cwd, capture_output=True, text=True, timeout=150)
    return {"command": m.group(0), "healed": p.returncode == 0, "rc_after": p.returncode,
            "tail_after": (p.stdout + p.stderr)[-400:]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_case(name: str, py: str, tmp: Path, ckpt: Path) -> dict:
    expect, also, env_add, what = CASES[name]
    port, case_tmp = str(free_port()), tmp / name
    case_tmp.mkdir(parents=True, exist_ok=True)
    fill = lambda s: s.replace("{port}", port).replace("{py}", py).replace("{tmp}", str(case_tmp))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)  # the failing process is the user's, not torchdoctor's
    env.update({k: fill(v) for k, v in env_add.items()})
    # A script file, as users run them (triton's @jit needs the source of a file); a launcher's
    # last item is the script it runs.
    script = case_tmp / "case.py"
    script.write_text(what[-1] if isinstance(what, list) else what)
    argv = [fill(a) for a in what[:-1]] + [str(script)] if isinstance(what, list) else [py, str(script), str(ckpt)]
    t0 = time.time()
    try:
        p = subprocess.run(argv, env=env, cwd=case_tmp, capture_output=True, text=True, timeout=150)
        rc, text = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        text = ((e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace"))
    row = {"name": name, "expect": expect, "also_right": list(also), "env": env_add, "rc": rc,
           "seconds": round(time.time() - t0, 1), "text": text[-6000:]}
    ex = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--json", "--no-env", "-"],
                        input=row["text"], capture_output=True, text=True, cwd=ROOT,
                        env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    try:
        matches = json.loads(ex.stdout)["matches"]
    except (ValueError, KeyError):
        matches, row["explain_error"] = [], (ex.stderr or ex.stdout)[-500:]
    row["answer"] = [(m["id"], m.get("confidence")) for m in matches[:3]]
    top = matches[0]["id"] if matches else None
    # expect None: a usage error no entry is meant for; silence is the right answer there.
    row["verdict"] = ("no error" if (rc == 0 and name not in WARNING_CASES) or not text.strip()
                      else "right" if top and top == expect
                      else "right (also)" if top in also
                      else ("right (silent)" if top is None else "claimed") if expect is None
                      else "none" if top is None else "wrong")
    if name in HEAL_CASES and row["verdict"].startswith("right"):
        row["heal"] = heal(py, env, argv, case_tmp, row["text"])
        if not row["heal"]["healed"]:
            row["verdict"] = "not healed"
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "_work" / "gpu_errors"))
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--only", default="")
    ap.add_argument("--fail-on-miss", action="store_true",
                    help="exit 1 when a case that failed is not answered by its entry (a regression check)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    probe = subprocess.run([a.python, "-c", "import torch; assert torch.cuda.is_available(); "
                            "print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode:
        print("gpu_errors: no usable CUDA torch in", a.python, "\n", probe.stderr[-800:], file=sys.stderr)
        return 1
    print("torch", probe.stdout.strip())
    names = [n for n in CASES if not a.only or n in a.only.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="gpu_errors_"))
    ckpt = tmp / "on_gpu.pt"
    subprocess.run([a.python, "-c", "import torch, sys; torch.save({'w': torch.ones(3, device='cuda')}, sys.argv[1])",
                    str(ckpt)], check=True, timeout=120)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        rows = list(pool.map(lambda n: run_case(n, a.python, tmp, ckpt), names))
    with open(out / "cases.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(dict(r, torch=probe.stdout.strip())) + "\n")
    for r in rows:
        print(f"{r['verdict']:<13} {r['name']:<36} expect {r['expect']}  got {r['answer'][:2]}  rc {r['rc']} {r['seconds']}s"
              + ("  healed by `%s`" % r["heal"]["command"] if r.get("heal", {}).get("healed") else
                 "  NOT healed: %s" % r["heal"] if "heal" in r else ""))
    failed = [r for r in rows if r["verdict"] != "no error"]
    right = sum(r["verdict"].startswith("right") for r in failed)
    print(f"\n{right}/{len(failed)} right ({len(rows) - len(failed)} cases produced no error)")
    return 1 if a.fail_on_miss and right < len(failed) else 0


if __name__ == "__main__":
    sys.exit(main())
