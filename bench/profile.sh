#!/usr/bin/env bash
# Where a broker's CPU goes under the Kafka Java producer and consumer (bench/kafka-compare/ClientBench.java with
# its defaults: idempotent, acks=all, 8 partitions, 1 KiB records), for Cairn or for Kafka 4.4, one broker on
# loopback. The broker runs with frame pointers and a perf map (-XX:+PreserveFramePointer, -XX:+DumpPerfMapAtExit),
# WARMUP rounds run first (both JITs keep compiling through the first rounds), then `perf record -g` samples the
# broker during one measured round. Prints the client's line, the broker's CPU seconds over the round, and the
# samples grouped by what the threads were doing (the table in docs/write-path.md, "Where the CPU goes").
#
#   TARGET=cairn|kafka [RECORDS=500000] [WARMUP=3] [ENGINE=cairn|ratis] [ALLOC=1] bench/profile.sh
#
# ALLOC=1 records the broker's allocations during the measured round with JFR instead of sampling its CPU with perf,
# and prints what it allocated in all and per produced record, with the largest allocation sites
# (bench-work/profile/TARGET.jfr).
#
# ENGINE picks Cairn's raft.engine (default cairn: Cairn's own multi-Raft engine; ratis: Apache Ratis).
#
# Needs Linux perf (Debian: linux-perf) allowed to sample the process (root, or kernel.perf_event_paranoid <= 1).
# Leaves bench-work/profile/TARGET.perf for `perf report -i` (the JIT symbols are in /tmp/perf-PID.map).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/bench-work"
out="$work/profile"
target="${TARGET:-cairn}"
records="${RECORDS:-500000}"
warmup="${WARMUP:-3}"
engine="${ENGINE:-cairn}"
alloc="${ALLOC:-0}"
port=49092; raft_port=49093; controller_port=49094
mkdir -p "$out"
[ "$alloc" = 1 ] || command -v perf >/dev/null || { echo "bench: perf is not installed (Debian: apt-get install linux-perf)" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
fetch_kafka

pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; }
trap cleanup EXIT
jvm_flags=(-Xmx1g -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)
rm -rf "$out/data"
case "$target" in
  cairn)
    "$here/cairn" version >/dev/null   # builds the broker jar when needed
    java "${jvm_flags[@]}" -jar "$here/broker/target/cairn-broker.jar" start \
      --set listeners=PLAINTEXT://127.0.0.1:$port --set raft.listener=127.0.0.1:$raft_port \
      --set log.dirs="$out/data" --set num.partitions=8 --set raft.engine="$engine" >"$out/broker.log" 2>&1 &
    pid=$!
    wait_for_log "$out/broker.log" " started: node.id=" 90 ;;
  kafka)
    cat > "$out/kafka.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
log.dirs=$out/data
num.partitions=8
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
PROPS
    cluster_id=$(java -cp "$work/kafka-libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
    java -cp "$work/kafka-libs/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$out/kafka.properties" \
      >"$out/format.log" 2>&1
    java "${jvm_flags[@]}" -cp "$work/kafka-libs/*" kafka.Kafka "$out/kafka.properties" >"$out/broker.log" 2>&1 &
    pid=$!
    wait_for_port $port 90 ;;
  *) echo "bench: TARGET is cairn or kafka" >&2; exit 2 ;;
esac

bench() {   # topic records
  java -cp "$work/kafka-libs/*" "$here/bench/kafka-compare/ClientBench.java" "$target" "127.0.0.1:$port" "$1" "$2" \
    1024 8 2>>"$out/clients.log" | tail -1
}
for round in $(seq 1 "$warmup"); do bench "warm$round" 300000 >/dev/null; done
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
ticks_before=$(cpu_ticks)
if [ "$alloc" = 1 ]; then
  rm -f "$out/$target.jfr"
  jcmd "$pid" JFR.start name=alloc settings=profile >/dev/null
  line=$(bench measured "$records")
  jcmd "$pid" JFR.stop name=alloc filename="$out/$target.jfr" >/dev/null
else
  perf record -F 499 -g -p "$pid" -o "$out/$target.perf" >/dev/null 2>&1 &
  perf_pid=$!
  line=$(bench measured "$records")
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
fi
ticks_after=$(cpu_ticks)
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); $target$([ "$target" = cairn ] && echo " (raft.engine=$engine)"); $records records of 1024 bytes, 8 partitions; $warmup warm-up" \
  "round(s); load average before: $load_before"
echo "target,records,recordBytes,produceRecordsPerSec,produceMBPerSec,consumeRecordsPerSec,consumeMBPerSec"
echo "$line"
printf 'broker CPU over the measured round: %d.%02d s\n' $(( (ticks_after - ticks_before) / 100 )) \
  $(( (ticks_after - ticks_before) % 100 ))
# The JVM writes its JIT symbols (/tmp/perf-PID.map) as it exits.
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
if [ "$alloc" = 1 ]; then
  jfr print --events jdk.ObjectAllocationSample "$out/$target.jfr" | python3 "$here/bench/profile-alloc.py" "$records"
  exit 0
fi
perf script -i "$out/$target.perf" -F comm,ip,sym,dso 2>/dev/null | python3 "$here/bench/profile-threads.py"
