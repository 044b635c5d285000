#!/usr/bin/env bash
# Runs Jepsen's real Maelstrom (kafka workload) against Cairn's Maelstrom node, in bounded time, and fails on any
# verdict other than valid, printing the anomalies. Uses the build of Maelstrom 0.2.4 in ../shared/tools/maelstrom
# (relative to the repository root); without it, says so and exits 0. Needs gnuplot-nox and graphviz (.ci/run
# installs them). Usage: .ci/maelstrom.sh [--broken]   (--broken runs a node that acknowledges sends before they
# commit, to show that the checker catches it; that run must fail)
# Besides Maelstrom's own partition nemesis, one short run kills -9 and restarts nodes and pauses them
# (maelstrom-node/faults/run-faults.sh, its fault-node.py as --bin; maelstrom-node/README "Fault runs").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
maelstrom="$root/../shared/tools/maelstrom/maelstrom"
if [ ! -x "$maelstrom" ]; then
  echo "maelstrom: skipped: $maelstrom is absent (Jepsen's Maelstrom 0.2.4 is provided beside the repository)"
  exit 0
fi
node="$root/maelstrom-node/target/cairn-maelstrom-node"
if [ ! -x "$node" ]; then
  mvn -B -ntp -q -pl protocol,broker,maelstrom-node -am package -DskipTests -DskipKafkaIT
fi
node_args=""
[ "${1:-}" = "--broken" ] && node_args="--unsafe-ack-before-commit"
run_limit_s=300              # one Maelstrom run, start-up and analysis included

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passed=0

# name, then Maelstrom's arguments
run() {
  local name=$1
  shift
  local dir="$work/$name"
  mkdir -p "$dir"
  local status=0
  (cd "$dir" && CAIRN_MAELSTROM_NODE_ARGS="$node_args ${extra_node_args:-}" timeout "$run_limit_s" \
    "$maelstrom" test -w kafka \
    --bin "$node" "$@" >"$dir/out.log" 2>&1) || status=$?
  local results="$dir/store/latest/results.edn"
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    echo "maelstrom: $name: valid ($(grep -o ':msgs-per-op [0-9.]*' "$dir/store/latest/results.edn" 2>/dev/null \
      | head -1 || true))"
    return
  fi
  failures=$((failures + 1))
  echo "maelstrom: $name: NOT valid (exit $status)" >&2
  if [ -f "$results" ]; then
    # The anomaly classes the kafka checker reports, e.g. :lost-write, :poll-skip, :nonmonotonic-poll.
    grep -oE ':(lost-write|unseen|poll-skip|int-poll-skip|nonmonotonic-poll|int-nonmonotonic-poll|nonmonotonic-send|int-send-skip|duplicate|inconsistent-offsets|G[0-9a-z-]*)[^,}]*' \
      "$results" | sort | uniq -c | head -20 >&2 || true
    grep -E ':valid\? (false|:unknown)' "$results" | head -10 >&2 || true
  fi
  tail -30 "$dir/out.log" >&2
}

run three-nodes-partitions --node-count 3 --concurrency 2n --time-limit 30 --rate 100 \
  --nemesis partition --nemesis-interval 5
run five-nodes-latency-partitions --node-count 5 --concurrency 2n --time-limit 30 --rate 100 \
  --latency 10 --nemesis partition --nemesis-interval 5
# The same node on Cairn's own Raft instead of Ratis (docs/multi-raft.md); its kill run is below.
extra_node_args="--raft cairn" run three-nodes-partitions-cairn-raft --node-count 3 --concurrency 2n \
  --time-limit 30 --rate 100 --nemesis partition --nemesis-interval 5
# Process faults Maelstrom has no nemesis for: kill -9 and restart on the kept storage, SIGSTOP/SIGCONT pauses.
fault_args=(--nodes 3 --faults kill,pause --time-limit 30 --rate 100 --seed 1)
if [ -n "$node_args" ]; then
  fault_args+=(--broken)
fi
for raft in ratis cairn; do
  if timeout "$run_limit_s" maelstrom-node/faults/run-faults.sh "${fault_args[@]}" --raft "$raft"; then
    passed=$((passed + 1))
    echo "maelstrom: three-nodes-kill-pause-$raft: valid"
  else
    failures=$((failures + 1))
    echo "maelstrom: three-nodes-kill-pause-$raft: NOT valid" >&2
  fi
done
echo "maelstrom: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
