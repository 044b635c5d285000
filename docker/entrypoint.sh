#!/bin/sh
# Cairn container entrypoint (POSIX sh; also runs outside Docker, see EntrypointIT).
#
#   entrypoint.sh [start] [ARGS...]   start the broker (the default)
#   entrypoint.sh healthcheck         exit 0 when the broker serves and has joined its cluster
#   entrypoint.sh topics|groups ...   any other broker CLI command, passed through
#
# start and healthcheck read the same configuration: the properties file $CAIRN_CONFIG (if it exists), then
# one override per environment variable CAIRN_<KEY>, where <KEY> is a broker key upper-cased with dots as
# underscores (CAIRN_NODE_ID=2 sets node.id=2, CAIRN_RAFT_VOTERS sets raft.voters), then ARGS. Unknown keys
# stop the broker with a message naming them.
#
# Settings of the script itself (not broker keys):
#   CAIRN_CONFIG                  properties file (default /etc/cairn/broker.properties)
#   CAIRN_JAR                     broker jar (default /opt/cairn/cairn-broker.jar)
#   CAIRN_JAVA_OPTS               JVM options for the broker
#   CAIRN_HEALTHCHECK_JAVA_OPTS   JVM options for healthcheck and admin commands (default: small heap, fast start)
#   JAVA_HOME                     the JRE to use (default: java on PATH)
set -eu

CAIRN_CONFIG="${CAIRN_CONFIG:-/etc/cairn/broker.properties}"
CAIRN_JAR="${CAIRN_JAR:-/opt/cairn/cairn-broker.jar}"
if [ -n "${JAVA_HOME:-}" ]; then
  java="$JAVA_HOME/bin/java"
else
  java=java
fi

command=start
if [ "$#" -gt 0 ]; then
  case "$1" in
    start | healthcheck) command="$1"; shift ;;
    -*) ;;
    *) exec "$java" ${CAIRN_HEALTHCHECK_JAVA_OPTS:--Xmx64m -XX:TieredStopAtLevel=1} -jar "$CAIRN_JAR" "$@" ;;
  esac
fi

# Put the configuration arguments before the caller's: remember how many the caller gave, append ours, then
# rotate the caller's to the end.
caller_args=$#
if [ -f "$CAIRN_CONFIG" ]; then
  set -- "$@" --config "$CAIRN_CONFIG"
fi
for name in $(env | sed -n 's/^\(CAIRN_[A-Z0-9_]*\)=.*/\1/p' | sort); do
  case "$name" in
    CAIRN_CONFIG | CAIRN_JAR | CAIRN_JAVA_OPTS | CAIRN_HEALTHCHECK_JAVA_OPTS) continue ;;
  esac
  key=$(printf '%s' "${name#CAIRN_}" | tr 'A-Z_' 'a-z.')
  eval "value=\${$name}"
  set -- "$@" --set "$key=$value"
done
while [ "$caller_args" -gt 0 ]; do
  set -- "$@" "$1"
  shift
  caller_args=$((caller_args - 1))
done

if [ "$command" = healthcheck ]; then
  exec "$java" ${CAIRN_HEALTHCHECK_JAVA_OPTS:--Xmx64m -XX:TieredStopAtLevel=1} -jar "$CAIRN_JAR" healthcheck "$@"
fi
# exec: the JVM becomes this process, so SIGTERM from `docker stop` reaches it and it shuts down cleanly.
exec "$java" -XX:+ExitOnOutOfMemoryError ${CAIRN_JAVA_OPTS:-} -jar "$CAIRN_JAR" start "$@"
