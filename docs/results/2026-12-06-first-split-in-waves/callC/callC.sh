# Call C: the first split in waves with their steps (working tree) against main (gpu_call/main, 84f9f8a).
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
sweep() {  # name binary devices policies
  local t=$(date +%s)
  timeout 110 $2 bench sweep -d $3 -p $4 -i 64,4096,262144 -b 8,64 --ms 5,20 -r 3 --max-gib 12 \
    --json-out "$out/$1.json" > "$out/$1.log" 2>&1
  echo "== $1 ($(($(date +%s) - t)) s)"
  tr '\r' '\n' < "$out/$1.log" | grep -E "^\[[0-9]+/.*items:" | sort -t/ -k1.2n -u | sed 's/ (sized.*//' | cut -c1-170
}
sweep p4_new $b cuda:0/48+40+24+8 static,weighted,ws
sweep p4_main $m cuda:0/48+40+24+8 static,weighted,ws
sweep p2_new $b cuda:0/80+40 static,weighted,ws
sweep mix_new $b cpu,cuda:0 weighted,ws
sweep mix_main $m cpu,cuda:0 weighted,ws
s=$(date +%s)
TESTS=0 timeout 100 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== validation rc $? ($(($(date +%s) - s)) s)"
