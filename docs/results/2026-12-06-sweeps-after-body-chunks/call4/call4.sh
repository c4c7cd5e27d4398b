# Call 4 (on call 3's machine, still warm): the two rows ws lost, traced.
source scripts/device-env.sh; b=build/gpu/baton
for a in "cpu,cuda:0 572105 mix" "cuda:0/48+40+24+8 276433 p4"; do
  set -- $a
  timeout 40 $b bench balance -d $1 -i 262144 -b 8 -n $2 -p weighted,ws -r 3 --json-out $OUT/t_$3.json \
    --trace $OUT/t_$3.trace.json > $OUT/t_$3.log 2>&1
  grep -E "^(weighted|ws) " $OUT/t_$3.log | cut -c1-150
  gzip $OUT/t_$3.trace.json
done
