# Call S: 7af93b2 (workers spin through gaps) on the GPU: 88+24+8 swept, then issue 11's validation.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
source bench/sweep/brief.sh
sweep p3 cuda:0/88+24+8 static,weighted,ws
t=$(date +%s); TESTS=0 timeout 150 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
