# Sourced by short GPU calls after bench/gpu_build.sh: `sweep NAME DEVICES
# POLICIES` runs a small `baton bench sweep` (64 to 2^18 fma steps per item,
# 8 and 64 bytes, runs of 5 and 20 ms, about 35 to 50 s a split), keeps its
# log and JSON as $out/NAME.{log,json} and prints one line per row.
# BIN picks the baton binary (default build/gpu/baton), SWEEP_S the limit.
sweep() {
  : "${out:?source bench/gpu_build.sh first}"
  local t
  t=$(date +%s)
  timeout "${SWEEP_S:-110}" "${BIN:-build/gpu/baton}" bench sweep -d "$2" -p "$3" -i 64,4096,262144 \
    -b 8,64 --ms 5,20 -r 3 --max-gib 12 --json-out "$out/$1.json" >"$out/$1.log" 2>&1
  echo "== $1 ($(($(date +%s) - t)) s)"
  # The progress lines end in \r; each row's last line, in row order.
  tr '\r' '\n' <"$out/$1.log" | grep -E "^\[[0-9]+/.*items:" | sort -t/ -k1.2n -u |
    sed 's/ (sized.*//' | cut -c1-170
}
