#!/usr/bin/env bash
# What idle partitions cost, Cairn beside Apache Kafka 4.4 on this machine, one broker each (replication factor 1),
# started one at a time so they do not share the cores. For each partition count: start the broker, create one topic
# with that many partitions through Kafka's Admin client (time to create, time until every partition has a leader),
# let it settle, then measure over IDLE_SECONDS of idleness: CPU (utime + stime from /proc), threads, resident memory,
# and the JVM's "Other" native memory (direct buffers; Native Memory Tracking).
#
#   bench/partition-scale.sh                                  (PARTITIONS="100 300 1000", IDLE_SECONDS=60)
#   PARTITIONS="50 200" IDLE_SECONDS=30 TARGETS=cairn bench/partition-scale.sh
#   TARGETS="cairn cairn-ratis kafka" bench/partition-scale.sh    (cairn: the default engine; cairn-ratis: Ratis;
#                                                                  cairn-engine: raft.engine=cairn set explicitly)
#
# Prints a Markdown table; logs go to bench-work/scale/. Fetches Kafka 4.4 from Maven Central on first use and builds
# the broker jar when it is missing (as bench/compare-kafka.sh does).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/bench-work"
out="$work/scale"
counts="${PARTITIONS:-100 300 1000}"
idle="${IDLE_SECONDS:-60}"
settle="${SETTLE_SECONDS:-15}"
targets="${TARGETS:-cairn kafka}"
kafka_port=29092; kafka_controller_port=29093
cairn_port=39092; cairn_raft_port=39093
mkdir -p "$out"

# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
fetch_kafka
"$here/cairn" version >/dev/null   # builds the broker jar when needed

pid=""
stop() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
trap stop EXIT

start_cairn() {   # dir [--set key=value]...
  local dir="$1"; shift
  java -Xmx1g -XX:NativeMemoryTracking=summary -jar "$here/broker/target/cairn-broker.jar" start \
    --set listeners=127.0.0.1:$cairn_port --set raft.listener=127.0.0.1:$cairn_raft_port \
    --set log.dirs="$dir/data" "$@" >"$dir/broker.log" 2>&1 &
  pid=$!
  wait_for_log "$dir/broker.log" " started: node.id=" 120
  bootstrap="127.0.0.1:$cairn_port"
}

start_cairn-engine() {   # dir: the partitions on Cairn's own multi-Raft engine (the default), set explicitly
  start_cairn "$1" --set raft.engine=cairn
}

start_cairn-ratis() {   # dir: the partitions on Apache Ratis
  start_cairn "$1" --set raft.engine=ratis
}

start_kafka() {   # dir
  cat > "$1/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$kafka_controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$kafka_controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$1/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
PROPS
  local cluster_id
  cluster_id=$(java -cp "$work/kafka-libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  java -cp "$work/kafka-libs/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$1/server.properties" \
    >"$1/format.log" 2>&1
  java -Xmx1g -XX:NativeMemoryTracking=summary -cp "$work/kafka-libs/*" kafka.Kafka "$1/server.properties" \
    >"$1/broker.log" 2>&1 &
  pid=$!
  wait_for_port $kafka_port 120
  bootstrap="127.0.0.1:$kafka_port"
}

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "| target | partitions | create s | all leaders s | idle CPU % of a core | threads | RSS MiB | direct (NMT Other) MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for n in $counts; do
  for target in $targets; do
    dir="$out/$target-$n"
    rm -rf "$dir"; mkdir -p "$dir"
    "start_$target" "$dir"
    times=$(java -cp "$work/kafka-libs/*" "$here/bench/kafka-compare/CreateTopic.java" "$bootstrap" scale "$n" 1 \
      2>>"$dir/client.log" | tail -1)
    sleep "$settle"
    t0=$(ticks "$pid"); sleep "$idle"; t1=$(ticks "$pid")
    hz=$(getconf CLK_TCK)
    cpu=$(awk -v d=$(( t1 - t0 )) -v hz="$hz" -v s="$idle" 'BEGIN { printf "%.1f", 100 * d / hz / s }')
    threads=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
    rss=$(awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")
    other=$(jcmd "$pid" VM.native_memory summary 2>/dev/null \
      | awk '/- +Other \(/ { for (i = 1; i <= NF; i++) if ($i ~ /^committed=/) { sub("committed=", "", $i);
          sub("KB\\)?", "", $i); printf "%.0f", $i / 1024 } }')
    create=$(echo "$times" | sed -n 's/.*created_s=\([0-9.]*\).*/\1/p')
    leaders=$(echo "$times" | sed -n 's/.*leaders_s=\([0-9.]*\).*/\1/p')
    echo "| $target | $n | ${create:-?} | ${leaders:-?} | $cpu | $threads | $rss | ${other:-?} |"
    stop
  done
done
echo
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB;" \
  "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); idle window ${idle} s after ${settle} s settling"
