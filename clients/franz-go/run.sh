#!/usr/bin/env bash
# Runs franz-go's own kgo integration tests (pkg/kgo, KGO_SEEDS) against Cairn brokers this script starts on
# loopback, and prints "N passed, N failed, N skipped". Usage: clients/franz-go/run.sh [--brokers 1|3]
# Needs Go (franz-go's source comes through the Go module proxy; nothing of it is kept in this repository), a JDK and
# Maven. The tests in skip.txt are left out, each with its reason; tests franz-go skips itself are listed as skipped.
# FRANZ_GO_RUN=regexp runs only the matching tests (go test -run), e.g. FRANZ_GO_RUN='^TestGroupETL$'.
# FRANZ_GO_LOGS=dir keeps the brokers' logs and go test's output there; FRANZ_GO_LOG_LEVEL=info|debug turns on
# franz-go's own client log in that output (none by default). FRANZ_GO_BROKER_SETTINGS="k=v k=v" adds broker
# settings, e.g. FRANZ_GO_BROKER_SETTINGS=raft.engine=ratis runs the partitions on Apache Ratis (the default is
# Cairn's own engine).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
brokers=1
[ "${1:-}" = "--brokers" ] && brokers=${2:?--brokers needs 1 or 3}
[ "$brokers" = 1 ] || [ "$brokers" = 3 ] || { echo "franz-go: --brokers must be 1 or 3" >&2; exit 2; }
version=v1.22.3                      # the franz-go release whose tests are run
test_timeout=${FRANZ_GO_TEST_TIMEOUT:-20m}
run_filter=${FRANZ_GO_RUN:-.}
start_wait_s=120                     # how long a broker may take to start
stop_wait_s=60                       # how long a stopped broker may take to exit before it is killed

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # The last broker of a cluster to stop can stall in elections among closing brokers (issue 18): bounded, then
  # SIGKILL, so no broker outlives the script.
  for _ in $(seq 1 $((stop_wait_s * 5))); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${FRANZ_GO_LOGS:-}" ]; then
    mkdir -p "$FRANZ_GO_LOGS" && cp "$work"/*.log "$FRANZ_GO_LOGS"/ 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -f broker/target/cairn-broker.jar ]; then
  mvn -B -ntp -q -pl broker -am package -DskipTests -DskipKafkaIT
fi
# A copy, so that a rebuild while the tests run cannot change the brokers' classes under them.
jar="$work/cairn-broker.jar"
cp broker/target/cairn-broker.jar "$jar"

module_dir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/twmb/franz-go@$version" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r "$module_dir" "$work/franz-go"
chmod -R u+w "$work/franz-go"

# Raft ports must be known before start: pick free ones below the kernel's ephemeral range.
free_ports() {
  python3 - "$1" <<'PY'
import os, socket, sys
count, port, found = int(sys.argv[1]), 20000 + (os.getpid() * 97) % 12000, []
while len(found) < count:
    port = 20000 + (port - 20000 + 1) % 12000
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); found.append(port)
    except OSError:
        pass
    finally:
        s.close()
print(" ".join(map(str, found)))
PY
}
read -r -a raft_ports <<< "$(free_ports "$brokers")"
voters=""
for i in $(seq 1 "$brokers"); do
  voters="${voters:+$voters,}$i@127.0.0.1:${raft_ports[$((i - 1))]}"
done
extra=()
for setting in ${FRANZ_GO_BROKER_SETTINGS:-}; do
  extra+=(--set "$setting")
done
seeds=""
for i in $(seq 1 "$brokers"); do
  log="$work/broker-$i.log"
  java -jar "$jar" start "${extra[@]}" --set node.id="$i" --set listeners=127.0.0.1:0 \
    --set raft.listener="127.0.0.1:${raft_ports[$((i - 1))]}" --set raft.voters="$voters" \
    --set log.dirs="$work/data-$i" --set default.replication.factor="$brokers" >"$log" 2>&1 &
  pids+=("$!")
done
for i in $(seq 1 "$brokers"); do
  log="$work/broker-$i.log"
  for _ in $(seq 1 $((start_wait_s * 5))); do
    grep -q "started: node.id" "$log" && break
    sleep 0.2
  done
  port=$(grep -oE "Kafka on ([A-Z0-9_]+://)?127\.0\.0\.1:[0-9]+" "$log" | head -1 | sed 's/.*://') \
    || { echo "franz-go: broker $i did not start:" >&2; tail -20 "$log" >&2; exit 1; }
  seeds="${seeds:+$seeds,}127.0.0.1:$port"
done
echo "franz-go $version kgo tests against $brokers Cairn broker(s) at $seeds${FRANZ_GO_BROKER_SETTINGS:+ (with $FRANZ_GO_BROKER_SETTINGS)}"

skip=$(grep -v '^#' clients/franz-go/skip.txt | cut -f1 | grep . | paste -sd'|')
status=0
(cd "$work/franz-go" && KGO_SEEDS="$seeds" KGO_TEST_RF="$brokers" KGO_LOG_LEVEL="${FRANZ_GO_LOG_LEVEL:-none}" \
  go test -count=1 -v -timeout "$test_timeout" -run "$run_filter" -skip "^($skip)\$" ./pkg/kgo) >"$work/go-test.log" 2>&1 || status=$?

passed=$(grep -c '^--- PASS' "$work/go-test.log" || true)
failed=$(grep -c '^--- FAIL' "$work/go-test.log" || true)
skipped=$(grep -c '^--- SKIP' "$work/go-test.log" || true)
grep '^--- SKIP' "$work/go-test.log" | sed 's/^/franz-go: /' || true
if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
  grep -B30 '^--- FAIL' "$work/go-test.log" | grep -v '^=== \|deleting topic\|deleting group' | tail -80 >&2 || true
  tail -20 "$work/go-test.log" >&2
  for i in $(seq 1 "$brokers"); do echo "--- broker $i log (tail)" >&2; tail -30 "$work/broker-$i.log" >&2; done
fi
echo "franz-go: $(grep -vc '^#' clients/franz-go/skip.txt) tests left out by skip.txt"
echo "franz-go: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
