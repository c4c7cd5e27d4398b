# Call 3: traces of weighted and ws at 16384 fma on 64+32+16+8; memory-bound runs of 20 ms at
# 4 and 64 B (buffers up to 40 GiB); the CPU beside the GPU at 4096 and 262144 fma.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
for n in 4194304 8388608; do
  timeout 60 $b bench balance -d cuda:0/64+32+16+8 -i 16384 -b 4 -n $n -p weighted,ws -r 5 \
    --trace "$out/trace_16k_$n.json" --json-out "$out/b16k_$n.json" > "$out/b16k_$n.log" 2>&1
  grep -E "^(weighted|ws) " "$out/b16k_$n.log" | cut -c1-170
done
timeout 150 $b bench sweep -d cuda:0/48+40+24+8 -p static,weighted,ws -i 1 -b 4,64 --ms 20 -r 3 \
  --max-gib 40 --json-out "$out/sweep_mem40.json" > "$out/sweep_mem40.log" 2>&1
tail -8 "$out/sweep_mem40.log"
timeout 190 $b bench sweep -d cpu,cuda:0 -p weighted,ws -i 4096,262144 -b 4,8,64 --ms 5,20 -r 3 \
  --max-gib 24 --json-out "$out/sweep_mix2.json" > "$out/sweep_mix2.log" 2>&1
tail -20 "$out/sweep_mix2.log"
