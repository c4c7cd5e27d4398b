# Call 5 (1131d45): the CPU beside the GPU again, each sweep probe calibrated before it is timed.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
s=$(date +%s)
timeout 80 $b bench sweep -d cpu,cuda:0 -p weighted,ws -i 64,4096,262144 -b 8,64 --ms 5,20 \
  -r 3 --max-gib 12 --json-out "$out/sweep_mix.json" > "$out/sweep_mix.log" 2>&1
echo "== mix sweep ($(($(date +%s) - s)) s)"
tr '\r' '\n' < "$out/sweep_mix.log" | grep -E "^\[[0-9]+/.*items:" | sort -u | cut -c1-200
tail -3 "$out/sweep_mix.log"
