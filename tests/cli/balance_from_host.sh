#!/usr/bin/env bash
# bench balance --from-host: each run starts from inputs the host just wrote
# and ends with its results in host memory, so a transfer-bound shape is
# bound by the host links. On the DGX-1 preset (eight PCIe Gen3 links of
# 12 GB/s as copies reach), every policy must move the data at >= 90 % of
# the links' bandwidth in both directions: copies in, kernels and copies home
# overlap. On cpu devices (host memory) the results are still checked.
#   balance_from_host.sh BATON
set -euo pipefail
baton=$1
json=$(BATON_SIM_EXECUTE=0 "$baton" bench balance -d sim:dgx1 -i 1 -n 128000000 -b 8 \
  -p static,ws,ws-topo --from-host --json | tr -d '\n ')
link=$(grep -o '"host_link_gbps":[0-9.e+]*' <<<"$json" | cut -d: -f2)
[ -n "$link" ] || { echo "no host_link_gbps in the JSON"; exit 1; }
both=$(grep -o '"host_link_both_ways_gbps":[0-9.e+]*' <<<"$json" | cut -d: -f2)
awk -v b="$both" -v l="$link" 'BEGIN { exit !(b > 0.9 * l && b <= l) }' ||
  { echo "the links measured both ways at once: '$both' GB/s, against $link one way"; exit 1; }
runs=$(grep -o '"gbps_in":[0-9.e+-]*,"gbps_out":[0-9.e+-]*' <<<"$json")
[ "$(wc -l <<<"$runs")" = 3 ] || { echo "expected GB/s in and out for 3 runs: $runs"; exit 1; }
awk -F'[:,]' -v link="$link" '
  { printf "in %.2f GB/s, out %.2f GB/s of %.1f\n", $2, $4, link
    if (!($2 >= 0.9 * link && $4 >= 0.9 * link)) bad = 1 }
  END { exit bad }' <<<"$runs" || { echo "a run moved data below 90 % of the host links"; exit 1; }
"$baton" bench balance -d cpu:2x1 -n 300000 -i 16 -b 16 -p static,ws --from-host |
  grep -q "results checked" || { echo "cpu devices: the results were not checked"; exit 1; }
