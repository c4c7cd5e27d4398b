#!/usr/bin/env bash
# One call on the GPU host for issue 10: build (and the test suite unless
# TESTS=0; TESTS=gpu runs the gpu label alone), then the parts named in PARTS
# (default: all, in this order):
#   whole    baton train on the whole H200, alternated with
#   torch    PyTorch eager on the same model (bench/train/pytorch_mlp.py)
#   strong   baton train on partitions 64+32+16+8 SMs, global batch fixed
#   weak     the same partitions, the batch growing with the devices
#   compile  PyTorch under torch.compile, last (its compile workers outlive
#            it and take host cores)
#   collective  the partitions (strong) with their gradients summed by the
#            ring instead of in place, and the whole GPU through NCCL (one
#            rank); with the updates overlapped with the reduction and not
# Both sides cycle two batches in pinned memory (--dataset 2), copied in
# every step. Logs and JSON in $OUT.
#   source scripts/device-env.sh; PARTS="whole torch strong" bash bench/train/run_gpu.sh
set -uo pipefail
source bench/gpu_build.sh

b=build/gpu/baton
model="--inputs 1024 --width 8192 --depth 4 --outputs 1024 --lr 1e-4 --dataset 2"
torch="bench/train/pytorch_mlp.py --batch 4096 --steps 20 --warmup 3 --lr 1e-4"
parts=" ${PARTS:-whole torch whole torch strong weak whole compile} "
n=0
whole() {
  n=$((n + 1))
  timeout 120 $b train -d cuda:0 $model -b 4096 -m 512 -s 20 --warmup 3 \
    --json-out "$out/train_whole_$n.json" >"$out/train_whole_$n.log" 2>&1
  grep -E "^cuda0 " "$out/train_whole_$n.log"
}
partitions() {  # scaling, batch, [name, policies, more options]
  local name=${3:-$1}
  timeout 240 $b train -d cuda:0/64+32+16+8 $model -b "$2" -m 64 -s 10 --warmup 2 \
    --scaling "$1" -p "${4:-static,weighted,ws,model}" ${5:-} --json-out "$out/train_$name.json" \
    >"$out/train_$name.log" 2>&1
  tail -14 "$out/train_$name.log"
}
for part in $parts; do
  case $part in
    whole) whole ;;
    torch) timeout 120 python3 $torch --modes eager 2>>"$out/pytorch.err" |
      tee -a "$out/pytorch.jsonl" ;;
    strong) partitions strong 4096 ;;
    weak) partitions weak 2048 ;;
    collective)  # each with its buckets' updates overlapped with the reduction, and not
      for o in "" --no-overlap; do
        partitions strong 4096 "ring$o" static,ws,model "--collective ring --counts 4 $o"
        timeout 120 $b train -d cuda:0 $model -b 4096 -m 512 -s 10 --warmup 3 --collective nccl \
          $o --json-out "$out/train_nccl$o.json" >"$out/train_nccl$o.log" 2>&1
        grep -E "^cuda0 |baton:" "$out/train_nccl$o.log"
      done ;;
    compile) timeout 200 python3 $torch --modes compile 2>>"$out/pytorch.err" |
      tee -a "$out/pytorch.jsonl" ;;
  esac
done
