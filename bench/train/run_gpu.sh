#!/usr/bin/env bash
# One call on the GPU host for issue 10: build (and the test suite unless
# TESTS=0), then, side by side on the same model, `baton train` on the whole
# H200 and PyTorch eager, alternated; `baton train` on partitions of the H200
# under each policy; and PyTorch under torch.compile last (its compile
# workers outlive it and take host cores). Both cycle two batches in pinned
# memory (--dataset 2), copied in every step. Logs and JSON in $OUT.
#   source scripts/device-env.sh; bash bench/train/run_gpu.sh
set -uo pipefail
source bench/gpu_build.sh

b=build/gpu/baton
model="--inputs 1024 --width 8192 --depth 4 --outputs 1024 --lr 1e-4 --dataset 2"
torch="bench/train/pytorch_mlp.py --batch 4096 --steps 20 --warmup 3 --lr 1e-4"
whole() {
  timeout 120 $b train -d cuda:0 $model -b 4096 -m 512 -s 20 --warmup 3 \
    --json-out "$out/train_whole_$1.json" >"$out/train_whole_$1.log" 2>&1
  grep -E "^cuda0 " "$out/train_whole_$1.log"
}
whole 1
timeout 120 python3 $torch --modes eager 2>>"$out/pytorch.err" | tee -a "$out/pytorch.jsonl"
whole 2
timeout 120 python3 $torch --modes eager 2>>"$out/pytorch.err" | tee -a "$out/pytorch.jsonl"
timeout 200 $b train -d cuda:0/64+32+16+8 $model -b 4096 -m 64 -s 10 --warmup 2 \
  --scaling strong -p static,weighted,ws,model --json-out "$out/train_partitions.json" \
  >"$out/train_partitions.log" 2>&1
tail -12 "$out/train_partitions.log"
whole 3
timeout 200 python3 $torch --modes compile 2>>"$out/pytorch.err" | tee -a "$out/pytorch.jsonl"
