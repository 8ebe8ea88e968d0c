#!/usr/bin/env bash
# Runs one benchmark entry point, or all of them, on this machine:
#
#   bench/run.sh <name> [options of that entry point]   e.g. bench/run.sh sqs --threads 8
#   bench/run.sh all                                     every entry with its defaults (~30 min)
#   bench/run.sh list                                    the names and their main classes
#
# Each entry prints a table and writes <name>.csv (the run's JDK, CPUs, commit, date and command
# in its '#' header) and <name>.png under bench/results/<name>/ (git-ignored), or under --out DIR.
# Builds bench/target/benchmarks.jar first unless SKIP_BUILD=1. JVM flags for the load generator
# go in BENCH_JAVA_OPTS. See docs/benchmarks.md, "How to reproduce".
set -euo pipefail
cd "$(dirname "$0")/.."

# name, main class, default JVM flags (the ones the documented figures used)
entries() {
  cat <<'LIST'
engine       io.switchboard.bench.EngineBench                      -Xmx1g
sqs          io.switchboard.bench.sqs.SqsBench                     -Xmx1g
native-e2e   io.switchboard.bench.e2e.NativeApiBench               -Xmx2g
filtered     io.switchboard.bench.filter.FilteredReceiveBench      -Xmx12g
durable      io.switchboard.bench.durable.DurableSendBench         --enable-native-access=ALL-UNNAMED
recovery     io.switchboard.bench.durable.RecoveryBench            --enable-native-access=ALL-UNNAMED -Xmx4g
backlog      io.switchboard.bench.durable.BacklogBench             -Xmx1g
backlog-filtered io.switchboard.bench.durable.ColdFilterBench       -Xmx1g --enable-native-access=ALL-UNNAMED
churn        io.switchboard.bench.durable.ChurnBench               -Xmx1g
routing      io.switchboard.bench.routing.RoutingBench             -Xms6g -Xmx6g -XX:+AlwaysPreTouch
heap         io.switchboard.bench.HeapPerMessage                   -XX:+UseParallelGC -Xms4g -Xmx4g
postgres     io.switchboard.bench.postgres.PostgresBench           -Xmx2g
caps         io.switchboard.bench.limits.CapsBench                 -Xmx1g
selector-stall io.switchboard.bench.limits.SelectorStallBench      -Xmx1g
auth         io.switchboard.bench.auth.AuthBench                   -Xmx1g
auth-step    io.switchboard.bench.auth.AuthStepBench               -Xmx1g
fair-queue   io.switchboard.bench.FairQueueBench                   -Xmx1g
http-stacks  io.switchboard.bench.http.HttpStackBench             -Xmx1g
queues       io.switchboard.bench.QueuesBench                      -Xmx2g --enable-native-access=ALL-UNNAMED
queues-server io.switchboard.bench.QueuesServerBench               -Xmx1g
workqueue    io.switchboard.bench.grpc.WorkQueueBench              -Xmx1g
push         io.switchboard.bench.PushBench                        -Xmx1g
dynamodb     io.switchboard.bench.dynamodb.DynamoBench            -Xmx1g
LIST
}

# The routing entry compares against seed 004 on a real Redis server: install redis-server from
# the distribution's packages when it is missing (as root, with apt-get), unless --targets leaves
# redis out. The benchmark starts its own server on a free loopback port and stops it at the end.
ensure_redis() {
  local targets=""
  while [ $# -gt 0 ]; do
    case $1 in
      --targets) targets=${2-}; shift ;;
      --targets=*) targets=${1#--targets=} ;;
    esac
    shift
  done
  if [ -n "$targets" ] && [[ ",$targets," != *,redis,* ]]; then
    return 0
  fi
  if command -v redis-server >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "run.sh: installing redis-server from the distribution's packages..." >&2
    apt-get install -y -q redis-server >&2 ||
      { apt-get update -q >&2 && apt-get install -y -q redis-server >&2; }
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "run.sh: redis-server is not on the PATH and could not be installed; install it" \
      "(apt-get install -y redis-server) or pass --targets switchboard,linear" >&2
    exit 1
  fi
}

# The workqueue entry compares against RabbitMQ on this machine: install rabbitmq-server from the
# distribution's packages when it is missing (as root, with apt-get) and start it when no node
# answers, unless --targets names no RabbitMQ target. A node this script started is stopped at the
# end (rabbitmqctl stop); one that was running already is left running.
ensure_rabbitmq() {
  local targets="grpc,quorum,classic"
  while [ $# -gt 0 ]; do
    case $1 in
      --targets) targets=${2-}; shift ;;
      --targets=*) targets=${1#--targets=} ;;
    esac
    shift
  done
  if [[ ",$targets," != *,quorum,* && ",$targets," != *,classic,* && ",$targets," != *,transient,* &&
    ",$targets," != *,latency-quorum,* ]]; then
    return 0
  fi
  if ! command -v rabbitmq-server >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "run.sh: installing rabbitmq-server from the distribution's packages..." >&2
    apt-get install -y -q rabbitmq-server >&2 ||
      { apt-get update -q >&2 && apt-get install -y -q rabbitmq-server >&2; }
  fi
  if ! command -v rabbitmq-server >/dev/null 2>&1; then
    echo "run.sh: rabbitmq-server is not on the PATH and could not be installed; install it" \
      "(apt-get install -y rabbitmq-server) or pass --targets grpc,grpc-memory" >&2
    exit 1
  fi
  if ! rabbitmqctl -q status >/dev/null 2>&1; then
    echo "run.sh: starting rabbitmq-server..." >&2
    rabbitmq-server -detached >&2
    started_rabbitmq=1
    rabbitmqctl -q wait --timeout 120 "${RABBITMQ_PID_FILE:-/var/lib/rabbitmq/mnesia/rabbit@$(hostname -s).pid}" >&2 ||
      rabbitmqctl -q await_startup --timeout 120 >&2
  fi
}
started_rabbitmq=0

usage() {
  echo "usage: bench/run.sh <name>|all|list [options of the entry point]" >&2
  echo "names: $(entries | awk '{print $1}' | tr '\n' ' ')" >&2
  exit 2
}

[ $# -ge 1 ] || usage
name=$1
shift

if [ "$name" = list ]; then
  entries
  exit 0
fi

if [ "$name" != all ] && ! entries | awk '{print $1}' | grep -qx -- "$name"; then
  echo "unknown benchmark '$name'" >&2
  usage
fi

. bin/find-jdk.sh
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

if [ "${SKIP_BUILD-}" != 1 ]; then
  ./mvnw -B -q -pl bench -am package -DskipTests
fi
JAR=bench/target/benchmarks.jar

run_one() {
  local entry=$1
  shift
  local line class flags
  line=$(entries | awk -v n="$entry" '$1 == n')
  class=$(echo "$line" | awk '{print $2}')
  flags=$(echo "$line" | awk '{for (i = 3; i <= NF; i++) printf "%s ", $i}')
  echo "== $entry: $class" >&2
  if [ "$entry" = routing ]; then
    ensure_redis "$@"
  fi
  if [ "$entry" = workqueue ]; then
    ensure_rabbitmq "$@"
  fi
  # shellcheck disable=SC2086  # flags are words on purpose
  "$JAVA" $flags ${BENCH_JAVA_OPTS-} -cp "$JAR" "$class" "$@"
  if [ "$started_rabbitmq" = 1 ]; then
    rabbitmqctl -q stop >&2 || true
    started_rabbitmq=0
  fi
}

if [ "$name" = all ]; then
  [ $# -eq 0 ] || { echo "'all' takes no options; run entries one by one to pass some" >&2; exit 2; }
  for entry in $(entries | awk '{print $1}'); do
    run_one "$entry"
  done
else
  run_one "$name" "$@"
fi
