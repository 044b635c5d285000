#!/usr/bin/env bash
# Builds target/cairn-maelstrom-node.jsa, the node's dynamic AppCDS archive (issue 22), at package time (pom.xml,
# execution "cds-archive"): runs the packaged launcher once under -XX:ArchiveClassesAtExit with a short training
# session (Maelstrom's init for a one-node cluster, then send, poll, commit_offsets, list_committed_offsets and an
# unknown request, each waiting for its reply), closes stdin (the node shuts down on EOF) and lets the JVM write
# the archive as it exits. The node's stderr stays in target/cds-training/ (its Raft directory, made there, goes).
#
#   train-cds-archive.sh <target dir> [budget seconds, default 90]
#
# Never fails the build: without bash, java or a working JVM dump it prints a warning, leaves no archive (the
# launcher then starts the node without one) and exits 0. Every wait is bounded by the budget; the node is the only
# process it signals, by its PID. The archive is written under a temporary name and renamed only after the node
# exited 0, so an interrupted dump never leaves a partial archive where the launcher looks.
set -uo pipefail

target="${1:?usage: train-cds-archive.sh <target dir> [budget seconds]}"
budget_s="${2:-90}"
launcher="$target/cairn-maelstrom-node"
jsa="$target/cairn-maelstrom-node.jsa"
partial="$jsa.partial"
work="$target/cds-training"
started=$SECONDS
deadline=$((started + budget_s))
# A write to a node that has died must fail the write, not end this script.
trap '' PIPE

# On stdout: the build log shows it (antrun logs the script's stdout), and the pom adds a warning of its own.
warn() {
  echo "cds-archive: $*; no archive (node log: $work/node.stderr)"
}

rm -f "$jsa" "$partial"
rm -rf "$work"
mkdir -p "$work" || { warn "cannot create $work"; exit 0; }
# The node's Raft directory goes whatever happens; its log stays.
trap 'rm -rf "$work"/cairn-maelstrom-* 2>/dev/null' EXIT
if [[ ! -x "$launcher" || ! -f "$target/cairn-maelstrom-node.jar" ]]; then
  warn "no launcher or jar in $target"
  exit 0
fi

# The launcher's own flags, so the archive matches a real run; no archive is read while one is written.
coproc NODE {
  CAIRN_MAELSTROM_CDS=off CAIRN_MAELSTROM_NODE_ARGS="" \
    CAIRN_MAELSTROM_JAVA_OPTS="-XX:ArchiveClassesAtExit=$partial -Djava.io.tmpdir=$work" \
    exec "$launcher" 2>"$work/node.stderr"
}
node_pid=$NODE_PID
node_in=${NODE[1]}
node_out=${NODE[0]}

# Waits for the node's reply to msg_id $1 on its stdout; fails at the deadline or when stdout closes.
await_reply() {
  local line left
  while true; do
    left=$((deadline - SECONDS))
    ((left > 0)) || return 1
    IFS= read -r -t "$left" -u "$node_out" line || return 1
    [[ "$line" == *"\"in_reply_to\":$1"[,}]* ]] && return 0
  done
}

# Sends one client request and waits for its reply.
request() {
  local id=$1 body=$2
  printf '{"src":"c1","dest":"n0","body":{"msg_id":%d,%s}}\n' "$id" "$body" >&"$node_in" || return 1
  await_reply "$id"
}

trained=true
printf '%s\n' '{"src":"c0","dest":"n0","body":{"type":"init","msg_id":1,"node_id":"n0","node_ids":["n0"]}}' \
  >&"$node_in" && await_reply 1 || trained=false
# Keys 1 and 2 fall on different partitions with the default two.
for step in \
    '2 "type":"send","key":"1","msg":1' \
    '3 "type":"send","key":"2","msg":2' \
    '4 "type":"send","key":"1","msg":3' \
    '5 "type":"poll","offsets":{"1":0,"2":0}' \
    '6 "type":"commit_offsets","offsets":{"1":1,"2":0}' \
    '7 "type":"list_committed_offsets","keys":["1","2","3"]' \
    '8 "type":"poll","offsets":{"1":1}' \
    '9 "type":"no_such_request"'; do
  $trained || break
  request "${step%% *}" "${step#* }" || trained=false
done

# EOF: the node closes Ratis and exits, and the JVM writes the archive on the way out.
exec {node_in}>&- 2>/dev/null
while kill -0 "$node_pid" 2>/dev/null && ((SECONDS < deadline)); do
  sleep 0.2
done
if kill -0 "$node_pid" 2>/dev/null; then
  kill -KILL "$node_pid" 2>/dev/null
  wait "$node_pid" 2>/dev/null
  rm -f "$partial"
  warn "the training run did not finish within ${budget_s} s; killed the node (pid $node_pid)"
  exit 0
fi
wait "$node_pid"
status=$?
if ! $trained; then
  rm -f "$partial"
  warn "the training session did not complete (node exit status $status)"
elif [[ $status -ne 0 || ! -s "$partial" ]]; then
  rm -f "$partial"
  warn "the JVM wrote no archive (exit status $status)"
else
  mv -f "$partial" "$jsa" && echo "cds-archive: $jsa ($(du -k "$jsa" | cut -f1) KB) in $((SECONDS - started)) s"
fi
exit 0
