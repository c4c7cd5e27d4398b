#!/usr/bin/env bash
# Issue 11's validation, the GPU half: on the H200 host, record the
# performance models of `bench balance`'s kernel on SM partitions (the model
# policy records every chunk's time), then measure the same runs under
# several policies. bench/sim/predict.py replays them on the simulator, with
# each sim device measured as a partition, and prints the error per case; the
# recording runs' JSON tells it how long a run takes to start its devices.
#   source scripts/device-env.sh; TESTS=0 bash bench/sim/record_h200.sh
# SPLITS: the partitions; CASES: fma steps per item:bytes per item:items.
set -uo pipefail
source bench/gpu_build.sh

b=build/gpu/baton
splits=${SPLITS:-"64+32+16+8 80+40"}
cases=${CASES:-"16384:4:4194304 16384:4:33554432 1024:4:16777216 1024:8:67108864 64:8:268435456"}
mkdir -p "$out/val"
for s in $splits; do
  for c in $cases; do
    IFS=: read -r i by n <<<"$c"
    tag="${s//+/_}_i${i}_b${by}"
    # One models file per split and shape: the models key on the kernel's
    # name and size, not its fma steps. Recorded at the run's size and at a
    # 16th and a quarter of it, so that the smaller chunks of static and ws
    # fall between measured sizes (the simulator draws a line between them).
    for m in $((n / 16)) $((n / 4)) "$n"; do
      BATON_PERF_MODEL_FILE="$out/val/pm_$tag.json" timeout 120 $b bench balance -d "cuda:0/$s" \
        -p model -n "$m" -i "$i" -b "$by" -r 5 --json-out "$out/val/record_${tag}_n$m.json" \
        >"$out/val/record_${tag}_n$m.log" 2>&1 ||
        echo "record $tag n=$m failed"
    done
    # Medians of 9: a run's devices start 20 to 400 us after it does (calls
    # of 2026-12-07), a tenth of the shortest of these runs.
    timeout 120 $b bench balance -d "cuda:0/$s" -p static,weighted,ws -n "$n" -i "$i" -b "$by" \
      -r 9 --json-out "$out/val/run_${tag}_n$n.json" >"$out/val/run_${tag}_n$n.log" 2>&1 ||
      echo "run $tag n=$n failed"
    echo "== $s i=$i b=$by n=$n"
    grep -E "^(static|weighted|ws) " "$out/val/run_${tag}_n$n.log"
  done
done
tar czf "$out/validation.tgz" -C "$out" val
