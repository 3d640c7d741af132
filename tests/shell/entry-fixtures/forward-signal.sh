#!/bin/sh
# Sends SIGNAL to `agent-guard run` (not to its child) once the child is ready, and reports what the
# child saw and what run exited with. usage: forward-signal.sh AGENT_GUARD OUTDIR SIGNAL
# The child traps the signal, writes it to OUTDIR/got and exits 3; run must pass the signal on and
# then exit with the child's status. Prints "status=<run's exit status>".
ag=$1 out=$2 sig=$3
"$ag" run -- sh -c '
  trap "echo $1 > \"$0/got\"; exit 3" "$1"
  : > "$0/ready"
  while :; do sleep 0.05; done
' "$out" "$sig" &
pid=$!
i=0
while [ ! -e "$out/ready" ]; do
  i=$((i + 1))
  if [ "$i" -gt 400 ]; then
    echo "child never got ready"
    kill -KILL "$pid"
    exit 99
  fi
  sleep 0.05
done
kill -s "$sig" "$pid"
wait "$pid"
echo "status=$?"
