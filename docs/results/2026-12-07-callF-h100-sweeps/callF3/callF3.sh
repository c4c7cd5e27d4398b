# Call F3, on the same warm machine: F2's lost row (4096 fma, 64 B, 2279466 items on 88+24+8), twice, traced.
source scripts/device-env.sh; b=build/gpu/baton
for k in 1 2; do timeout 60 $b bench balance -d cuda:0/88+24+8 -i 4096 -b 64 -n 2279466 -p static,weighted,ws -r 5 \
  --json-out $OUT/row7_$k.json --trace $OUT/row7_$k.trace.json > $OUT/row7_$k.log 2>&1; done
