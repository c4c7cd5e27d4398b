# Call M: 5c73b50 (+ record_h200.sh's medians of 9) on the GPU: two splits not swept before (72+32+16, 60+60), then issue 11's validation.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
source bench/sweep/brief.sh
sweep q3 cuda:0/72+32+16 static,weighted,ws
sweep q2 cuda:0/64+64 static,weighted,ws
t=$(date +%s); TESTS=0 timeout 200 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
