# Call G: the calibration's least part on 88+24+8's lost row (bench balance --json), and call F's
# 80+40 sweep twice more, to tell its three lost 5 ms rows from run-to-run spread.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
for s in 88+24+8 80+40; do
  timeout 60 $b bench balance -d cuda:0/$s -i 4096 -b 64 -n 2279466 -p weighted,ws -r 5 --json-out $out/row_${s//+/_}.json \
    > $out/row_${s//+/_}.log 2>&1
  python3 -c "import json; d=json.load(open('$out/row_${s//+/_}.json')); print('$s', [(x['name'], round(x['least_run_s']*1e6), round(x['busy_items'])) for x in d['devices']], [(r['policy'], round(r['makespan_s']*1e3, 3)) for r in d['runs']])"
done
sweep p2a cuda:0/80+40 static,weighted,ws
sweep p2b cuda:0/80+40 static,weighted,ws
