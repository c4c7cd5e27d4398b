#!/usr/bin/env bash
# baton train --checkpoint: a job stopped after 3 steps and resumed to 5 has
# the losses of a job run to 5 in one go; the bad uses are one-line errors.
#   train_resume.sh BATON
set -euo pipefail
baton=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
job=(train -d cpu:2x1 --inputs 16 -w 32 --depth 1 --outputs 8 -b 64 -m 8 -p static --json)
losses() { grep -o '"loss": [-0-9.e+]*' | cut -d' ' -f2; }
"$baton" "${job[@]}" -s 5 --checkpoint "$dir/whole.ckpt" | losses >"$dir/whole"
"$baton" "${job[@]}" -s 3 --checkpoint "$dir/job.ckpt" >/dev/null
"$baton" "${job[@]}" -s 5 --checkpoint "$dir/job.ckpt" --resume | losses >"$dir/resumed"
[ "$(wc -l <"$dir/resumed")" = 2 ] || { echo "resumed: expected 2 steps"; exit 1; }
tail -2 "$dir/whole" | diff - "$dir/resumed" || { echo "resumed losses differ"; exit 1; }
# An existing checkpoint is not overwritten without --resume; --resume needs one.
for bad in "--checkpoint $dir/job.ckpt" "--checkpoint $dir/none.ckpt --resume" "--resume"; do
  # shellcheck disable=SC2086
  if err=$("$baton" "${job[@]}" -s 5 $bad 2>&1 >/dev/null); then
    echo "accepted: $bad"
    exit 1
  fi
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || { echo "not one line: $err"; exit 1; }
  echo "refused: $bad: $err"
done
echo "resumed losses equal the uninterrupted job's"
