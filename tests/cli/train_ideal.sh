#!/usr/bin/env bash
# baton train's perfect split ("vs ideal") takes the devices' rates side by
# side from the weighted run of the same devices where there is one (every
# device busy until its share is done), else from static's.
#   train_ideal.sh BATON
set -euo pipefail
baton=$1
sources() {  # the policies the runs of two devices took their rates from, in order
  "$baton" train -d sim:4,1 --inputs 16 -w 32 --depth 1 --outputs 8 -b 64 -m 8 -s 2 --warmup 1 \
    -p "$1" --json | tr -d '\n ' | grep -o '"device_count":2,[^}]*"ideal_rates_from":"[a-z-]*"' |
    grep -o '"ideal_rates_from":"[a-z-]*"' | cut -d'"' -f4 | tr '\n' ' '
}
with=$(sources static,weighted,ws)
[ "$with" = "weighted weighted weighted " ] ||
  { echo "with weighted run: rates from '$with', expected weighted for each run"; exit 1; }
without=$(sources static,ws)
[ "$without" = "static static " ] ||
  { echo "without weighted: rates from '$without', expected static for each run"; exit 1; }
echo "rates side by side from: '$with' (weighted ran), '$without' (it did not)"
