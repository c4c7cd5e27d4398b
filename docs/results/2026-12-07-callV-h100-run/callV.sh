# Call V: issues 9 and 11's run at 076096d on the card the device tool lends (an H200 or, in its place, an H100): the gpu tests, the 64+32+16+8 sweep, the validation; then, while LIMIT_S (default 560 s) leaves time, the CPU beside the GPU, runs from host memory and three more splits' sweeps.
set -uo pipefail
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "card: $name"
case "$name" in *H200* | *H100*) ;; *) echo "neither an H200 nor an H100: nothing run"; exit 3 ;; esac
t0=$(date +%s)
left() { echo $(( ${LIMIT_S:-560} - ($(date +%s) - t0) )); }
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
source bench/sweep/brief.sh
(cd build/gpu && ctest -j 4 -L gpu --output-on-failure --timeout 120) > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|\*\*\*|Skipped" "$out/tests.log" | tail -5
sweep p4 cuda:0/64+32+16+8 static,weighted,ws
t=$(date +%s); TESTS=0 timeout 200 bash bench/sim/record_h200.sh > "$out/val.log" 2>&1; echo "== val ($(($(date +%s) - t)) s)"
[ "$(left)" -gt 60 ] && sweep mix cpu,cuda:0 weighted,ws
# Transfer-bound runs from host memory beside the link as measured (issue 9, item 5).
[ "$(left)" -gt 40 ] && timeout 30 build/gpu/baton topo --probe >"$out/topo_probe.log" 2>&1
for split in cuda:0 cuda:0/64+32+16+8; do
  [ "$(left)" -gt 40 ] || break
  tag=${split//[:\/+,]/_}
  timeout 60 build/gpu/baton bench balance -d "$split" -i 1 -b 8 -n 1073741824 -p static,weighted,ws \
    --from-host -r 3 --json-out "$out/from_host_$tag.json" >"$out/from_host_$tag.log" 2>&1
  echo "== from host $split"; grep -E "^(static|weighted|ws) |from host" "$out/from_host_$tag.log" | cut -c1-150
done
[ "$(left)" -gt 60 ] && sweep p3 cuda:0/88+24+8 static,weighted,ws
[ "$(left)" -gt 60 ] && sweep p2 cuda:0/80+40 static,weighted,ws
[ "$(left)" -gt 60 ] && sweep q4 cuda:0/48+40+24+8 static,weighted,ws
echo "left $(left) s"
