# Shared by the bench scripts (sourced, not run): fetching Kafka 4.4 and waiting for a broker. Expects $here (the
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
