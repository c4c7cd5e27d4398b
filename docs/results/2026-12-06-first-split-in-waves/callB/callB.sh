# Call B (call A's machine, warm): the splits of one GPU, main against the working tree; then the simulator's validation runs.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton m=build/gpu-main/baton
ninja -C build/gpu-main baton_cli > /dev/null 2>&1 || echo "main build failed"
sweep() {  # name binary devices
  local t=$(date +%s)
  timeout 110 $2 bench sweep -d $3 -p static,weighted,ws -i 64,4096,262144 -b 8,64 --ms 5,20 -r 3 --max-gib 12 \
    --json-out "$out/$1.json" > "$out/$1.log" 2>&1
  echo "== $1 ($(($(date +%s) - t)) s)"
  tr '\r' '\n' < "$out/$1.log" | grep -E "^\[[0-9]+/.*items:" | sort -t/ -k1.2n -u | sed 's/ (sized.*//' | cut -c1-170
}
sweep p2_main $m cuda:0/80+40
sweep p2_new $b cuda:0/80+40
sweep p4_main $m cuda:0/48+40+24+8
sweep p4_new $b cuda:0/48+40+24+8
s=$(date +%s)
TESTS=0 timeout 100 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== validation rc $? ($(($(date +%s) - s)) s)"
tail -3 "$out/val.log"
