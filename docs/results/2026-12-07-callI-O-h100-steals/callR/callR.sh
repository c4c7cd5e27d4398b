# Call R: a GPU's idle worker spins through gaps like its last (BATON_GAP_SPIN_US, 5 ms) against sleeping after 50 us (BATON_GAP_SPIN_US=0), A B A B on three 5 ms rows, 9 runs each, traced; then two sweeps and the gpu tests.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
row() {  # name split iters bytes items
  for pass in 1 2; do
    for gap in 0 5000; do
      BATON_GAP_SPIN_US=$gap timeout 60 $b bench balance -d "cuda:0/$2" -p weighted,ws -i "$3" -b "$4" -n "$5" -r 9 \
        --json-out "$out/$1_gap${gap}_$pass.json" --trace "$out/$1_gap${gap}_$pass.trace.json" > "$out/$1_gap${gap}_$pass.log" 2>&1
      echo "== $1 gap $gap pass $pass"; grep -E "^(weighted|ws) " "$out/$1_gap${gap}_$pass.log"
      gzip -f "$out/$1_gap${gap}_$pass.trace.json"
    done
  done
}
row p2_row5 80+40 4096 8 17436373
row p4_heavy 48+40+24+8 262144 8 256834
row p3_row7 88+24+8 4096 64 2279466
(cd build/gpu && ctest -j 4 -L gpu --output-on-failure --timeout 120) > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/tests.log" | tail -5
sweep p2 cuda:0/80+40 static,weighted,ws
sweep p4 cuda:0/48+40+24+8 static,weighted,ws
