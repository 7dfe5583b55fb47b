#!/usr/bin/env bash
# torchdoctor tune on a real NVIDIA GPU: the four built-in workloads at size "large" with
# every CUDA setting (cudnn.benchmark fixed and varying shapes, cudnn.deterministic,
# cudnn.enabled=False, TF32 for matmul and conv, set_float32_matmul_precision, the SDPA
# backends, channels_last, autocast bf16/fp16), in one run under 5 minutes.
#
#   benchmarks/gpu_tune.sh                        # torchdoctor and a CUDA torch in python3
#   TORCH_PYTHON=/path/to/cuda-venv/bin/python benchmarks/gpu_tune.sh
#
# PYTHON runs torchdoctor (click, packaging, psutil); TORCH_PYTHON is the interpreter whose
# torch is tuned (default: the same). Writes gpu_tune.{json,md,html} and prints the table.
# Fails loudly when TORCH_PYTHON sees no CUDA device, and when a CUDA setting is missing
# from the result.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
TORCH_PYTHON="${TORCH_PYTHON:-$PYTHON}"
OUT="${OUT:-benchmarks/_gpu_tune}"
SIZE="${SIZE:-large}"     # tiny/small only to smoke-test this script (e.g. with tests/verbs/tune/tune_fakes.py's shim)
BUDGET="${BUDGET:-240}"   # tune's whole run, torch start-up included; the rest of the 5 minutes is margin

if ! "$TORCH_PYTHON" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "gpu_tune.sh: FAILED: no CUDA device visible to $TORCH_PYTHON" >&2
    "$TORCH_PYTHON" -c 'import torch; print("torch", torch.__version__, "built for CUDA", torch.version.cuda,
        "| torch.cuda.is_available() =", torch.cuda.is_available())' >&2 2>/dev/null \
        || echo "(import torch failed in $TORCH_PYTHON)" >&2
    echo "run it on a machine with an NVIDIA GPU and a CUDA build of torch; torchdoctor check says why not here" >&2
    exit 1
fi

mkdir -p "$OUT"
start=$(date +%s)
set +e
"$PYTHON" -m torchdoctor tune --python "$TORCH_PYTHON" --device cuda --size "$SIZE" --budget "$BUDGET" --json \
    --report "$OUT/gpu_tune.md" --report "$OUT/gpu_tune.html" > "$OUT/gpu_tune.json"
rc=$?
set -e
echo "gpu_tune.sh: tune exited $rc after $(( $(date +%s) - start )) s" >&2
"$PYTHON" -m torchdoctor tune --from "$OUT/gpu_tune.json" --no-color

"$PYTHON" - "$OUT/gpu_tune.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = {"cudnn.benchmark", "cudnn.deterministic", "cudnn.enabled", "tf32.matmul", "tf32.conv",
        "float32_matmul_precision", "sdpa", "channels_last", "autocast"}
seen, measured = set(), set()
for w in r["workloads"]:
    for s in w.get("settings") or []:
        seen.add(s["family"])
        if s["status"] == "measured":
            measured.add(s["family"])
missing = want - seen
if r["environment"]["device"] != "cuda" or missing:
    sys.exit("gpu_tune.sh: FAILED: device %s, CUDA settings missing from the result: %s"
             % (r["environment"]["device"], ", ".join(sorted(missing))))
print("gpu_tune.sh: every CUDA setting planned; measured: %s; not measured: %s"
      % (", ".join(sorted(measured)), ", ".join(sorted(want - measured)) or "none"))
PY
