# Call O: 5c73b50 on the GPU: the 56+56+8 row ws lost in call N (9 runs, traced), and the equal split 56+56.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
timeout 60 $b bench balance -d cuda:0/56+56+8 -p weighted,ws -i 262144 -b 8 -n 255713 -r 9 \
  --json-out "$out/q4_row9.json" --trace "$out/q4_row9.trace.json" > "$out/q4_row9.log" 2>&1
echo "== q4_row9"; grep -E "^(weighted|ws) " "$out/q4_row9.log"; gzip -f "$out/q4_row9.trace.json"
sweep q2 cuda:0/56+56 static,weighted,ws
