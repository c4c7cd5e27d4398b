#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time, starting from its corpus in
# the repository (read only: inputs it finds new go to a scratch folder).
#   fuzz/run.sh FUZZER CORPUS_DIR SECONDS [DICT]
# Fails on a crash, a hang (-timeout), a leak or a sanitizer report.
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3 dict=${4:-}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096
      -close_fd_mask=3 -print_final_stats=1)
[ -n "$dict" ] && args+=(-dict="$dict")
"$fuzzer" "${args[@]}" "$scratch" "$corpus"
