#!/usr/bin/env bash
# torchdoctor dist on every local GPU with NCCL, then `torchdoctor check`, on one GPU machine.
#
#   benchmarks/gpu_dist.sh [PYTHON]        # PYTHON: an interpreter with a CUDA torch (default: python3)
#
# Runs from a checkout (PYTHONPATH points at it; nothing is installed). Every command has a
# time limit, so the whole script ends within about 5 minutes even when NCCL hangs. Writes
# its outputs to $OUT (default benchmarks/_work/gpu): dist.txt (the text result, with the
# busbw table and findings), dist.md (the Markdown report, which embeds the job as JSON),
# check.txt. Exit status: that of `torchdoctor dist` (0 healthy, 1 findings, 2 usage).
set -uo pipefail
PY=${1:-python3}
cd "$(dirname "$0")/.."
OUT=${OUT:-benchmarks/_work/gpu}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

echo "== the machine"
timeout 30 nvidia-smi -L || echo "nvidia-smi -L failed"
timeout 30 nvidia-smi topo -m || echo "nvidia-smi topo -m failed"
timeout 120 "$PY" -c "import torch, torch.distributed as d; print('torch', torch.__version__, 'cuda', torch.version.cuda,
 'gpus', torch.cuda.device_count(), 'nccl', d.is_nccl_available() and '.'.join(map(str, torch.cuda.nccl.version())))" \
  || { echo "torch with CUDA is not importable by $PY"; exit 2; }

echo "== torchdoctor dist --nproc-per-node gpu --backend nccl --pairs"
start=$(date +%s)
timeout 240 "$PY" -m torchdoctor dist --nproc-per-node gpu --backend nccl --pairs \
  --join-timeout 60 --timeout 60 --report "$OUT/dist.md" --no-color | tee "$OUT/dist.txt"
rc=${PIPESTATUS[0]}
echo "== dist exit status $rc after $(( $(date +%s) - start )) s"

echo "== torchdoctor check"
timeout 60 "$PY" -m torchdoctor check --no-color > "$OUT/check.txt" 2>&1
echo "check exit status $?"
sed -n '/^GPU & driver/,/^Companion/p;/^Findings/,$p' "$OUT/check.txt"
exit "$rc"
