#!/usr/bin/env bash
# The balance suite on the GPU host (docs/results/balance.md): build (and the
# tests, as bench/gpu_build.sh's TESTS says), then for each split of GPU 0 in
# SPLITS and the host's CPU beside the whole GPU, `baton bench sweep` over 64
# to 2^18 fma steps an item, 8 and 64 bytes, runs of 5 and 20 ms, every policy
# against the oracle and ws against the better of static and weighted (the
# CPU beside the GPU: weighted alone; static's even split gives the CPU half).
# Logs and JSON land in $OUT.
#   source scripts/device-env.sh; bash bench/run_gpu.sh balance
set -uo pipefail
source bench/gpu_build.sh
source bench/sweep/brief.sh
for split in ${SPLITS:-64+32+16+8 80+40 48+40+24+8 88+24+8}; do
  sweep "p_${split//+/_}" "cuda:0/$split" static,weighted,ws
done
sweep mix cpu,cuda:0 weighted,ws
