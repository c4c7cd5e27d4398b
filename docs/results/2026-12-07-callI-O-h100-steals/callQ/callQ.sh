# Call Q: chunk spans now carry when the host issued them: where does a run's start delay go (host or device)? Call L's 80+40 row, 9 runs, traced, sleeping and spinning workers.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
for spin in 50 100000; do
  BATON_IDLE_SPIN_US=$spin timeout 60 $b bench balance -d cuda:0/80+40 -p weighted,ws -i 4096 -b 8 -n 17436373 -r 9 \
    --json-out "$out/row5_spin$spin.json" --trace "$out/row5_spin$spin.trace.json" > "$out/row5_spin$spin.log" 2>&1
  echo "== spin $spin"; grep -E "^(weighted|ws) " "$out/row5_spin$spin.log"
  gzip -f "$out/row5_spin$spin.trace.json"
done
