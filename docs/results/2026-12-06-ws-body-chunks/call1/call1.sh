# Call 1: the gpu tests; ws's chunks of up to 1 ms before the tail (BATON_BODY_CHUNK_US, 0 = as
# before) side by side in one binary: 16384 fma on 64+32+16+8, and the training; the split's
# sweep.
set -uo pipefail
source scripts/device-env.sh
export TESTS=gpu
source bench/gpu_build.sh
b=build/gpu/baton
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
n=4194304
for body in 0 1000 0 1000; do
  BATON_BODY_CHUNK_US=$body timeout 40 $b bench balance -d cuda:0/64+32+16+8 -i 16384 -b 4 -n $n \
    -p weighted,ws -r 5 --json-out "$out/b16k_${n}_$body.json" > "$out/b16k_${n}_$body.log" 2>&1
  echo "n=$n body=$body"; grep -E "^(weighted|ws) " "$out/b16k_${n}_$body.log" | cut -c1-120
done
timeout 40 $b bench balance -d cuda:0/64+32+16+8 -i 16384 -b 4 -n $n \
  -p weighted,ws -r 3 --trace "$out/trace_16k_1000.json" > /dev/null 2>&1
gzip "$out/trace_16k_1000.json"
for body in 0 1000; do
  BATON_BODY_CHUNK_US=$body timeout 50 $b train -d cuda:0/64+32+16+8 --inputs 1024 --width 8192 \
    --depth 4 --outputs 1024 --lr 1e-4 --dataset 2 -b 4096 -m 64 -s 10 --warmup 2 \
    --scaling strong -p weighted,ws > "$out/train_$body.log" 2>&1
  echo "train body=$body"; grep -E "^(cuda|[0-9]|devices)" "$out/train_$body.log" | cut -c1-150
done
timeout 110 $b bench sweep -d cuda:0/64+32+16+8 -p static,weighted,ws \
  -i 1,4096,16384,262144 -b 4,64 --ms 5,20 -r 3 --max-gib 40 \
  --json-out "$out/sweep_split.json" > "$out/sweep_split.log" 2>&1
tail -22 "$out/sweep_split.log"
