#!/usr/bin/env bash
# One call on the GPU host: build baton's CUDA tests and benchmarks, run the
# gpu-labelled tests, the same under compute-sanitizer memcheck, and the CUDA
# benchmarks. Logs and JSON land in $OUT (at most 8 files come back).
#   source scripts/device-env.sh; bash bench/cuda/run_gpu.sh
set -uo pipefail
out=${OUT:-/tmp/baton-gpu}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
{ date -u; nvidia-smi; nvcc --version; uname -a; nproc; } >"$out/env.log" 2>&1

gpu_tests="test_cuda_backend test_cuda_launch test_cuda_partitions test_cuda_events
  test_cuda_copies test_cuda_peer test_cuda_memory test_cuda_nvrtc test_cuda_gemm test_nvml"
tests="test_cuda_partition_sizes test_cuda_unavailable $gpu_tests"
benches="bench_cuda_copy bench_cuda_gemm bench_cuda_overhead"
{
  cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_BUILD_TESTS=ON \
    -DBATON_BUILD_BENCH=ON &&
    ninja -C build/gpu $tests $benches
} >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build ok"

(cd build/gpu && ctest -L 'gpu|cuda' --output-on-failure --timeout 240) >"$out/tests.log" 2>&1
tail -25 "$out/tests.log"
# What the tests print (device descriptions, partition errors, NVML readings).
for t in test_cuda_backend test_cuda_partitions test_cuda_gemm test_nvml; do
  "build/gpu/tests/$t" --gtest_brief=1
done >>"$out/tests.log" 2>&1
# The CLI over the backend, where the core's tool builds.
if ninja -C build/gpu baton_cli >/dev/null 2>&1; then
  build/gpu/baton devices
  build/gpu/baton devices --devices cuda:0/64+32+16+8,cpu --topology
  build/gpu/baton devices --devices cuda:0/60
fi >>"$out/tests.log" 2>&1

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in $gpu_tests; do
  echo "=== $t"
  timeout 150 "$sanitizer" --tool memcheck --error-exitcode 7 "build/gpu/tests/$t" 2>&1 |
    grep -E "ERROR SUMMARY|\[  (PASSED|FAILED|SKIPPED) \]|Invalid|error" | head -20
  echo "exit ${PIPESTATUS[0]}"
done >"$out/memcheck.log" 2>&1
grep -E "===|ERROR SUMMARY|exit" "$out/memcheck.log"

{
  for b in $benches; do
    timeout 180 "build/gpu/bench/$b" "$out/$b.json"
  done
  # Staged-copy rates by the number of copying threads (default: 8 on 16 cores).
  for n in 4 12 16; do
    echo "--- BATON_CUDA_COPY_THREADS=$n"
    BATON_CUDA_COPY_THREADS=$n timeout 120 build/gpu/bench/bench_cuda_copy /tmp/copy_$n.json |
      grep -E "pageable|host copy"
  done
} 2>&1 | tee "$out/bench.log"
