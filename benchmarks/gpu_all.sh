#!/usr/bin/env bash
# Every check of the project that needs an NVIDIA GPU, in one run of 8-10 minutes on one GPU
# machine, so a short lease of such a machine covers all of them:
#   check (the probe, text and JSON), check --compile (inductor + triton on the GPU), real
#   failures through `run` (out of memory, a device-side assert, a device index past the
#   visible ones: each must be explained by the entry named beside it), gpu_errors.py (47 more
#   real failures, each answered by its entry), then gpu_tune.sh and gpu_dist.sh.
#
#   benchmarks/gpu_all.sh [PYTHON]     # an interpreter with a CUDA torch (default: python3)
#
# Runs from a checkout (nothing is installed). Writes everything under $GPU_OUT (default
# benchmarks/_work/gpu_all) and, when $PACK is set, packs that folder into $PACK (one .tar.gz).
# Exit status: the number of steps that did not give the expected result (0: all did).
set -uo pipefail
PY=${1:-python3}
cd "$(dirname "$0")/.."
W=${GPU_OUT:-benchmarks/_work/gpu_all}
mkdir -p "$W"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
failed=0
t0=$(date +%s)
step() { echo; echo "== [$(( $(date +%s) - t0 )) s] $*"; }
bad() { echo "!! $*"; failed=$((failed + 1)); }

step "the machine"
timeout 30 nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv || bad "nvidia-smi failed"
timeout 120 "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'gpus', torch.cuda.device_count())" \
  || { bad "torch with CUDA is not importable by $PY"; exit "$failed"; }

step "check --json (the probe on a real GPU), then its text from the saved report"
timeout 120 "$PY" -m torchdoctor check --python "$PY" --json --fail-on never > "$W/check.json" 2> "$W/check.err"
echo "check --json exit $?"
timeout 60 "$PY" -m torchdoctor check --from "$W/check.json" --no-color --fail-on never > "$W/check.txt" 2>&1
cat "$W/check.txt"
"$PY" - "$W/check.json" <<'PY' || bad "check did not see a working CUDA device, or found an error"
import json, sys
r = json.load(open(sys.argv[1]))
cuda = r["facts"].get("cuda") or {}
errors = [f["id"] for f in r.get("findings", []) if f.get("severity") == "error"]
print("cuda.is_available:", cuda.get("is_available"), "devices:", cuda.get("device_count"),
      "arch_list:", cuda.get("arch_list"), "| error findings:", errors)
sys.exit(0 if cuda.get("is_available") and cuda.get("device_count") and not errors else 1)
PY

step "check --compile (inductor and triton on the GPU, in a child with its own caches)"
timeout 240 "$PY" -m torchdoctor check --python "$PY" --compile --no-color --fail-on error > "$W/compile.txt" 2>&1
rc=$?
sed -n '/[Cc]ompile/,$p' "$W/compile.txt" | head -40
[ "$rc" = 0 ] || bad "check --compile exited $rc"

step "real failures through run: each must be explained by the entry named"
runcase() {  # name, the entry ids that may explain it (an extended regex), code
    timeout 120 "$PY" -m torchdoctor run --no-color -- "$PY" -c "$3" > "$W/run_$1.txt" 2>&1
    rc=$?
    tail -25 "$W/run_$1.txt"
    grep -Eq "\[($2)[],]" "$W/run_$1.txt" || bad "run $1 (exit $rc): none of $2 named"
}
runcase oom cuda-out-of-memory "import torch; torch.empty(2**45, dtype=torch.uint8, device='cuda')"
runcase assert 'cuda-device-side-assert|cuda-index-out-of-bounds|cuda-kernel-assertion-failed' "import torch; x = torch.zeros(4, device='cuda'); i = torch.tensor([9], device='cuda'); print(x[i].sum().item())"
runcase ordinal cuda-invalid-device-ordinal "import torch; torch.zeros(1, device='cuda:%d' % torch.cuda.device_count())"

step "real failures (gpu_errors.py): every one that fails must be answered by its entry"
timeout 420 "$PY" benchmarks/gpu_errors.py --python "$PY" --out "$W/errors" --fail-on-miss | tail -15 \
  || bad "gpu_errors.py: a real failure was not answered by its entry"

step "tune (gpu_tune.sh)"
OUT="$W/tune" BUDGET="${BUDGET:-150}" timeout 300 bash benchmarks/gpu_tune.sh || bad "gpu_tune.sh failed"

step "dist (gpu_dist.sh)"
OUT="$W/dist" timeout 300 bash benchmarks/gpu_dist.sh "$PY" || bad "gpu_dist.sh exited non-zero"

step "done: $failed step(s) without the expected result"
if [ -n "${PACK:-}" ]; then tar -czf "$PACK" -C "$(dirname "$W")" "$(basename "$W")"; fi
exit "$failed"
