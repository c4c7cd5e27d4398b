# Call 2: the training side by side again (BATON_BODY_CHUNK_US 0 = as before, and 1000, twice
# each); the compute-bound rows of the split's sweep, then memory-bound rows with 12 GiB buffers.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
# The logs are kept as train_runN_bodyB.log, in the order they ran.
for body in 1000 0 1000 0; do
  BATON_BODY_CHUNK_US=$body timeout 45 $b train -d cuda:0/64+32+16+8 --inputs 1024 --width 8192 \
    --depth 4 --outputs 1024 --lr 1e-4 --dataset 2 -b 4096 -m 64 -s 10 --warmup 2 \
    --scaling strong -p weighted,ws > "$out/train_${body}_$RANDOM.log" 2>&1
  echo "train body=$body"; ls -t "$out"/train_* | head -1 | xargs grep -E "^[0-9] " | cut -c1-100
done
timeout 110 $b bench sweep -d cuda:0/64+32+16+8 -p static,weighted,ws \
  -i 4096,16384,262144 -b 4,64 --ms 5,20 -r 3 --max-gib 12 \
  --json-out "$out/sweep_compute.json" > "$out/sweep_compute.log" 2>&1
tail -16 "$out/sweep_compute.log" | cut -c1-200
timeout 50 $b bench sweep -d cuda:0/64+32+16+8 -p static,weighted,ws \
  -i 1,64 -b 4,64 --ms 5 -r 3 --max-gib 12 \
  --json-out "$out/sweep_memory.json" > "$out/sweep_memory.log" 2>&1
tail -8 "$out/sweep_memory.log" | cut -c1-200
