#!/usr/bin/env bash
# mpirun -np 2 baton train: a job of two processes has the losses of one
# process training the same global batch; a resumed job of two processes goes
# on with the uninterrupted job's losses; a process whose devices all fail
# (or whose device spec is bad) names its rank and host and ends the job; a
# process killed mid-run is named by the launcher, and the survivor says how
# to resume.
#   train_mpi.sh BATON MPIRUN
set -euo pipefail
baton=$1
mpirun=("$2" --oversubscribe)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
job=(train -d cpu:1 --inputs 16 -w 32 --depth 1 --outputs 8 -b 128 -m 8 -p ws)
losses() { grep -o '"loss": [-0-9.e+]*' | cut -d' ' -f2; }
# Equal to 1e-5 of the loss: the processes sum their gradients in another order.
same() {
  paste "$1" "$2" | awk -v what="$3" '{ d = $1 - $2; if (d < 0) d = -d;
    if (d > 1e-5 * $2) { print what ": step " NR ": " $1 " vs " $2; bad = 1 } } END { exit bad }'
}

"$baton" "${job[@]}" -s 6 --checkpoint "$dir/one.ckpt" --json | losses >"$dir/one"
"${mpirun[@]}" -np 2 "$baton" "${job[@]}" -s 6 --json | losses >"$dir/two"
[ "$(wc -l <"$dir/two")" = 6 ] || { echo "two processes: expected 6 steps"; exit 1; }
same "$dir/two" "$dir/one" "two processes against one"

"${mpirun[@]}" -np 2 "$baton" "${job[@]}" -s 3 --checkpoint "$dir/job.ckpt" >/dev/null
"${mpirun[@]}" -np 2 "$baton" "${job[@]}" -s 6 --checkpoint "$dir/job.ckpt" --resume --json |
  losses >"$dir/resumed"
tail -3 "$dir/one" >"$dir/one_tail"
same "$dir/resumed" "$dir/one_tail" "resumed against uninterrupted"

# Rank 1's one device fails at its 3rd task: it names itself, and the job ends.
if "${mpirun[@]}" -np 1 "$baton" "${job[@]}" -s 50 : -np 1 -x BATON_FAULT=cpu0:after=3 \
  "$baton" "${job[@]}" -s 50 >/dev/null 2>"$dir/fault"; then
  echo "a job whose rank 1 failed succeeded"
  exit 1
fi
grep -q "baton: rank 1 (.*) failed: .*cpu0" "$dir/fault" || { cat "$dir/fault"; exit 1; }

# A bad device spec on rank 1 alone: it names itself and ends the job (rank 0
# would otherwise wait for it forever).
if timeout 60 "${mpirun[@]}" -np 1 "$baton" "${job[@]}" -s 5 : -np 1 "$baton" "${job[@]/cpu:1/cpu:0}" \
  -s 5 >/dev/null 2>"$dir/spec"; then
  echo "a job whose rank 1 had a bad device spec succeeded"
  exit 1
fi
grep -q "baton: rank 1 (.*) failed: bad device spec (cpu:0)" "$dir/spec" || { cat "$dir/spec"; exit 1; }

# Rank 1 killed mid-run: the launcher names it; rank 0 says how to resume.
"${mpirun[@]}" -np 2 "$baton" "${job[@]}" -s 100000 --checkpoint "$dir/long.ckpt" \
  --checkpoint-every 10 >"$dir/long" 2>"$dir/long.err" &
launcher=$!
for _ in $(seq 600); do
  grep -q "^step 30 " "$dir/long" 2>/dev/null && break
  sleep 0.05
done
for pid in $(pgrep -f "$dir/long.ckpt"); do
  if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then
    kill -9 "$pid"
  fi
done
if wait "$launcher"; then
  echo "a job whose rank 1 was killed succeeded"
  exit 1
fi
grep -q "rank 1 .* exited on signal 9" "$dir/long.err" || { cat "$dir/long.err"; exit 1; }
grep -q "baton: rank 0 (.*) stopped in step [0-9]*: another process .* --resume goes on" \
  "$dir/long.err" || { cat "$dir/long.err"; exit 1; }
saved=$(grep -o "the last checkpoint (step [0-9]*)" "$dir/long.err" | grep -o "[0-9]*")
"${mpirun[@]}" -np 2 "$baton" "${job[@]}" -s $((saved + 5)) --checkpoint "$dir/long.ckpt" \
  --resume | grep -q "^step $((saved + 5)) " || { echo "the killed job did not resume"; exit 1; }
echo "two processes train as one; resumed, failed and killed jobs behave"
