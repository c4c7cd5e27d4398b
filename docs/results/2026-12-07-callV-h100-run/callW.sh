# Call W: call V's runs from host memory again at medians of 9 (the whole GPU and 64+32+16+8), with the link probed just before.
set -uo pipefail
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
source scripts/device-env.sh
export TESTS=0
source bench/gpu_build.sh
for split in cuda:0 cuda:0/64+32+16+8; do
  tag=${split//[:\/+,]/_}
  timeout 40 build/gpu/baton bench balance -d "$split" -i 1 -b 8 -n 1073741824 -p static,weighted,ws \
    --from-host -r 9 --json-out "$out/from_host_$tag.json" >"$out/from_host_$tag.log" 2>&1
  echo "== from host $split"; grep -E "^(static|weighted|ws) |from host" "$out/from_host_$tag.log" | cut -c1-150
done
