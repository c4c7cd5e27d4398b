# Call 4: calibration over a part of a long range; the CPU beside the GPU over every shape.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
s=$(date +%s)
timeout 60 $b bench balance -d cpu,cuda:0 -p weighted,ws -i 4096 -b 8 -n 42000000 -r 5 \
  --json-out "$out/mix4096.json" > "$out/mix4096.log" 2>&1
echo "balance took $(($(date +%s) - s)) s"; grep -E "^(weighted|ws) |alone|oracle" "$out/mix4096.log" | cut -c1-150
timeout 200 $b bench sweep -d cpu,cuda:0 -p weighted,ws -i 1,64,4096,262144 -b 4,8,64 --ms 5,20 -r 3 \
  --max-gib 24 --json-out "$out/sweep_mix.json" > "$out/sweep_mix.log" 2>&1
tail -32 "$out/sweep_mix.log" | cut -c1-150
