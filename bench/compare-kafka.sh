#!/usr/bin/env bash
# Cairn beside Apache Kafka 4.4 on this machine, in one run: produce and consume throughput with the Kafka
# Java client's own producer (default settings: idempotent, acks=all) and consumer (assign, from offset 0).
# Both are single nodes on loopback, or with BROKERS=3 three-node clusters at replication factor 3 (Kafka with
# min.insync.replicas=2; bench/lib.sh starts them). Rounds are interleaved A-B-B-A so drift in machine load hits both.
#
#   [PARTITIONS=8] [WARMUP=1] [FSYNC=1] [TLS=1 [SSL_ENGINE=auto|openssl|jdk]] [ENGINE=cairn|ratis] [BROKERS=1|3]
#   bench/compare-kafka.sh [RECORDS] [RECORD_BYTES]
#   (defaults: 200000 records of 1024 bytes)
#
# WARMUP rounds per broker run first and are not counted: both brokers are JVMs whose JIT compilers are still at
# work in the first rounds (on 2 cores, Cairn's C2 thread took 40% of its CPU during a first 500k-record round and
# 20% during the fourth), and a broker serves for days. WARMUP=0 measures them cold.
#
# TLS=1 puts both brokers on a TLS listener (one throw-away EC certificate made with keytool) and the clients on
# security.protocol=SSL: Kafka then also reads fetched records into memory to encrypt them, as Cairn does, so neither
# uses sendfile. Kafka runs on the JDK's TLS engine; Cairn on the one SSL_ENGINE names (its ssl.engine key; default
# auto, which is OpenSSL where netty-tcnative loads). The clients use the JDK's.
#
# ENGINE picks Cairn's raft.engine (default cairn: Cairn's own multi-Raft engine; ratis: Apache Ratis).
#
# TOOL=perf runs Kafka's own ProducerPerformance (kafka-producer-perf-test: org.apache.kafka:kafka-tools, its
# producer at its defaults, --throughput -1) instead of ClientBench, produce only, and prints its p50 and p99
# latency in place of the consume columns.
#
# Fetches Kafka 4.4 from Maven Central (by Maven coordinates) into bench-work/ (git-ignored) on first use.
# FSYNC=1 makes both fsync before they acknowledge: log.flush.interval.messages=1 on each broker (Kafka: flush
# after every message; Cairn: each acknowledgement waits for the segment's fsync on a majority).
# Otherwise both run at their default durability, which is now the same kind: Kafka acknowledges acks=all once the record is
# in the page cache of every in-sync replica (no fsync per write); Cairn acknowledges once a majority of replicas
# (here: the one node) wrote the batch and its Raft entry to the operating system; segments are fsynced on
# Kafka's schedule (README, "Durability"; log.flush.interval.messages=1 makes it wait for the fsync).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/bench-work"
records="${1:-200000}"
record_bytes="${2:-1024}"
partitions="${PARTITIONS:-8}"
warmup="${WARMUP:-1}"
tls="${TLS:-0}"
fsync="${FSYNC:-0}"
ssl_engine="${SSL_ENGINE:-auto}"
engine="${ENGINE:-cairn}"
tool="${TOOL:-clientbench}"
brokers="${BROKERS:-1}"
[ "$brokers" = 1 ] || [ "$brokers" = 3 ] || { echo "bench: BROKERS must be 1 or 3" >&2; exit 2; }
[ "$brokers" = 1 ] || [ "$tls" = 0 ] || { echo "bench: TLS=1 runs with one broker only" >&2; exit 2; }
kafka_port=29092; kafka_controller_port=29093
cairn_port=39092; cairn_raft_port=39093
mkdir -p "$work"

# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
fetch_kafka
[ "$tool" = perf ] && fetch_kafka_tools
"$here/cairn" version >/dev/null   # builds the broker jar when needed

pids=()
cleanup() { for pid in "${pids[@]:-}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

rm -rf "$work/kafka-data" "$work/cairn-data"
protocol=PLAINTEXT
client_props=()
cairn_tls=()
kafka_tls=""
if [ "$tls" = 1 ]; then
  protocol=SSL
  rm -rf "$work/tls" && mkdir -p "$work/tls"
  kt() { keytool -storetype PKCS12 -storepass bench-secret "$@" >>"$work/tls/keytool.log" 2>&1; }
  kt -genkeypair -alias broker -dname CN=localhost -ext SAN=ip:127.0.0.1,dns:localhost -keyalg EC \
    -groupname secp256r1 -validity 2 -keystore "$work/tls/broker.p12"
  kt -exportcert -rfc -alias broker -keystore "$work/tls/broker.p12" -file "$work/tls/broker.pem"
  kt -importcert -noprompt -alias broker -file "$work/tls/broker.pem" -keystore "$work/tls/truststore.p12"
  printf '%s\n' security.protocol=SSL ssl.truststore.type=PKCS12 \
    "ssl.truststore.location=$work/tls/truststore.p12" ssl.truststore.password=bench-secret > "$work/tls/client.properties"
  client_props=("$work/tls/client.properties")
  cairn_tls=(--set ssl.keystore.type=PKCS12 --set "ssl.keystore.location=$work/tls/broker.p12"
    --set ssl.keystore.password=bench-secret --set "ssl.engine=$ssl_engine")
  # Kafka checks at start that its own truststore accepts its certificate (it is also its inter-broker client).
  kafka_tls="ssl.keystore.type=PKCS12
ssl.keystore.location=$work/tls/broker.p12
ssl.keystore.password=bench-secret
ssl.truststore.type=PKCS12
ssl.truststore.location=$work/tls/truststore.p12
ssl.truststore.password=bench-secret"
fi

if [ "$brokers" = 1 ]; then
  # Apache Kafka, KRaft, one combined broker+controller.
  cat > "$work/kafka.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$kafka_controller_port
listeners=$protocol://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$kafka_controller_port
advertised.listeners=$protocol://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL
inter.broker.listener.name=$protocol
$kafka_tls
log.dirs=$work/kafka-data
num.partitions=$partitions
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
$([ "$fsync" = 1 ] && echo "log.flush.interval.messages=1")
PROPS
  cluster_id=$(java -cp "$work/kafka-libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  java -cp "$work/kafka-libs/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$work/kafka.properties" \
    >"$work/kafka-format.log" 2>&1
  java -Xmx1g -cp "$work/kafka-libs/*" kafka.Kafka "$work/kafka.properties" >"$work/kafka.log" 2>&1 &
  pids+=($!)
  wait_for_port $kafka_port 90

  # Cairn, one node.
  java -Xmx1g -jar "$here/broker/target/cairn-broker.jar" start --set listeners=$protocol://127.0.0.1:$cairn_port \
    "${cairn_tls[@]}" \
    --set raft.listener=127.0.0.1:$cairn_raft_port --set log.dirs="$work/cairn-data" \
    --set num.partitions=$partitions $([ "$fsync" = 1 ] && echo "--set log.flush.interval.messages=1") \
    --set raft.engine="$engine" \
    >"$work/cairn.log" 2>&1 &
  pids+=($!)
  wait_for_log "$work/cairn.log" " started: node.id=" 90
  kafka_bootstrap=127.0.0.1:$kafka_port
  cairn_bootstrap=127.0.0.1:$cairn_port
else
  # Three nodes of each, both clusters up at once (as compare.sh does).
  out="$work/compare-kafka-3"
  rm -rf "$out" && mkdir -p "$out"
  broker_jar="$here/broker/target/cairn-broker.jar"
  num_partitions=$partitions
  flush_every_message=$([ "$fsync" = 1 ] && echo "log.flush.interval.messages=1" || true)
  start_kafka 3 30
  start_cairn 3 34
  kafka_bootstrap=$(bootstrap 3 30)
  cairn_bootstrap=$(bootstrap 3 34)
fi

run() {   # target bootstrap round
  if [ "$tool" = perf ]; then
    # "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P ms 50th, ..., Q ms 99th, ..."
    java -cp "$work/kafka-libs/*:$work/kafka-tools/*" org.apache.kafka.tools.ProducerPerformance \
      --bootstrap-server "$2" --topic "bench-$3-$1" --num-records "$records" --record-size "$record_bytes" \
      --throughput -1 ${client_props[@]:+--producer.config "${client_props[0]}"} 2>>"$work/clients.log" | tail -1 \
      | awk -v t="$1" -v n="$records" -v b="$record_bytes" -F'[ (,]+' \
        '{ for (i = 1; i <= NF; i++) { if ($i == "records/sec") r = $(i - 1); if ($i == "MB/sec)") m = $(i - 1);
             if ($i == "50th") p50 = $(i - 2); if ($i == "99th") p99 = $(i - 2) }
           print t "," n "," b "," r "," m "," p50 "," p99 }'
    return
  fi
  java -cp "$work/kafka-libs/*" "$here/bench/kafka-compare/ClientBench.java" "$1" "$2" \
    "bench-$3-$1" "$records" "$record_bytes" "$partitions" "${client_props[@]}" 2>>"$work/clients.log" | tail -1
}
for round in $(seq 1 "$warmup"); do
  run cairn "$cairn_bootstrap" "warm$round" >/dev/null
  run kafka "$kafka_bootstrap" "warm$round" >/dev/null
done
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
results="$work/results.csv"
if [ "$tool" = perf ]; then
  echo "target,records,recordBytes,produceRecordsPerSec,produceMBPerSec,p50Ms,p99Ms" > "$results"
else
  echo "target,records,recordBytes,produceRecordsPerSec,produceMBPerSec,consumeRecordsPerSec,consumeMBPerSec" \
    > "$results"
fi
run cairn "$cairn_bootstrap" 1 >> "$results"
run kafka "$kafka_bootstrap" 1 >> "$results"
run kafka "$kafka_bootstrap" 2 >> "$results"
run cairn "$cairn_bootstrap" 2 >> "$results"

echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB;" \
  "$records records of $record_bytes bytes, $partitions partitions, $([ "$brokers" = 1 ] && echo "one broker each" \
    || echo "three brokers each, replication factor 3, Kafka min.insync.replicas=2"), listeners $protocol," \
  "$warmup warm-up round(s) per broker not counted; Cairn on raft.engine=$engine;" \
  "$([ "$tool" = perf ] && echo "Kafka's ProducerPerformance (produce only);" || echo "ClientBench;")" \
  "$([ "$fsync" = 1 ] && echo "both fsync before acknowledging (log.flush.interval.messages=1)" \
    || echo "both at their default durability (no fsync before acknowledging)");" \
  "$([ "$tls" = 1 ] && echo "(Cairn's ssl.engine=$ssl_engine, Kafka's JDK engine);")" \
  "load average before: $load_before"
column -s, -t < "$results"
names="produce records/s,produce MB/s,consume records/s,consume MB/s"
[ "$tool" = perf ] && names="produce records/s,produce MB/s,p50 latency ms,p99 latency ms"
awk -F, -v names="$names" 'NR>1 { n[$1]++; for (i = 4; i <= 7; i++) s[$1, i] += $i }
  END {
    split(names, name, ",")
    printf "\n%-20s %12s %12s %8s\n", "metric", "cairn", "kafka", "ratio"
    for (i = 4; i <= 7; i++) {
      c = s["cairn", i] / n["cairn"]; k = s["kafka", i] / n["kafka"]
      printf "%-20s %12.1f %12.1f %8.2f\n", name[i - 3], c, k, c / k
    }
  }' "$results"
