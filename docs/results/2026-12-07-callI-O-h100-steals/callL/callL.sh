# Call L: 5c73b50 on the GPU: the 80+40 row of 4096 fma, 8 B, 5 ms that ws lost in calls F, I and K (9 runs, traced), then issue 11's validation.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
row() {  # name split iters bytes items
  timeout 60 $b bench balance -d "cuda:0/$2" -p weighted,ws -i "$3" -b "$4" -n "$5" -r 9 \
    --json-out "$out/$1.json" --trace "$out/$1.trace.json" > "$out/$1.log" 2>&1
  echo "== $1"; grep -E "^(weighted|ws) " "$out/$1.log"
  gzip -f "$out/$1.trace.json"
}
row p2_row5 80+40 4096 8 17436373
t=$(date +%s); TESTS=0 timeout 150 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
