# Call 1 (b674b02): the gpu tests; runs from host memory on three splits; the sweeps of 80+40
# and 48+40+24+8 at runs of 5 and 20 ms, with ws's 1 ms body chunks and the faster sizing.
set -uo pipefail
source scripts/device-env.sh
export TESTS=gpu
source bench/gpu_build.sh
b=build/gpu/baton
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 40 $b topo --probe > "$out/topo_probe.log" 2>&1; grep -E "GB/s" "$out/topo_probe.log" | head -4
for split in cuda:0 cuda:0/80+40 cuda:0/48+40+24+8; do
  tag=${split//[:\/+,]/_}
  s=$(date +%s)
  timeout 60 $b bench balance -d "$split" -i 1 -b 8 -n 1073741824 -p static,weighted,ws \
    --from-host -r 3 --json-out "$out/from_host_$tag.json" > "$out/from_host_$tag.log" 2>&1
  echo "== $split from host ($(($(date +%s) - s)) s)"
  grep -E "^(static|weighted|ws) |from host|oracle" "$out/from_host_$tag.log" | cut -c1-140
done
for split in cuda:0/80+40 cuda:0/48+40+24+8; do
  tag=${split//[:\/+,]/_}
  timeout 135 $b bench sweep -d "$split" -p static,weighted,ws -i 1,64,4096,262144 -b 4,8,64 \
    --ms 5,20 -r 3 --max-gib 40 --json-out "$out/sweep_$tag.json" > "$out/sweep_$tag.log" 2>&1
  echo "== sweep $split"
  tr '\r' '\n' < "$out/sweep_$tag.log" | grep -E "^\[[0-9]+/" | cut -c1-230
  tail -4 "$out/sweep_$tag.log"
done
