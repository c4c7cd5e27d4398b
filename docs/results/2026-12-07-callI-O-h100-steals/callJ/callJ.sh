# Call J: where a 5 ms run's 200 us beyond its kernels goes: the light 80+40 and 48+40+24+8 rows, 9 runs each, traced, with workers that sleep when idle (default) and with workers that spin through the run's gaps (BATON_IDLE_SPIN_US=100000).
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
row() {  # name split iters bytes items
  for spin in 50 100000; do
    BATON_IDLE_SPIN_US=$spin timeout 60 $b bench balance -d "cuda:0/$2" -p weighted,ws -i "$3" -b "$4" -n "$5" -r 9 \
      --json-out "$out/$1_spin$spin.json" --trace "$out/$1_spin$spin.trace.json" > "$out/$1_spin$spin.log" 2>&1
    echo "== $1 spin $spin"; grep -E "^(weighted|ws) " "$out/$1_spin$spin.log"
    gzip -f "$out/$1_spin$spin.trace.json"
  done
}
row p2_light 80+40 4096 64 2184272
row p2_stream 80+40 64 8 703342720
row p4_heavy 48+40+24+8 262144 8 256834
