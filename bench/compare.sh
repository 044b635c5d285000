#!/usr/bin/env bash
# Cairn beside Apache Kafka 4.4 on this machine, in one run, driven by the same load tool (Cairn's own client,
# jmh/target/cairn-load.jar), so the comparison isolates the broker. Two shapes, each started for both systems at
# once on loopback: 1 broker (RF=1), then 3 brokers (RF=3; Kafka with min.insync.replicas=2). Every matrix cell
# runs A-B-B-A (cairn, kafka, kafka, cairn) so drift in machine load hits both. Prints, per shape, a Markdown
# table with Cairn/Kafka ratios, and writes CSV and HTML latency plots to bench-work/compare/.
#
#   bench/compare.sh            (about 15 minutes on 2 cores; DURATION=10 s of producing per run, WARMUP=2 not counted)
#   CELLS="sync-100B e2e-1KiB" SHAPES=1 bench/compare.sh      (a subset)
#   FSYNC=1 bench/compare.sh    (both sides fsync before acknowledging: log.flush.interval.messages=1 on every broker)
#   CELLS=max-1KiB SHAPES=1 bench/compare.sh, then CELLS=e2e-1KiB E2E_RATE=<half of Kafka's rate there> SHAPES=1
#   bench/compare.sh: end-to-end latency at half of Kafka's maximum rate for that shape (1 producer at the client's
#   default batching, 1 partition, 1 consumer tailing; e2e-1KiB runs at 200 records/s otherwise)
#   ENGINE=ratis bench/compare.sh   (Cairn's partitions on Apache Ratis, raft.engine=ratis; default cairn, its own engine)
#
# Fetches Kafka 4.4 from Maven Central (by Maven coordinates, bench/kafka-compare/pom.xml) into bench-work/
# (git-ignored) on first use, and builds the broker and load-tool jars when they are missing or stale.
#
# Without FSYNC=1 both run at their default durability, which is now the same kind. Kafka acknowledges acks=all once every in-sync
# replica has the record in its page cache (flush.messages and flush.ms unset: no fsync per write); with 3 brokers
# and min.insync.replicas=2 it needs at least 2 of them. Cairn acknowledges once a majority of the replicas (1 of 1,
# or 2 of 3) wrote the batch and its Raft entry to the operating system; segments are fsynced on Kafka's schedule
# (README, "Durability").
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$here/bench-work"
out="$work/compare"
duration="${DURATION:-10}"
warmup="${WARMUP:-2}"
shapes="${SHAPES:-1 3}"
fsync="${FSYNC:-0}"
flush_every_message=""
[ "$fsync" = 1 ] && flush_every_message="log.flush.interval.messages=1"
all_cells="sync-100B sync-50KB sync-1MB 4x4-50KB 8x8-50KB batch-1KiB e2e-1KiB"
cells="${CELLS:-$all_cells}"
started=$(date +%s)
mkdir -p "$work"
rm -rf "$out"
mkdir -p "$out"

# ---------------------------------------------------------------- fetch and build
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
fetch_kafka
broker_jar="$here/broker/target/cairn-broker.jar"
load_jar="$here/jmh/target/cairn-load.jar"
if [ ! -f "$broker_jar" ] || [ ! -f "$load_jar" ] || [ -n "$(find "$here/protocol/src/main" "$here/broker/src/main" \
      "$here/client/src/main" "$here/jmh/src/main" "$here"/pom.xml "$here"/*/pom.xml -newer "$load_jar" -print \
      -quit 2>/dev/null)" ]; then
  echo "bench: building the broker and load-tool jars (mvn package)..." >&2
  (cd "$here" && mvn -B -q -ntp -pl broker,jmh -am package -DskipTests) >&2
fi

# ---------------------------------------------------------------- processes
pids=()
stop_all() {   # stops the brokers this script started, by PID
  for pid in "${pids[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap stop_all EXIT

# ---------------------------------------------------------------- the matrix
cell_args() {   # cell -> load tool arguments
  case "$1" in
    sync-100B) echo "--record-bytes 100 --sync" ;;
    sync-50KB) echo "--record-bytes 51200 --sync" ;;
    sync-1MB) echo "--record-bytes 1000000 --sync" ;;
    4x4-50KB) echo "--record-bytes 51200 --sync --producers 4 --consumers 4 --partitions 4" ;;
    8x8-50KB) echo "--record-bytes 51200 --sync --producers 8 --consumers 8 --partitions 8" ;;
    batch-1KiB) echo "--record-bytes 1024 --partitions 4 --batch-bytes 65536 --linger-ms 5" ;;
    e2e-1KiB) echo "--workload e2e --record-bytes 1024 --rate ${E2E_RATE:-200}" ;;
    max-1KiB) echo "--record-bytes 1024" ;;
    *) echo "bench: unknown cell $1" >&2; return 1 ;;
  esac
}

run_cell() {   # shape cell target bootstrap round
  local rf=$(( $1 == 1 ? 1 : 3 )) args
  args=$(cell_args "$2")
  # shellcheck disable=SC2086
  if ! java -Xmx1g -jar "$load_jar" run --bootstrap "$4" --topic "bench-$1-$2-$3-$5" --replication-factor "$rf" \
      --duration "$duration" --warmup "$warmup" --consume-timeout 60 --target "$3" --cell "$2" \
      --csv "$out/shape-$1.csv" $args >>"$out/runs.log" 2>&1; then
    echo "bench: $3 $2 (shape $1, round $5) failed or moved no records; see $out/runs.log" >&2
  fi
  tail -n +2 "$out/runs.log" | grep -E "^$3 +$2 " | tail -2 >&2 || true
}

machine="$(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), $(free -g | awk '/Mem:/{print $2}') GiB RAM"
for shape in $shapes; do
  echo "bench: shape $shape broker(s): starting Kafka and Cairn" >&2
  start_kafka "$shape" $(( 40 + shape - 1 ))
  start_cairn "$shape" $(( 50 + shape - 1 ))
  kafka_bootstrap=$(bootstrap "$shape" $(( 40 + shape - 1 )))
  cairn_bootstrap=$(bootstrap "$shape" $(( 50 + shape - 1 )))
  for cell in $cells; do
    run_cell "$shape" "$cell" cairn "$cairn_bootstrap" 1
    run_cell "$shape" "$cell" kafka "$kafka_bootstrap" 1
    run_cell "$shape" "$cell" kafka "$kafka_bootstrap" 2
    run_cell "$shape" "$cell" cairn "$cairn_bootstrap" 2
  done
  stop_all
done

echo
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $machine; $duration s per run ($warmup s warm-up)," \
  "A-B-B-A rounds; $([ "$fsync" = 1 ] && echo "both fsync before acknowledging (log.flush.interval.messages=1)" \
  || echo "both at their default durability");" "took $(( ($(date +%s) - started) / 60 )) min"
for shape in $shapes; do
  echo
  echo "### $shape broker(s), replication factor $(( shape == 1 ? 1 : 3 ))"
  echo
  java -jar "$load_jar" report --csv "$out/shape-$shape.csv" --subject cairn --baseline kafka \
    --title "Cairn vs Kafka 4.4, $shape broker(s)" --html "$out/shape-$shape.html"
done
echo
echo "CSV, HTML latency plots and logs: $out" >&2
