#!/usr/bin/env bash
# Runs the named suites on the GPU host, one after another, each writing its
# logs and JSON under $OUT/SUITE. A suite is the measurement behind one page
# of docs/results/:
#   tests        the tests labelled gpu (and the build they need)
#   core         the task graph's chain of small kernels against a raw stream
#                and a CUDA graph, per-launch cost, the conformance suite
#                under compute-sanitizer (core.md)
#   data-path    copies and GEMMs beside the raw driver and cuBLAS calls, and
#                runs from host memory on each split (data-path.md)
#   balance      bench sweep over splits of the GPU and a CPU beside it
#                (balance.md); SPLITS picks the splits
#   sweep        the long sweep over 1 to 2^18 fma steps and 4 to 64 bytes,
#                runs of 5 to 200 ms (balance.md)
#   training     baton train beside PyTorch, on partitions, the collectives
#                (training.md); PARTS picks the parts
#   torch        baton.torch and baton.torch.distributed: ResNet-50, a GPT
#                decoder, two DDP ranks on green contexts (training.md,
#                processes.md); PARTS picks the parts
#   simulator    the performance models and runs that bench/sim/predict.py
#                replays here (simulator.md)
#   reliability  the gpu tests under compute-sanitizer, a partition failing
#                mid-run (reliability.md)
# Each suite's script says what else it reads from the environment.
#   source scripts/device-env.sh; bash bench/run_gpu.sh tests balance
set -uo pipefail
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
case ${1:-} in
  '') usage >&2; exit 2 ;;
  -h | --help) usage; exit 0 ;;
esac
root=${OUT:-/tmp/baton-gpu}
declare -A script=(
  [core]="bench/tasks/run_gpu.sh" [balance]="bench/balance/run_gpu.sh"
  [sweep]="bench/sweep/run_gpu.sh" [training]="bench/train/run_gpu.sh"
  [torch]="bench/torch/run_gpu.sh" [simulator]="bench/sim/record_h200.sh"
  [reliability]="bench/reliability/run_gpu.sh"
)
status=0
for suite in "$@"; do
  export OUT="$root/$suite"
  echo "=== $suite"
  case $suite in
    tests) TESTS=gpu bash -c 'source bench/gpu_build.sh' ;;
    data-path) bash bench/cuda/run_gpu.sh && TESTS=0 SWEEP_S=0 bash bench/sweep/run_gpu.sh ;;
    *)
      [ -n "${script[$suite]:-}" ] || { echo "run_gpu.sh: no suite '$suite' (see --help)" >&2; exit 2; }
      TESTS=${TESTS:-0} bash "${script[$suite]}" ;;
  esac || status=1
done
exit $status
