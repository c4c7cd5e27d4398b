# Call 2: a trace of ws from host memory on four partitions; the CPU beside the GPU over shapes;
# memory-bound runs of 20 ms with buffers up to 40 GiB.
set -uo pipefail
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
b=build/gpu/baton
timeout 60 $b bench balance -d cuda:0/48+40+24+8 -i 1 -b 8 -n 1073741824 -p static,ws --from-host -r 1 \
  --trace "$out/trace_fh4.json" --json-out "$out/fh4.json" > "$out/fh4.log" 2>&1
grep -E "^(static|ws) |from host" "$out/fh4.log" | cut -c1-160
timeout 200 $b bench sweep -d cpu,cuda:0 -p weighted,ws -i 1,64,4096,262144 -b 4,8,64 --ms 5,20 -r 3 \
  --max-gib 24 --json-out "$out/sweep_mix.json" > "$out/sweep_mix.log" 2>&1
tail -30 "$out/sweep_mix.log"
timeout 150 $b bench sweep -d cuda:0/48+40+24+8 -p static,weighted,ws -i 1 -b 4,8,64 --ms 20 -r 3 \
  --max-gib 40 --json-out "$out/sweep_mem40.json" > "$out/sweep_mem40.log" 2>&1
tail -12 "$out/sweep_mem40.log"
