# Call K: 5c73b50 on the GPU: the 48+40+24+8 row ws lost in call J (9 runs, traced), the four splits' sweeps, the gpu tests.
set -uo pipefail
t0=$(date +%s)
left() { echo $(( ${LIMIT_S:-500} - ($(date +%s) - t0) )); }
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
row() {  # name split iters bytes items
  timeout 60 $b bench balance -d "cuda:0/$2" -p weighted,ws -i "$3" -b "$4" -n "$5" -r 9 \
    --json-out "$out/$1.json" --trace "$out/$1.trace.json" > "$out/$1.log" 2>&1
  echo "== $1"; grep -E "^(weighted|ws) " "$out/$1.log"
  gzip -f "$out/$1.trace.json"
}
row p4_heavy 48+40+24+8 262144 8 256834
row p3_row7 88+24+8 4096 64 2279466
sweep p4 cuda:0/48+40+24+8 static,weighted,ws
(cd build/gpu && ctest -j 4 -L gpu --output-on-failure --timeout 120) > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/tests.log" | tail -5
sweep p3 cuda:0/88+24+8 static,weighted,ws
sweep p2 cuda:0/80+40 static,weighted,ws
[ "$(left)" -gt 60 ] && sweep mix cpu,cuda:0 weighted,ws
