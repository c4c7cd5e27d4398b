#!/usr/bin/env bash
# One call on the GPU host: where ws loses to weighted on H200 partitions
# though its split is the same (2026-12-05 sweep: 4096 fma x 64 B, and heavy
# items of 2^18 fma), ws against weighted as ws's chunk sizes change
# (BATON_TAIL_SPLIT: a chunk is 1/N of a device's fair share of what is left;
# BATON_MIN_CHUNK_US), and a trace of each heavy case. Logs in $OUT.
#   source scripts/device-env.sh; TESTS=0 bash bench/sweep/ws_chunks_gpu.sh
set -uo pipefail
source bench/gpu_build.sh

b=build/gpu/baton
split=${SPLIT:-cuda:0/64+32+16+8}
bal() {  # name, then bench balance options
  local name=$1
  shift
  timeout 90 $b bench balance -d "$split" -p weighted,ws -r 3 "$@" >"$out/$name.log" 2>&1
  echo "== $name: $*"
  grep -E "^(weighted|ws) " "$out/$name.log" | cut -c1-60
}
mid="-i 4096 -b 64 -n 8056355"
bal mid_default $mid
BATON_TAIL_SPLIT=2 bal mid_tail2 $mid
BATON_TAIL_SPLIT=8 bal mid_tail8 $mid
BATON_MIN_CHUNK_US=4000 bal mid_min4ms $mid
bal heavy64 -i 262144 -b 64 -n 738973 --trace "$out/trace_heavy64.json"
bal heavy4 -i 262144 -b 4 -n 569710 --trace "$out/trace_heavy4.json"
BATON_TAIL_SPLIT=2 bal heavy64_tail2 -i 262144 -b 64 -n 738973
