#!/usr/bin/env bash
# Cairn beside Apache Kafka 4.4 on this machine, in one run: produce and consume throughput with the Kafka
# Java client's own producer (default settings: idempotent, acks=all) and consumer (assign, from offset 0).
# Both brokers are single nodes on loopback. Rounds are interleaved A-B-B-A so drift in machine load hits both.
#
#   [PARTITIONS=8] bench/compare-kafka.sh [RECORDS] [RECORD_BYTES]   (defaults: 200000 records of 1024 bytes)
#
# Fetches Kafka 4.4 from Maven Central (by Maven coordinates) into bench-work/ (git-ignored) on first use.
# Both run at their default durability, which is now the same kind: Kafka acknowledges acks=all once the record is
# in the page cache of every in-sync replica (no fsync per write); Cairn acknowledges once a majority of replicas
# (here: the one node) wrote the Raft entry to the operating system, with the fsync right after (README,
# "Durability"; log.flush.interval.messages=1 makes it wait for the fsync).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/bench-work"
records="${1:-200000}"
record_bytes="${2:-1024}"
partitions="${PARTITIONS:-8}"
kafka_port=29092; kafka_controller_port=29093
cairn_port=39092; cairn_raft_port=39093
mkdir -p "$work"

# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
fetch_kafka
"$here/cairn" version >/dev/null   # builds the broker jar when needed

pids=()
cleanup() { for pid in "${pids[@]:-}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# Apache Kafka, KRaft, one combined broker+controller.
rm -rf "$work/kafka-data" "$work/cairn-data"
cat > "$work/kafka.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$kafka_controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$kafka_controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$work/kafka-data
num.partitions=$partitions
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
cluster_id=$(java -cp "$work/kafka-libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
java -cp "$work/kafka-libs/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$work/kafka.properties" \
  >"$work/kafka-format.log" 2>&1
java -Xmx1g -cp "$work/kafka-libs/*" kafka.Kafka "$work/kafka.properties" >"$work/kafka.log" 2>&1 &
pids+=($!)
wait_for_port $kafka_port 90

# Cairn, one node.
java -Xmx1g -jar "$here/broker/target/cairn-broker.jar" start --set listeners=127.0.0.1:$cairn_port \
  --set raft.listener=127.0.0.1:$cairn_raft_port --set log.dirs="$work/cairn-data" \
  --set num.partitions=$partitions >"$work/cairn.log" 2>&1 &
pids+=($!)
wait_for_log "$work/cairn.log" " started: node.id=" 90

run() {   # target port round
  java -cp "$work/kafka-libs/*" "$here/bench/kafka-compare/ClientBench.java" "$1" "127.0.0.1:$2" \
    "bench-$3-$1" "$records" "$record_bytes" "$partitions" 2>>"$work/clients.log" | tail -1
}
results="$work/results.csv"
echo "target,records,recordBytes,produceRecordsPerSec,produceMBPerSec,consumeRecordsPerSec,consumeMBPerSec" \
  > "$results"
run cairn $cairn_port 1 >> "$results"
run kafka $kafka_port 1 >> "$results"
run kafka $kafka_port 2 >> "$results"
run cairn $cairn_port 2 >> "$results"

echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB;" \
  "$records records of $record_bytes bytes, $partitions partitions, one broker each"
column -s, -t < "$results"
awk -F, 'NR>1 { n[$1]++; for (i = 4; i <= 7; i++) s[$1, i] += $i }
  END {
    split("produce records/s,produce MB/s,consume records/s,consume MB/s", name, ",")
    printf "\n%-20s %12s %12s %8s\n", "metric", "cairn", "kafka", "ratio"
    for (i = 4; i <= 7; i++) {
      c = s["cairn", i] / n["cairn"]; k = s["kafka", i] / n["kafka"]
      printf "%-20s %12.1f %12.1f %8.2f\n", name[i - 3], c, k, c / k
    }
  }' "$results"
