# Call I: e1dccd2 on the GPU (an H200 where lent): 88+24+8 first (the row ws lost, traced), the gpu tests, the other splits, the validation.
set -uo pipefail
t0=$(date +%s)
left() { echo $(( ${LIMIT_S:-500} - ($(date +%s) - t0) )); }
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
sweep p3 cuda:0/88+24+8 static,weighted,ws
t=$(date +%s)
timeout 60 $b bench balance -d cuda:0/88+24+8 -p weighted,ws -i 4096 -b 64 -n 2279466 -r 5 --json --json-out "$out/row7.json" --trace "$out/row7.trace.json" > /dev/null 2> "$out/row7.err"
gzip -f "$out/row7.trace.json"
python3 -c "
import json;d=json.load(open('$out/row7.json'))
for p in d['policies'] if 'policies' in d else d['runs']: print(p.get('policy'), p.get('makespan_s'), p.get('efficiency'))" 2>&1 | head -5
echo "== row7 ($(($(date +%s) - t)) s)"
(cd build/gpu && ctest -j 4 -L gpu --output-on-failure --timeout 120) > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/tests.log" | tail -5
sweep p4 cuda:0/48+40+24+8 static,weighted,ws
sweep p2 cuda:0/80+40 static,weighted,ws
[ "$(left)" -gt 60 ] && sweep mix cpu,cuda:0 weighted,ws
[ "$(left)" -gt 160 ] || exit 0
t=$(date +%s); TESTS=0 timeout 150 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
