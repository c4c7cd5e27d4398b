# Call 2: the host link both ways through a partition at 64 and 256 MiB; runs from host memory
# with the cap measured at 256 MiB (best of 5); the sweeps of 80+40 and 48+40+24+8 at 5 and
# 20 ms, buffers up to 12 GiB (the memory-bound rows of 20 ms took 55 s each at 40 GiB).
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for mib in 64 256 64 256; do
  timeout 40 $b topo -d cuda:0/80+40 --probe --probe-mib $mib > "$out/topo_probe_80_40_$mib.log" 2>&1
  echo "probe 80+40 $mib MiB: $(grep -E "both ways" "$out/topo_probe_80_40_$mib.log" | head -1)"
done
for split in cuda:0/80+40 cuda:0/48+40+24+8; do
  tag=${split//[:\/+,]/_}
  timeout 60 $b bench balance -d "$split" -i 1 -b 8 -n 1073741824 -p static,weighted,ws \
    --from-host -r 3 --json-out "$out/from_host_$tag.json" > "$out/from_host_$tag.log" 2>&1
  echo "== $split from host"
  grep -E "^(static|weighted|ws) |from host:" "$out/from_host_$tag.log" | cut -c1-110
done
for split in cuda:0/80+40 cuda:0/48+40+24+8; do
  tag=${split//[:\/+,]/_}
  timeout 150 $b bench sweep -d "$split" -p static,weighted,ws -i 64,4096,262144 -b 4,8,64 \
    --ms 5,20 -r 3 --max-gib 12 --json-out "$out/sweep_$tag.json" > "$out/sweep_$tag.log" 2>&1
  echo "== sweep $split"
  tr '\r' '\n' < "$out/sweep_$tag.log" | grep -E "^\[[0-9]+/.*items:" | sort -u -t']' -k1,1 | cut -c1-200
  tail -3 "$out/sweep_$tag.log"
done
