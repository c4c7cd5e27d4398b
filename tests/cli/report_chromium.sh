#!/usr/bin/env bash
# --report DIR: the HTML pages of a bench balance run, a training comparison
# and a training job each load in headless Chromium with no console message,
# and hold their pictures: the shares, the timeline and utilisation (and, for
# training, loss and throughput by step), each with marks drawn in it.
#   report_chromium.sh BATON
set -euo pipefail
baton=$1
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "no chromium: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
check() {  # check NAME SVGS: the page in $dir/NAME loads clean with SVGS pictures
  local page="$dir/$1/index.html"
  [ -s "$dir/$1/trace.json" ] || { echo "$1: no trace.json beside the page"; exit 1; }
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --user-data-dir="$dir/profile" --dump-dom "file://$page" >"$dir/$1.dom" 2>"$dir/$1.log"
  if grep -E "CONSOLE|Uncaught|Failed to load" "$dir/$1.log"; then
    echo "$1: the page logged the messages above"
    exit 1
  fi
  local svgs
  svgs=$(grep -o "<svg " "$dir/$1.dom" | wc -l)
  [ "$svgs" -ge "$2" ] || { echo "$1: $svgs pictures, expected $2"; exit 1; }
  # Every picture draws something: bars and spans (rect) or lines (path).
  local empty
  empty=$(sed 's#</svg>#</svg>\n#g' "$dir/$1.dom" | grep "<svg " | grep -cvE "<rect|<path" || true)
  [ "$empty" = 0 ] || { echo "$1: $empty empty pictures"; exit 1; }
  echo "$1: $svgs pictures, no console message"
}
"$baton" bench balance -d sim:4,2,1 -n 200000 --slowdown 0:4 --report "$dir/balance" >/dev/null
check balance 3
grep -q "Each device's share of the work" "$dir/balance.dom"
grep -q ">ws-topo<" "$dir/balance.dom" || { echo "balance: no ws-topo row"; exit 1; }
"$baton" train -d sim:4,1 --inputs 16 -w 32 --depth 1 --outputs 8 -b 64 -m 8 -s 3 -p static,ws \
  --report "$dir/train" >/dev/null 2>&1
check train 5
grep -q "Training by step" "$dir/train.dom"
"$baton" train -d sim:4,1 --inputs 16 -w 32 --depth 1 --outputs 8 -b 64 -m 8 -s 3 \
  --checkpoint "$dir/job.ckpt" --report "$dir/job" >/dev/null
check job 4
