#!/usr/bin/env bash
# baton train over devices that share the host's cores (cpu:2x1): they train
# side by side once, and the runs of several devices keep them only where
# that beat the faster alone; the JSON says which, with both figures.
#   train_sharing.sh BATON
set -euo pipefail
baton=$1
out=$("$baton" train -d cpu:2x1 --inputs 16 -w 32 --depth 1 --outputs 8 -b 64 -m 8 -s 2 \
  -p static,ws --json)
group=$(printf '%s' "$out" | tr -d '\n ' | grep -o '"sharing":\[{[^]]*}\]') ||
  { echo "no sharing group for cpu0+cpu1"; exit 1; }
printf '%s\n' "$group"
num() { printf '%s' "$group" | grep -o "\"$1\":[-0-9.e+]*" | cut -d: -f2; }
together=$(num together_samples_per_s)
best=$(num best_alone_samples_per_s)
slower=$(awk -v t="$together" -v b="$best" 'BEGIN { print (t < b) ? "true" : "false" }')
printf '%s' "$group" | grep -q "\"alone_wins\":$slower" ||
  { echo "alone_wins is not ($together < $best)"; exit 1; }
pairs=$(printf '%s' "$out" | grep -c '"device_count": 2' || true)
if [ "$slower" = true ]; then
  [ "$pairs" = 0 ] || { echo "cpu1 left out, yet $pairs runs of 2 devices"; exit 1; }
else
  [ "$pairs" -ge 2 ] || { echo "side by side won, yet $pairs runs of 2 devices"; exit 1; }
fi
echo "side by side $together samples/s, the faster alone $best: runs of 2 devices: $pairs"
