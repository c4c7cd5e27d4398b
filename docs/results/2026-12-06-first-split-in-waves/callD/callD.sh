# Call D: the first split in waves with their steps, the excess beyond the items taken back from the slowest first.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
sweep() {  # name devices policies
  local t=$(date +%s)
  timeout 110 $b bench sweep -d $2 -p $3 -i 64,4096,262144 -b 8,64 --ms 5,20 -r 3 --max-gib 12 \
    --json-out "$out/$1.json" > "$out/$1.log" 2>&1
  echo "== $1 ($(($(date +%s) - t)) s)"
  tr '\r' '\n' < "$out/$1.log" | grep -E "^\[[0-9]+/.*items:" | sort -t/ -k1.2n -u | sed 's/ (sized.*//' | cut -c1-170
}
sweep mix cpu,cuda:0 weighted,ws
sweep p4 cuda:0/48+40+24+8 static,weighted,ws
timeout 40 $b bench balance -d cpu,cuda:0 -i 262144 -b 8 -n 285720 -p weighted,ws -r 3 --json-out $out/t_285720.json \
  --trace $out/t_285720.trace.json > $out/t_285720.log 2>&1
grep -E "^(weighted|ws) " $out/t_285720.log | cut -c1-150; gzip -f $out/t_285720.trace.json
sweep p2 cuda:0/80+40 static,weighted,ws
s=$(date +%s)
timeout 100 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== validation rc $? ($(($(date +%s) - s)) s)"
