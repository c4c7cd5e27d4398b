#!/bin/bash
# usage: run.sh BATON OUTDIR
B=$1; O=$2; mkdir -p $O
export BATON_SIM_EXECUTE=0 BATON_PERF_MODEL_FILE=
for s in none 0:3 2:3 5:2 7:4; do for f in 1024 4096 16384 65536; do
  sl=""; [ $s != none ] && sl="--slowdown $s"
  $B bench balance -d sim:dgx1 -i $f -n 4000000 -b 64 -p static,weighted,ws,ws-topo -r 3 --passes 8 $sl --json > $O/slow_${s/:/_}_$f.json 2>/dev/null
done; done
for f in 1 64 4096 16384 262144; do
  $B bench balance -d sim:8,4,2,1 -i $f -b 4 -p static,weighted,ws -r 3 --json > $O/s8421_$f.json 2>/dev/null
done
$B bench sweep -d sim:dgx1 -i 1,64,4096 -b 4,8,64 --ms 5,20 -r 1 --from-host -p static,weighted,ws,ws-topo --max-gib 4 --json > $O/dgx1_fh.json 2>/dev/null
