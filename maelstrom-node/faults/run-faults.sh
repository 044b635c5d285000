#!/usr/bin/env bash
# Runs Jepsen's real Maelstrom (kafka workload) against Cairn's Maelstrom node wrapped in faults/fault-node.py, which
# kills and restarts nodes (kill -9, same storage directory), pauses them (SIGSTOP/SIGCONT) and jumps their wall
# clocks (libfaketime): faults Maelstrom 0.2.4's own nemesis (partition only) does not have. The verdict is
# Maelstrom's own. Prints each run's verdict, msgs/op, availability, send/poll latency p50/p99 from history.edn, the
# faults injected and the load average; exits non-zero if any run is not valid, printing its anomalies.
#
# Usage: maelstrom-node/faults/run-faults.sh [options]
#   --nodes N          node count (3)
#   --faults LIST      comma list of kill,pause,clock (kill,pause,clock); clock needs Debian's faketime package
#   --time-limit S     Maelstrom --time-limit (30); faults stop when it ends, so the final reads run without them
#   --rate R           Maelstrom --rate (100)
#   --interval S       mean seconds between two faults of one node (5)
#   --runs K           runs of this shape, one after another (1)
#   --seed S           fault schedule seed of the first run; run k uses S+k-1 (1)
#   --partition        also Maelstrom's own --nemesis partition --nemesis-interval 5
#   --latency MS       Maelstrom --latency
#   --raft ENGINE      the node's Raft: ratis (the default) or cairn (Cairn's own, docs/multi-raft.md)
#   --broken           the node acknowledges sends before they commit (--unsafe-ack-before-commit): must be invalid
#   --amnesia          a killed node's Raft directory is deleted before it restarts (CAIRN_FAULT_AMNESIA=1):
#                      deliberately unsafe, to see whether the runs catch it
#   --expect-invalid   exit 0 only if every run is invalid (for --broken)
#   --keep DIR         copy each run's store and fault log to DIR/<run>; runs not valid are always kept, under DIR
#                      if given, else in the run's temporary directory (printed)
# Uses the build of Maelstrom 0.2.4 in ../shared/tools/maelstrom (relative to the repository root); without it,
# says so and exits 0. Builds the node if it is missing. Each run is bounded by `timeout`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
maelstrom="$root/../shared/tools/maelstrom/maelstrom"
wrapper="$here/fault-node.py"

nodes=3 faults=kill,pause,clock time_limit=30 rate=100 interval=5 runs=1 seed=1 partition=0 latency="" broken=0
expect_invalid=0 keep="" amnesia=0 raft=ratis
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --faults) faults=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --partition) partition=1; shift ;;
    --latency) latency=$2; shift 2 ;;
    --broken) broken=1; shift ;;
    --amnesia) amnesia=1; shift ;;
    --expect-invalid) expect_invalid=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --raft) raft=$2; shift 2 ;;
    *) echo "run-faults: unknown option $1" >&2; exit 2 ;;
  esac
done

if [ ! -x "$maelstrom" ]; then
  echo "run-faults: skipped: $maelstrom is absent (Jepsen's Maelstrom 0.2.4 is provided beside the repository)"
  exit 0
fi
if [ ! -x "$root/maelstrom-node/target/cairn-maelstrom-node" ]; then
  (cd "$root" && mvn -B -ntp -q -pl protocol,broker,maelstrom-node -am package -DskipTests -DskipKafkaIT)
fi
case ",$faults," in
  *,clock,*)
    if ! compgen -G "/usr/lib/*/faketime/libfaketime.so.1" >/dev/null \
        && [ ! -f /usr/lib/faketime/libfaketime.so.1 ]; then
      echo "run-faults: clock faults need libfaketime: apt-get install -y faketime" >&2
      exit 2
    fi ;;
esac

# Start-up, workload, 10 s recovery, final reads and analysis; a restarted node needs about 2 s.
run_limit_s=$((time_limit + 240))
node_args="--raft $raft"
if [ "$broken" = 1 ]; then
  node_args="$node_args --unsafe-ack-before-commit"
fi
extra=()
partition_tag=""
if [ "$partition" = 1 ]; then
  extra+=(--nemesis partition --nemesis-interval 5)
  partition_tag="+partition"
fi
if [ -n "$latency" ]; then
  extra+=(--latency "$latency")
fi

# Prints "key value" lines for one run: verdict figures from results.edn, latencies from history.edn.
summarise() {
  python3 - "$1" <<'PY'
import re, sys
store = sys.argv[1]
res = open(store + "/results.edn").read()
def num(pattern):
    m = re.search(pattern, res, re.S)
    return m.group(1) if m else "?"
print("msgs_per_op", num(r":net \{:all \{[^}]*?:msgs-per-op ([0-9.]+)"))
print("server_msgs_per_op", num(r":servers \{[^}]*?:msgs-per-op ([0-9.]+)"))
print("ok_fraction", num(r":availability \{[^}]*?:ok-fraction ([0-9.]+)"))
anomalies = sorted(set(re.findall(r":(lost-write|unseen|poll-skip|int-poll-skip|nonmonotonic-poll|"
                                  r"int-nonmonotonic-poll|nonmonotonic-send|int-send-skip|duplicate|"
                                  r"inconsistent-offsets|G0[a-z-]*|G1[a-z-]*|G2[a-z-]*)\b", res)))
m = re.search(r":workload \{.*?:error-types \(?\[?([^\])}]*)", res, re.S)
print("error_types", " ".join((m.group(1) if m else "").split()) or "-")
print("anomaly_keys", " ".join(anomalies) or "-")
invokes, lat = {}, {"send": [], "poll": []}
ops = {"ok": 0, "info": 0, "fail": 0}
for line in open(store + "/history.edn"):
    t = re.search(r":type :(\w+)", line)
    p = re.search(r":process (\d+)", line)
    f = re.search(r":f :(\w+)", line)
    ns = re.search(r":time (\d+)", line)
    if not (t and p and f and ns):
        continue
    if t.group(1) == "invoke":
        invokes[p.group(1)] = int(ns.group(1))
        continue
    start = invokes.pop(p.group(1), None)
    if t.group(1) in ops:
        ops[t.group(1)] += 1
    if t.group(1) == "ok" and start is not None and f.group(1) in lat:
        lat[f.group(1)].append((int(ns.group(1)) - start) / 1e6)
def q(values, p):
    if not values:
        return "?"
    values = sorted(values)
    return "%.1f" % values[min(len(values) - 1, int(p * len(values)))]
for f in ("send", "poll"):
    print("%s_p50_ms %s" % (f, q(lat[f], 0.5)))
    print("%s_p99_ms %s" % (f, q(lat[f], 0.99)))
print("ops_ok_info_fail %d/%d/%d" % (ops["ok"], ops["info"], ops["fail"]))
PY
}

failures=0
valids=0
for k in $(seq 1 "$runs"); do
  run_seed=$((seed + k - 1))
  name="n${nodes}-${faults//,/+}${partition_tag}$([ "$raft" = ratis ] || echo "-$raft")$([ "$amnesia" = 0 ] || echo -amnesia)-seed${run_seed}"
  work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-faults-XXXXXX")
  mkdir -p "$work/fault-dir"
  status=0
  start=$(date +%s)
  (cd "$work" && CAIRN_MAELSTROM_NODE_ARGS="$node_args" CAIRN_FAULTS="$faults" CAIRN_FAULT_DIR="$work/fault-dir" \
    CAIRN_FAULT_SEED="$run_seed" CAIRN_FAULT_INTERVAL_S="$interval" CAIRN_FAULT_DURATION_S="$time_limit" \
    CAIRN_FAULT_AMNESIA="$amnesia" \
    timeout "$run_limit_s" "$maelstrom" test -w kafka --bin "$wrapper" --node-count "$nodes" --concurrency 2n \
    --time-limit "$time_limit" --rate "$rate" ${extra[@]+"${extra[@]}"} >"$work/maelstrom.log" 2>&1) || status=$?
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  store="$work/store/latest"
  log="$work/fault-dir/faults.log"
  kills=$(grep -c ' kill pid=' "$log" 2>/dev/null || true)
  pauses=$(grep -c ' pause pid' "$log" 2>/dev/null || true)
  clocks=$(grep -c ' clock offset=' "$log" 2>/dev/null || true)
  skipped=$(grep -c ' skipped: ' "$log" 2>/dev/null || true)
  crashes=$(grep -c ' crash ' "$log" 2>/dev/null || true)
  verdict="valid"
  if [ "$status" -ne 0 ]; then
    verdict="NOT-valid(exit-$status)"
  fi
  summary=""
  if [ -f "$store/results.edn" ] && [ -f "$store/history.edn" ]; then
    summary=$(summarise "$store" | tr '\n' ' ')
  fi
  echo "run-faults: $name: $verdict; ${summary}faults: kill=${kills:-0} pause=${pauses:-0} clock=${clocks:-0}" \
    "skipped=${skipped:-0} node-crash=${crashes:-0}; $(( $(date +%s) - start )) s; load average $load"
  if [ "$status" -eq 0 ]; then
    valids=$((valids + 1))
  else
    failures=$((failures + 1))
  fi
  keep_this=""
  if [ -n "$keep" ]; then
    keep_this="$keep/$name"
  fi
  if [ "$status" -ne 0 ] && [ -z "$keep_this" ]; then
    keep_this="$work/kept"
  fi
  if [ -n "$keep_this" ]; then
    mkdir -p "$keep_this"
    if [ -d "$store" ]; then
      cp -rL "$store" "$keep_this/store"
    fi
    cp "$work/maelstrom.log" "$keep_this/" 2>/dev/null || true
    cp "$log" "$keep_this/" 2>/dev/null || true
    echo "run-faults: $name: kept in $keep_this"
  fi
  if [ "$status" -ne 0 ] && [ "$expect_invalid" = 0 ]; then
    echo "run-faults: $name: NOT valid (exit $status)" >&2
    [ -f "$store/results.edn" ] && grep -E ':valid\? (false|:unknown)' "$store/results.edn" | head -10 >&2 || true
    tail -20 "$work/maelstrom.log" >&2
  fi
  if [ "$status" -eq 0 ] || [ "$keep_this" != "$work/kept" ]; then
    rm -rf "$work"
  fi
done
echo "run-faults: $valids valid, $failures not valid"
if [ "$expect_invalid" = 1 ]; then
  [ "$valids" -eq 0 ]
else
  [ "$failures" -eq 0 ]
fi
