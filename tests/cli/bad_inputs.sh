#!/usr/bin/env bash
# Runs each case of bad_inputs.txt through the baton CLI and fails on any not
# answered by a one-line "baton: ..." error naming what was wrong, with an
# exit status from 1 to 127 (no crash, no hang, no success).
#   bad_inputs.sh BATON_BINARY CASES_FILE
set -u
baton=$1
cases=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo 'not json' >"$dir/bad.json"
echo '{"nodes": [{"id": "a"}], "links": [{"a": "a", "b": "z", "kind": "pcie", "gbps": 1, "latency_us": 1}]}' >"$dir/link.json"
echo '{"nodes": [{"id": "a"}, {"id": "b"}], "links": [{"a": "a", "b": "b", "kind": "pcie", "gbps": -1, "latency_us": 1}]}' >"$dir/gbps.json"
echo '{"oracle_items_per_s": 1, "runs": [1]}' >"$dir/runs.json"
echo '{"pipeline_depth": 0, "devices": [{"id": "a", "speed": 1}]}' >"$dir/depth.json"
echo '{"devices": [{"id": "a", "speed": 1, "measured_as": "cuda0 | H200"}]}' >"$dir/measured.json"
echo '{"perf_models": "none.json", "devices": [{"id": "a", "speed": 1}]}' >"$dir/models.json"
echo '{"devices": [{"id": "a", "speed": 1, "parallel_items": 2.5}]}' >"$dir/lanes.json"
n=0
failed=0
while IFS= read -r line; do
  [[ -z $line || $line == \#* ]] && continue
  expect=${line%% | *}
  args=${line#* | }
  args=${args//@BAD_JSON@/$dir/bad.json}
  args=${args//@BAD_LINK@/$dir/link.json}
  args=${args//@BAD_GBPS@/$dir/gbps.json}
  args=${args//@BAD_DEPTH@/$dir/depth.json}
  args=${args//@BAD_MEASURED@/$dir/measured.json}
  args=${args//@BAD_MODELS@/$dir/models.json}
  args=${args//@BAD_LANES@/$dir/lanes.json}
  args=${args//@BAD_RUNS@/$dir/runs.json}
  read -ra words <<<"$args"
  envs=()
  while [[ ${words[0]} =~ ^[A-Z_]+= ]]; do
    envs+=("${words[0]}")
    words=("${words[@]:1}")
  done
  err=$(env "${envs[@]}" timeout 120 "$baton" "${words[@]}" 2>&1 >/dev/null)
  status=$?
  n=$((n + 1))
  lines=$(printf '%s\n' "$err" | wc -l)
  if ((status == 0 || status >= 124)) || [[ $lines != 1 || $err != "baton: "* || $err != *"$expect"* ]]; then
    failed=$((failed + 1))
    echo "FAIL (exit $status): baton $args"
    printf '%s\n' "$err" | sed 's/^/    /'
  else
    echo "ok (exit $status): baton $args -> $err"
  fi
done <"$cases"
echo "$n bad inputs, $((n - failed)) answered by a one-line error"
((failed == 0))
