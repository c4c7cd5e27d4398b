# Call F: the last-step fix (ws weighs a queued step at its size) on the GPU: 48+40+24+8 (lost a row in E), 80+40, a third split, gpu tests.
set -uo pipefail
t0=$(date +%s)
left() { echo $(( ${LIMIT_S:-500} - ($(date +%s) - t0) )); }
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
sweep p4 cuda:0/48+40+24+8 static,weighted,ws
(cd build/gpu && ctest -j 4 -L gpu --output-on-failure --timeout 120) > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/tests.log" | tail -5
sweep p2 cuda:0/80+40 static,weighted,ws
# The light 80+40 row's tail: ws as it is, and with a finer chunk floor.
for us in 200 50; do
  BATON_MIN_CHUNK_US=$us timeout 60 $b bench balance -d cuda:0/80+40 -i 64 -b 8 -n 750481613 -p weighted,ws -r 5 \
    --json-out $out/light_floor$us.json > $out/light_floor$us.log 2>&1
  echo "== floor $us us"; grep -E "^(weighted|ws) " $out/light_floor$us.log | cut -c1-150
done
[ "$(left)" -gt 70 ] && sweep p3 cuda:0/96+24+8 static,weighted,ws
[ "$(left)" -gt 160 ] || exit 0
t=$(date +%s); TESTS=0 timeout 150 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
