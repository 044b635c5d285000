#!/usr/bin/env bash
# Many partitions on a 3-broker cluster with replication factor 3: Cairn on its own multi-Raft engine
# (raft.engine=cairn) beside Apache Kafka 4.4 (KRaft, 3 combined broker+controller nodes, min.insync.replicas=2), one
# target at a time so they do not share the cores; every broker with -Xmx1g. For each partition count, on a fresh
# cluster:
#   1. create the partitions in one CreateTopics (topics of at most 1,000), time to create and until all have leaders;
#   2. after SETTLE_SECONDS, over IDLE_SECONDS of idleness, per broker: CPU (utime + stime from /proc), threads,
#      resident memory, the JVM's "Other" native memory (direct buffers; Native Memory Tracking);
#   3. produce RECORDS 1 KiB records with Kafka's Java producer at default settings (idempotent, acks=all, round-robin
#      over the partitions; bench/kafka-compare/ClientBench.java, which then reads them back; or with TOOL=perf
#      Kafka's own ProducerPerformance, its producer at its defaults, whose partitioner fills one partition's batch
#      at a time, produce only) into the first topic
#      (1,000 partitions, or fewer when the count is smaller; at 3,000 the other 2,000 stay idle), then into a
#      separate 8-partition topic on the same cluster before and after it, so the rates can be compared. All after
#      WARMUP_RECORDS into a third 8-partition topic and RECORDS into the first topic, not counted in the ratio: the
#      first run of a shape carries the brokers' JIT compiling its paths (a fresh 3-broker Kafka, 8 partitions: 14.1
#      MB/s the first run, 21.1 the second; Cairn, 1,000 partitions: 14.2 the first run, 25.4 the second, its C2
#      compiler thread busy through most of the first). That first run into the first topic is printed too ("cold");
#   4. at FAILOVER_PARTITIONS only: produce continuously into the first topic, kill -9 the broker leading most of its
#      partitions (FAILOVER_VICTIM=busiest; or a node id, 1 to 3), time until its partitions have other leaders, and
#      count acknowledged records lost or duplicated (bench/kafka-compare/Failover.java). The clients bootstrap from
#      all three brokers.
# Afterwards the broker logs are searched for OutOfMemoryError. With JFR=1 every broker records a JFR profile
# (settings=profile) while the first topic is produced to, into bench-work/cluster-scale/TARGET-N/broker-ID.jfr.
#
#   bench/cluster-scale.sh                       (PARTITIONS="1000 3000", about 12 minutes per count and target)
#   PARTITIONS=100 IDLE_SECONDS=10 FAILOVER_PARTITIONS=100 RECORDS=50000 TARGETS=kafka bench/cluster-scale.sh
#
# Prints a Markdown table; logs go to bench-work/cluster-scale/ (data directories are removed after each run).
# Fetches Kafka 4.4 from Maven Central on first use and builds the broker jar when needed (as partition-scale.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/bench-work"
out="$work/cluster-scale"
counts="${PARTITIONS:-1000 3000}"
idle="${IDLE_SECONDS:-30}"
settle="${SETTLE_SECONDS:-15}"
records="${RECORDS:-300000}"
warmup_records="${WARMUP_RECORDS:-100000}"
failover_at="${FAILOVER_PARTITIONS:-1000}"
failover_before="${FAILOVER_BEFORE_SECONDS:-10}"
failover_after="${FAILOVER_AFTER_SECONDS:-30}"
failover_victim="${FAILOVER_VICTIM:-busiest}"
targets="${TARGETS:-cairn-engine kafka}"
cairn_base=21; kafka_base=22   # node i listens on base*1000+i*100+92 (21192...), its Raft or controller port on +93
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$out"

# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
fetch_kafka
"$here/cairn" version >/dev/null   # builds the broker jar when needed
tool="${TOOL:-clientbench}"
[ "$tool" = perf ] && fetch_kafka_tools
jvm=(-Xmx1g -XX:NativeMemoryTracking=summary -XX:+ExitOnOutOfMemoryError)
libs="$work/kafka-libs/*"

pids=()
stop_all() {   # stops the brokers this script started, by PID
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_all EXIT

port() { echo $(( $1 * 1000 + $2 * 100 + $3 )); }   # base node 92|93
voters() { local v="" id; for id in 1 2 3; do v="$v${v:+,}$id@127.0.0.1:$(port "$1" "$id" 93)"; done; echo "$v"; }

start_cairn-engine() {   # dir
  local id
  for id in 1 2 3; do
    mkdir -p "$1/$id"
    java "${jvm[@]}" -jar "$here/broker/target/cairn-broker.jar" start --set node.id=$id \
      --set listeners=127.0.0.1:"$(port $cairn_base $id 92)" \
      --set raft.listener=127.0.0.1:"$(port $cairn_base $id 93)" \
      --set raft.voters="$(voters $cairn_base)" --set log.dirs="$1/$id/data" --set default.replication.factor=3 \
      --set raft.engine=cairn >"$1/$id/broker.log" 2>&1 &
    pids+=($!)
  done
  for id in 1 2 3; do wait_for_log "$1/$id/broker.log" " started: node.id=" 120; done
  bootstrap="127.0.0.1:$(port $cairn_base 1 92),127.0.0.1:$(port $cairn_base 2 92),127.0.0.1:$(port $cairn_base 3 92)"
}

start_kafka() {   # dir
  local id cluster_id
  cluster_id=$(java -cp "$libs" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  for id in 1 2 3; do
    mkdir -p "$1/$id"
    cat > "$1/$id/server.properties" <<PROPS
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$(voters $kafka_base)
listeners=PLAINTEXT://127.0.0.1:$(port $kafka_base $id 92),CONTROLLER://127.0.0.1:$(port $kafka_base $id 93)
advertised.listeners=PLAINTEXT://127.0.0.1:$(port $kafka_base $id 92)
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$1/$id/data
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
group.initial.rebalance.delay.ms=0
PROPS
    java -cp "$libs" kafka.tools.StorageTool format -t "$cluster_id" -c "$1/$id/server.properties" \
      >"$1/$id/format.log" 2>&1
    java "${jvm[@]}" -cp "$libs" kafka.Kafka "$1/$id/server.properties" >"$1/$id/broker.log" 2>&1 &
    pids+=($!)
  done
  for id in 1 2 3; do wait_for_log "$1/$id/broker.log" "Kafka Server started" 120; done
  bootstrap="127.0.0.1:$(port $kafka_base 1 92),127.0.0.1:$(port $kafka_base 2 92),127.0.0.1:$(port $kafka_base 3 92)"
}

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo dead; }
measure() {   # pid -> "threads rss_mib other_mib" ("dead" when the process is gone)
  [ -d "/proc/$1" ] || { echo "dead dead dead"; return; }
  echo "$(awk '/^Threads:/ {print $2}' "/proc/$1/status") $(awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' \
    "/proc/$1/status") $(jcmd "$1" VM.native_memory summary 2>/dev/null | awk '/- +Other \(/ {
      for (i = 1; i <= NF; i++) if ($i ~ /^committed=/) { sub("committed=", "", $i); sub("KB\\)?", "", $i);
      printf "%.0f", $i / 1024 } }')"
}
field() { echo "$2" | sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }   # name line
max() {   # the largest number among the words read ("dead" and empty ones skipped)
  awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && (m == "" || $i + 0 > m + 0)) m = $i } END { print m }'
}
mean() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { s += $i; n++ } } END { if (n) printf "%.1f", s/n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b + 0 > 0) printf "%.2f", a / b }'; }
produce() {   # topic partitions -> MB/s (ClientBench's 5th column), or "failed"; its CSV line goes to client.log
  if [ "$tool" = perf ]; then   # its last line: "N records sent, R records/sec (M MB/sec), ..."
    java -cp "$libs:$work/kafka-tools/*" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$bootstrap" \
      --topic "$1" --num-records "$records" --record-size 1024 --throughput -1 2>>"$dir/client.log" | tail -1 \
      | tee -a "$dir/client.log" | awk -F'[ (,]+' '{ for (i = 2; i <= NF; i++) if ($i == "MB/sec)") print $(i - 1) }' \
      | grep . || echo failed
    return
  fi
  java -cp "$libs" "$here/bench/kafka-compare/ClientBench.java" "$target" "$bootstrap" "$1" "$records" 1024 "$2" \
    2>>"$dir/client.log" | tail -1 | tee -a "$dir/client.log" | cut -d, -f5 | grep . || echo failed
}

hz=$(getconf CLK_TCK)
rows=()
for n in $counts; do
  for target in $targets; do
    dir="$out/$target-$n"
    rm -rf "$dir"; mkdir -p "$dir"
    echo "bench: $target, $n partitions: starting 3 brokers" >&2
    "start_$target" "$dir"
    times=$(java -cp "$libs" "$here/bench/kafka-compare/CreateTopic.java" "$bootstrap" scale "$n" 3 \
      2>>"$dir/client.log" | tail -1) || echo "bench: CreateTopic failed; see $dir/client.log" >&2
    first=scale; first_n=$n
    if [ "$n" -gt 1000 ]; then first=scale-0; first_n=1000; fi
    echo "bench: $target, $n partitions: $times; settling $settle s, then $idle s idle" >&2
    sleep "$settle"
    t0=(); for p in "${pids[@]}"; do t0+=("$(ticks "$p")"); done
    sleep "$idle"
    cpus=""; threads=""; rss=""; other=""
    for i in 0 1 2; do
      t1=$(ticks "${pids[$i]}")
      cpus="$cpus $(awk -v a="${t0[$i]}" -v b="$t1" -v hz="$hz" -v s="$idle" \
        'BEGIN { if (a == "dead" || b == "dead") print "dead"; else printf "%.1f", 100 * (b - a) / hz / s }')"
      read -r th rs ot <<<"$(measure "${pids[$i]}")"
      threads="$threads $th"; rss="$rss $rs"; other="$other $ot"
    done
    echo "bench: $target, $n partitions: idle CPU %$cpus; threads$threads; RSS MiB$rss; NMT Other MiB$other" >&2
    for t in warmup eight; do
      java -cp "$libs" "$here/bench/kafka-compare/CreateTopic.java" "$bootstrap" $t 8 3 >>"$dir/client.log" 2>&1 \
        || echo "bench: creating the 8-partition topic $t failed; see $dir/client.log" >&2
    done
    records="$warmup_records" produce warmup 8 >/dev/null   # brokers' JIT warm-up, not counted
    mb_cold=$(produce "$first" "$first_n")   # the first run over the first topic's partitions: JIT warm-up of its paths
    mb_8a=$(produce eight 8)
    [ "${JFR:-0}" = 1 ] && for i in 0 1 2; do jcmd "${pids[$i]}" JFR.start name=scale settings=profile >/dev/null; done
    mb_n=$(produce "$first" "$first_n")
    [ "${JFR:-0}" = 1 ] && for i in 0 1 2; do
      jcmd "${pids[$i]}" JFR.stop name=scale filename="$dir/broker-$((i + 1)).jfr" >/dev/null
    done
    mb_8b=$(produce eight 8)   # 8, N, 8 against drift
    mb_8=$(echo "$mb_8a $mb_8b" | mean)
    echo "bench: $target, $n partitions: produce MB/s $mb_n over $first_n partitions ($mb_cold the first, cold run)," \
      "$mb_8a and $mb_8b over 8" >&2
    fo=""
    if [ "$n" = "$failover_at" ]; then
      victims=(1,2,3 "${pids[0]},${pids[1]},${pids[2]}")
      [ "$failover_victim" = busiest ] || victims=("$failover_victim" "${pids[$(( failover_victim - 1 ))]}")
      fo=$(java -cp "$libs" "$here/bench/kafka-compare/Failover.java" "$bootstrap" "$first" "$first_n" "${victims[@]}" \
        "$failover_before" "$failover_after" 2>>"$dir/failover.log" | tail -1) \
        || echo "bench: Failover failed; see $dir/failover.log" >&2
      echo "bench: $target, $n partitions: ${fo:-no failover result}" >&2
    fi
    stop_all
    oom=no; grep -l OutOfMemoryError "$dir"/*/broker.log >&2 && oom=yes
    rm -rf "$dir"/*/data   # (the JFR recordings stay)
    rows+=("| $target | $n | $(field created_s "$times") | $(field leaders_s "$times") |$cpus | $(echo "$cpus" | max) \
| $(echo "$cpus" | mean) | $(echo "$threads" | max) | $(echo "$rss" | max) | $(echo "$other" | max) | $oom \
| $mb_n ($first_n) | $mb_cold | $mb_8a, $mb_8b | $(ratio "$mb_n" "$mb_8") \
| ${fo:+$(field victim "$fo") ($(field victim_led "$fo")) / $(field new_leaders_s "$fo")} \
| ${fo:+$(field acked "$fo") / $(field lost "$fo") / $(field duplicates "$fo")} |")
  done
done
echo "| target | partitions | create s | all leaders s | idle CPU % of a core, brokers 1 2 3 | max | mean \
| threads max \
| RSS MiB max | NMT Other MiB max | OOM | produce MB/s (partitions) | the same, first (cold) run \
| produce MB/s, 8 partitions, before and after \
| ratio to their mean \
| failover: victim (partitions it led) / new leaders s | acked / lost / duplicated |"
echo "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB;" \
  "load average at the start: $load_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: 3 brokers, RF 3, -Xmx1g each; producer: $tool; idle window $idle s after $settle s settling; $records records of" \
  "1 KiB per produce run, after $warmup_records (8 partitions) and a first run over the topic to warm up;" \
  "failover at $failover_at partitions:" \
  "kill -9 of broker $failover_victim" \
  "(busiest = the one leading most of the topic's partitions) after $failover_before s of producing," \
  "$failover_after s more after it"
