# Shared by the bench scripts (sourced, not run): fetching Kafka 4.4, waiting for a broker, starting clusters. Expects $here (the
# repository root) and $work (bench-work/) to be set.

# Fetches Apache Kafka 4.4 from Maven Central (bench/kafka-compare/pom.xml's coordinates) into $work/kafka-libs once.
fetch_kafka() {
  if [ ! -d "$work/kafka-libs" ] || [ -z "$(ls -A "$work/kafka-libs" 2>/dev/null)" ]; then
    echo "bench: fetching Apache Kafka 4.4 from Maven Central into $work/kafka-libs" >&2
    mvn -B -q -ntp -f "$here/bench/kafka-compare/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$work/kafka-libs" >&2
  fi
}

fetch_kafka_tools() {   # Kafka's command-line tools (ProducerPerformance), beside the libraries fetch_kafka gets
  if [ -z "$(ls -A "$work/kafka-tools" 2>/dev/null)" ]; then
    echo "bench: fetching org.apache.kafka:kafka-tools:4.4.0 from Maven Central into $work/kafka-tools" >&2
    mvn -B -q -ntp dependency:copy -Dartifact=org.apache.kafka:kafka-tools:4.4.0 \
      -DoutputDirectory="$work/kafka-tools" >&2
  fi
}

wait_for_port() {   # port seconds
  for _ in $(seq 1 $(( $2 * 2 ))); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.5; done
  echo "bench: nothing listens on 127.0.0.1:$1 after $2 s" >&2; return 1
}

wait_for_log() {   # file pattern seconds
  for _ in $(seq 1 $(( $3 * 2 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.5; done
  echo "bench: timed out waiting for '$2' in $1" >&2; tail -20 "$1" >&2; return 1
}

# Clusters of 1 or 3 nodes on loopback, for compare.sh and compare-kafka.sh. Expect $out (where each node's directory
# goes), $broker_jar, and optionally $flush_every_message (a server setting, e.g. log.flush.interval.messages=1),
# $num_partitions (for auto-created topics; default 1) and $ENGINE (Cairn's raft.engine); each started PID is added to
# the caller's pids array. Kafka: KRaft, combined broker+controller nodes, min.insync.replicas=2 with 3 nodes.
start_kafka() {   # brokers port_prefix: node i listens on (prefix+i)*1000+92, its controller on +93
  local n="$1" base="$2" voters="" id
  for id in $(seq 1 "$n"); do voters="$voters${voters:+,}$id@127.0.0.1:$(( (base + id) * 1000 + 93 ))"; done
  local cluster_id
  cluster_id=$(java -cp "$work/kafka-libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  for id in $(seq 1 "$n"); do
    local dir="$out/kafka-$n-$id" port=$(( (base + id) * 1000 + 92 )) ctl=$(( (base + id) * 1000 + 93 ))
    mkdir -p "$dir"
    cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$ctl
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=${num_partitions:-1}
default.replication.factor=$n
min.insync.replicas=$(( n == 1 ? 1 : 2 ))
offsets.topic.replication.factor=$n
transaction.state.log.replication.factor=$n
transaction.state.log.min.isr=$(( n == 1 ? 1 : 2 ))
group.initial.rebalance.delay.ms=0
$flush_every_message
PROPS
    java -cp "$work/kafka-libs/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" \
      >"$dir/format.log" 2>&1
    java -Xmx1g -cp "$work/kafka-libs/*" kafka.Kafka "$dir/server.properties" >"$dir/kafka.log" 2>&1 &
    pids+=($!)
  done
  for id in $(seq 1 "$n"); do wait_for_log "$out/kafka-$n-$id/kafka.log" "Kafka Server started" 120; done
}

start_cairn() {   # brokers port_prefix: node i on (prefix+i)*1000+92, Raft on +93
  local n="$1" base="$2" voters="" id
  for id in $(seq 1 "$n"); do voters="$voters${voters:+,}$id@127.0.0.1:$(( (base + id) * 1000 + 93 ))"; done
  for id in $(seq 1 "$n"); do
    local dir="$out/cairn-$n-$id"
    mkdir -p "$dir"
    java -Xmx1g -jar "$broker_jar" start --set node.id="$id" \
      --set listeners=127.0.0.1:$(( (base + id) * 1000 + 92 )) --set raft.listener=127.0.0.1:$(( (base + id) * 1000 + 93 )) \
      --set raft.voters="$voters" --set log.dirs="$dir/data" --set default.replication.factor="$n" \
      --set raft.engine="${ENGINE:-cairn}" --set num.partitions="${num_partitions:-1}" \
      ${flush_every_message:+--set "$flush_every_message"} >"$dir/cairn.log" 2>&1 &
    pids+=($!)
  done
  for id in $(seq 1 "$n"); do wait_for_log "$out/cairn-$n-$id/cairn.log" " started: node.id=" 120; done
}

bootstrap() {   # brokers port_prefix
  local list="" id
  for id in $(seq 1 "$1"); do list="$list${list:+,}127.0.0.1:$(( ($2 + id) * 1000 + 92 ))"; done
  echo "$list"
}
