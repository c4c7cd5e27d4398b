#!/usr/bin/env bash
# One call on the GPU host for issue 9: build, the test suite, then
# `baton bench sweep` over several splits of the H200 into SM partitions and
# over the whole GPU (compute per item 1 to 2^18 fma steps, 4 to 64 bytes
# moved per item, runs of 5 to 200 ms), and transfer-bound runs from host
# memory (--from-host) beside the links' measured bandwidth (topo --probe).
# Tables and JSON land in $OUT.
#   source scripts/device-env.sh; bash bench/sweep/run_gpu.sh
# SPLITS="cuda:0/80+40" picks the splits (a split of four partitions took
# 7.4 minutes on 2026-12-05, so one split a call of the device tool), SWEEP_S
# the seconds each may take (default 480; 0 leaves the sweeps out), MS the
# lengths of run (default 5,20,200); TESTS=0 leaves the test suite out (for
# the calls after the first), FROM_HOST=0 the runs from host memory. Buffers
# grow up to MAX_GIB (default 40: memory-bound rows of 1 fma per item ran
# 22 ms at 4, 8 and 64 B on H100 partitions; at 12 GiB 4 to 17 ms, and an
# H200's HBM needs more). A split may be a mix: SPLITS="cpu,cuda:0".
set -uo pipefail
source bench/gpu_build.sh

b=build/gpu/baton
splits=${SPLITS:-cuda:0/64+32+16+8 cuda:0/48+40+24+8 cuda:0/80+40 cuda:0}
if [ "${FROM_HOST:-1}" != 0 ]; then
  timeout 60 $b topo --probe >"$out/topo_probe.log" 2>&1
  for split in $splits; do
    tag=${split//[:\/+,]/_}
    timeout 90 $b bench balance -d "$split" -i 1 -b 8 -n 1073741824 -p static,weighted,ws \
      --from-host -r 3 --json-out "$out/from_host_$tag.json" >"$out/from_host_$tag.log" 2>&1
    grep -E "^(static|weighted|ws) |from host" "$out/from_host_$tag.log" | cut -c1-130
  done
fi
[ "${SWEEP_S:-480}" = 0 ] && splits=""
for split in $splits; do
  tag=${split//[:\/+,]/_}
  timeout "${SWEEP_S:-480}" $b bench sweep -d "$split" -p static,weighted,ws,ws-topo \
    -i 1,64,4096,262144 -b 4,8,64 --ms "${MS:-5,20,200}" -r 3 --max-gib "${MAX_GIB:-40}" \
    --json-out "$out/sweep_$tag.json" >"$out/sweep_$tag.log" 2>&1
  tail -45 "$out/sweep_$tag.log"
done
