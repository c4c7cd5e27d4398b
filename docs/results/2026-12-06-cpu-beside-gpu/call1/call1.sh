# Call 1: gpu tests; a CPU beside the GPU, new against old (static pieces, all threads).
set -uo pipefail
source scripts/device-env.sh
export TESTS=gpu
source bench/gpu_build.sh
b=build/gpu/baton
mkdir -p /tmp/old && tar --exclude=./build --exclude=./.deps -cf - . | (cd /tmp/old && tar xf -)
(cd /tmp/old && patch -s -R -p1 < gpu_call/new.patch && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && ninja -C build baton_cli >/dev/null) || echo "old build failed"
old=/tmp/old/build/baton
$b devices > "$out/devices.log" 2>&1; head -20 "$out/devices.log"
mix() { # tag binary extra-env shape-args
  local tag=$1 bin=$2 envs=$3; shift 3
  env $envs timeout 120 $bin bench balance -d cpu,cuda:0 -p weighted,ws -r 5 "$@" --json-out "$out/mix_$tag.json" > "$out/mix_$tag.log" 2>&1
  echo "== $tag: $*"; grep -E "^(weighted|ws) |oracle:|cpu0 " "$out/mix_$tag.log" | cut -c1-150
}
for round in 1 2; do
  mix new4096_$round $b "" -i 4096 -b 8 -n 42000000
  mix all4096_$round $b "BATON_CPU_THREADS=$(nproc)" -i 4096 -b 8 -n 42000000
  mix old4096_$round $old "" -i 4096 -b 8 -n 42000000
done
for round in 1 2; do
  mix new64_$round $b "" -i 64 -b 8 -n 800000000
  mix old64_$round $old "" -i 64 -b 8 -n 800000000
done
timeout 90 $b bench balance -d cuda:0/48+40+24+8 -i 1 -b 8 -n 1073741824 -p static,ws --from-host -r 1 \
  --trace "$out/trace_fh4.json" --json-out "$out/fh4.json" > "$out/fh4.log" 2>&1
grep -E "^(static|ws) |from host" "$out/fh4.log" | cut -c1-160
