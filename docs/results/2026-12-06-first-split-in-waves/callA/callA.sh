# Call A: the wave-aware first split (working tree) against main (gpu_call/main, 84f9f8a), side by side.
set -uo pipefail
source scripts/device-env.sh
export TESTS=gpu
source bench/gpu_build.sh
b=build/gpu/baton
s=$(date +%s)
{ cmake -S gpu_call/main -B build/gpu-main -G Ninja -DCMAKE_BUILD_TYPE=Release &&
  ninja -C build/gpu-main baton_cli; } > "$out/build_main.log" 2>&1 || { tail -30 "$out/build_main.log"; exit 1; }
echo "main built in $(($(date +%s) - s)) s"
m=build/gpu-main/baton
sweep() {  # name binary devices
  local t=$(date +%s)
  timeout 120 $2 bench sweep -d $3 -p weighted,ws -i 4096,262144 -b 8,64 --ms 5,20 -r 3 --max-gib 12 \
    --json-out "$out/$1.json" > "$out/$1.log" 2>&1
  echo "== $1 ($(($(date +%s) - t)) s)"
  tr '\r' '\n' < "$out/$1.log" | grep -E "^\[[0-9]+/.*items:" | sort -t/ -k1.2n -u | sed 's/ (sized.*//' | cut -c1-150
}
sweep mix_main $m cpu,cuda:0
sweep mix_new $b cpu,cuda:0
sweep mix_main2 $m cpu,cuda:0
sweep mix_new2 $b cpu,cuda:0
for bin in "$m main" "$b new"; do
  set -- $bin
  for n in 1237602 572105; do
    timeout 40 $1 bench balance -d cpu,cuda:0 -i 262144 -b 8 -n $n -p weighted,ws -r 3 --json-out $out/t_${2}_$n.json \
      --trace $out/t_${2}_$n.trace.json > $out/t_${2}_$n.log 2>&1
    echo "-- $2 $n"; grep -E "^(weighted|ws) " $out/t_${2}_$n.log | cut -c1-150
    gzip -f $out/t_${2}_$n.trace.json
  done
done
