#!/usr/bin/env bash
# One call on the GPU host for issue 12: build and the gpu tests (TESTS, as
# bench/gpu_build.sh), then the parts named in PARTS (default: all):
#   sanitize  every gpu test executable under compute-sanitizer, once per tool
#             in TOOLS (default: memcheck racecheck synccheck); a summary line
#             each, the reports in sanitize_TOOL.log. CUDA calls that return an
#             error are not counted (--report-api-errors no): the tests provoke
#             some on purpose (out of memory, a missing kernel), and NCCL probes
#             for kernel images it may lack.
#   faults    a partition of the H200 failing (BATON_FAULT) during
#             `bench balance` and during `baton train`
#   source scripts/device-env.sh; PARTS=faults bash bench/reliability/run_gpu.sh
set -uo pipefail
source bench/gpu_build.sh
b=build/gpu/baton
parts=" ${PARTS:-sanitize faults} "

sanitize() {
  local tests
  tests=$(cd build/gpu && ctest -L gpu -N | awk '/Test +#/ {print $3}')
  for tool in ${TOOLS:-memcheck racecheck synccheck}; do
    for t in $tests; do
      echo "===== $t" >>"$out/sanitize_$tool.log"
      # 99: the sanitizer found something; other non-zero: the test itself
      # (timing checks may fail at the sanitizer's pace).
      timeout "${SAN_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 99 \
        "build/gpu/tests/$t" >>"$out/sanitize_$tool.log" 2>&1
      local rc=$?
      local summary
      summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$out/sanitize_$tool.log" | tail -1)
      printf "%-9s %-26s rc=%-3d %s\n" "$tool" "$t" "$rc" "$summary"
    done
  done
}

faults() {
  # p1 of four partitions fails at its 40th launch; the run's results are checked.
  BATON_FAULT=cuda0.p1:after=40 timeout 180 $b bench balance -d cuda:0/64+32+16+8 \
    -n $((1 << 26)) -i 4096 -c $((1 << 18)) -p static,weighted,ws -r 1 \
    --json-out "$out/fault_balance.json" >"$out/fault_balance.log" 2>&1
  echo "bench balance rc=$?"
  tail -8 "$out/fault_balance.log"
  BATON_FAULT=cuda0.p2:after=300 timeout 240 $b train -d cuda:0/64+32+16+8 --inputs 1024 \
    --width 4096 --depth 2 --outputs 1024 -b 4096 -m 256 -s 8 --warmup 1 -p ws --counts 4 \
    --json-out "$out/fault_train.json" >"$out/fault_train.log" 2>&1
  echo "train rc=$?"
  tail -12 "$out/fault_train.log"
}

for part in $parts; do
  case $part in
    sanitize) sanitize ;;
    faults) faults ;;
    *) echo "unknown part '$part'" ;;
  esac
done
