#!/usr/bin/env bash
# One call on the GPU host for the execution core: build everything, run the
# whole test suite (gpu tests included: the conformance suite on a whole GPU
# and on SM partitions, the README example on partitions), the gpu tests
# under compute-sanitizer memcheck, then the task benchmarks (a chain of small
# dependent kernels through baton against one raw stream and one CUDA graph,
# independent kernels over four partitions) and `baton bench balance` on
# partitions. Logs and JSON land in $OUT.
#   source scripts/device-env.sh; bash bench/tasks/run_gpu.sh
set -uo pipefail
source bench/gpu_build.sh
build/gpu/tests/test_conformance_cuda 2>&1 | tee "$out/conformance_cuda.log" | grep -E "OK|FAILED|SKIPPED|PASSED"

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in test_conformance_cuda test_cuda_launch test_cuda_events test_cuda_partitions; do
  echo "=== $t"
  timeout 200 "$sanitizer" --tool memcheck --error-exitcode 7 "build/gpu/tests/$t" 2>&1 |
    grep -E "ERROR SUMMARY|\[  (PASSED|FAILED|SKIPPED) \]|Invalid|Program hit" | head -8
  echo "exit ${PIPESTATUS[0]}"
done >"$out/memcheck.log" 2>&1
grep -E "===|ERROR SUMMARY|exit" "$out/memcheck.log"

{
  timeout 200 build/gpu/bench/bench_cuda_tasks "$out/bench_cuda_tasks.json"
  timeout 120 build/gpu/bench/bench_cuda_overhead "$out/bench_cuda_overhead.json"
  b=build/gpu/baton
  $b bench balance --devices cuda:0/64+32+16+8 -n 16777216 -i 16384 -r 3 --json-out "$out/balance.json"
} 2>&1 | tee "$out/bench.log"
