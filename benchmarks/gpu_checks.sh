#!/usr/bin/env bash
# The checks a CUDA machine is for, in one go, each under its own time limit, writing into OUTDIR:
# the CUDA tests, the training benchmark (eager, CUDA graphs, bf16), and the quick replication of
# Studies 2 and 3 (default seeds and seeds + 1000, each study's run and findings on the GPU, no
# pages). A step that fails or runs out of time is logged and the next one runs.
#
# Usage: bash benchmarks/gpu_checks.sh OUTDIR [SECONDS [PROFILE]]   (SECONDS: the whole budget,
# default 540; PROFILE: the replication's profile, default quick)
# Needs the package's dependencies importable (PYTHONPATH=src is set here) and $PRUNEAUDIT_DATA
# pointing at MNIST, QMNIST and Fashion-MNIST in torchvision's layout.
set -u
out=${1:?usage: gpu_checks.sh OUTDIR [SECONDS]}
budget=${2:-540}
profile=${3:-quick}
mkdir -p "$out"
export PYTHONPATH=src${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
step() {  # step NAME SECONDS COMMAND...: run COMMAND under a limit, log to OUTDIR/NAME.log
    local name=$1 limit=$2; shift 2
    local t0; t0=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    echo "$name: exit $? after $(($(date +%s) - t0)) s (limit $limit s)" | tee -a "$out/steps.txt"
}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c "import torch, torchvision; print('torch', torch.__version__, 'torchvision', \
torchvision.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name())"
  nproc; } >"$out/machine.txt" 2>&1
step cuda_tests 150 python3 -m pytest -m cuda -q -p no:cacheprovider tests/training tests/runs
step gpu_training 150 python3 benchmarks/gpu_training.py --device cuda --images 12000 --ks 30,120
cp benchmarks/out/gpu_training_cuda* "$out/" 2>/dev/null
step replication "$(left)" python3 benchmarks/replication.py --recompute --profile "$profile" \
    --notebooks 02_qmnist_writers 03_pareto_selection --work /tmp/gpu_replication \
    --save "$out/replication_gpu.md"
tar -C /tmp/gpu_replication -czf "$out/findings.tar.gz" book_default book_other 2>/dev/null
echo "total $(($(date +%s) - start)) s" | tee -a "$out/steps.txt"
