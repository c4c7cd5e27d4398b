# Call 3 (7134f07): issue 11's validation runs again with the current ws (bench/sim/record_h200.sh, its
# default splits and cases), then the CPU beside the GPU over the shapes not yet run, in what
# time is left (MIX_S seconds).
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
s=$(date +%s)
(timeout 230 bash bench/sim/record_h200.sh) > "$out/record.log" 2>&1
echo "== record ($(($(date +%s) - s)) s)"
grep -v "^\[" "$out/record.log" | tail -45 | cut -c1-120
[ "${MIX_S:-0}" -gt 0 ] || exit 0
s=$(date +%s)
timeout "$MIX_S" $b bench sweep -d cpu,cuda:0 -p weighted,ws -i 64,4096,262144 -b 8,64 --ms 5,20 \
  -r 3 --max-gib 12 --json-out "$out/sweep_mix.json" > "$out/sweep_mix.log" 2>&1
echo "== mix sweep ($(($(date +%s) - s)) s)"
tr '\r' '\n' < "$out/sweep_mix.log" | grep -E "^\[[0-9]+/.*items:" | sort -u | cut -c1-200
tail -3 "$out/sweep_mix.log"
