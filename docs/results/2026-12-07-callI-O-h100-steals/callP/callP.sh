# Call P: 5c73b50 on the GPU: the 56+56 row ws lost in call O's sweep, 9 runs.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
timeout 60 $b bench balance -d cuda:0/56+56 -p static,weighted,ws -i 4096 -b 64 -n 2153920 -r 9 \
  --json-out "$out/q2_row7.json" > "$out/q2_row7.log" 2>&1
echo "== q2_row7"; grep -E "^(static|weighted|ws) " "$out/q2_row7.log"
