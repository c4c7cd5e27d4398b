#!/usr/bin/env bash
# One call on the GPU host: build everything, run the whole test suite (gpu
# tests included), then `baton bench balance` on SM partitions of GPU 0 and on
# the whole GPU. Logs and JSON land in $OUT.
#   source scripts/device-env.sh; bash bench/balance/run_gpu.sh
set -uo pipefail
source bench/gpu_build.sh
b=build/gpu/baton
{
  $b devices
  $b devices --devices cuda:0/64+32+16+8
  # Compute-bound: 2^24 items x 2^18 dependent FMAs, about 8.8 TFLOP per run.
  $b bench balance --devices cuda:0/64+32+16+8 -n 16777216 -i 262144 -r 3 --json-out "$out/balance_partitions.json"
  $b bench balance --devices cuda:0 -p static,ws -n 16777216 -i 262144 -r 3 --json-out "$out/balance_whole.json"
  # Finer chunks: what the scheduler costs when chunks are short.
  $b bench balance --devices cuda:0/64+32+16+8 -p static,ws,ws-topo -n 16777216 -i 16384 -c 65536 -r 3
} 2>&1 | tee "$out/balance.log"
