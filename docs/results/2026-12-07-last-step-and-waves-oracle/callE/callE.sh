# Call E: HEAD on the GPU: the 80+40 sweep, a trace of a light 80+40 row, the gpu tests; the CPU+GPU and 48+40+24+8 sweeps and the validation as time allows.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
sweep p2 cuda:0/80+40 static,weighted,ws
timeout 60 $b bench balance -d cuda:0/80+40 -i 64 -b 8 -n 750481613 -p weighted,ws -r 5 --json-out $out/light.json \
  --trace $out/light.trace.json > $out/light.log 2>&1
grep -E "^(weighted|ws) " $out/light.log | cut -c1-150; gzip -f $out/light.trace.json
# The gpu tests.
(cd build/gpu && ctest -j 4 -L gpu --output-on-failure --timeout 120) > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/tests.log" | tail -20
# As time allows: the CPU beside the GPU, the four-partition split, then the validation on HEAD.
sweep mix cpu,cuda:0 weighted,ws
sweep p4 cuda:0/48+40+24+8 static,weighted,ws
t=$(date +%s); TESTS=0 timeout 150 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
