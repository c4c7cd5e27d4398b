#!/usr/bin/env bash
# One call on the GPU host for issue 10: build (and the test suite unless
# TESTS=0), then `baton train` on the whole H200 and PyTorch (eager and
# torch.compile) on the same model, alternated three times, then `baton
# train` on partitions of the H200 under each policy. Logs and JSON in $OUT.
#   source scripts/device-env.sh; bash bench/train/run_gpu.sh
set -uo pipefail
source bench/gpu_build.sh

b=build/gpu/baton
model="--inputs 1024 --width 8192 --depth 4 --outputs 1024 --lr 1e-4"
for r in 1 2 3; do
  timeout 120 $b train -d cuda:0 $model -b 4096 -m 512 -s 20 --warmup 3 \
    --json-out "$out/train_whole_$r.json" >"$out/train_whole_$r.log" 2>&1
  grep -E "^cuda0 " "$out/train_whole_$r.log"
  timeout 300 python3 bench/train/pytorch_mlp.py --batch 4096 --steps 20 --warmup 3 --lr 1e-4 \
    --compile 2>>"$out/pytorch.err" | tee -a "$out/pytorch.jsonl"
done
timeout 200 $b train -d cuda:0/64+32+16+8 $model -b 4096 -m 64 -s 10 --warmup 2 \
  --scaling strong -p static,weighted,ws,model --json-out "$out/train_partitions.json" 2>&1 |
  tee "$out/train_partitions.log"
