#!/bin/sh
# The routing benchmark in one command (docs/benchmarks.md, "Routing"): Switchboard's router vs
# the seed-004 algorithm on a real Redis server vs a linear scan, in one run. Builds the bench jar
# when it is missing or older than the sources, installs redis-server from the Debian packages
# when it is not on the PATH (as root; the benchmark itself starts it on a free loopback port with
# persistence off and stops it at the end), then runs
# io.switchboard.bench.routing.RoutingBench with the arguments given, e.g.
#   bench/routing.sh                          # 10,000 agents, 100,000 waiting contacts
#   bench/routing.sh --targets switchboard,linear --cycles 5000
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bin/find-jdk.sh"
jar="$root/bench/target/benchmarks.jar"
if [ ! -f "$jar" ] || [ -n "$(find "$root/core/src" "$root/bench/src" "$root/pom.xml" \
    "$root/bench/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
  echo "routing.sh: building bench/target/benchmarks.jar..." >&2
  (cd "$root" && ./mvnw -q -B -pl bench -am package -DskipTests) >&2
fi
case " $* " in
  *" --targets "*) case "$*" in *redis*) wants_redis=1 ;; *) wants_redis=0 ;; esac ;;
  *) wants_redis=1 ;;
esac
if [ "$wants_redis" = 1 ] && ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "routing.sh: installing redis-server from the Debian packages..." >&2
    apt-get install -y -q redis-server >&2 || { apt-get update -q >&2 && apt-get install -y -q redis-server >&2; }
  else
    echo "routing.sh: redis-server is not on the PATH; install it (apt-get install -y redis-server)" \
      "or pass --targets switchboard,linear" >&2
    exit 1
  fi
fi
java="java"
if [ -n "${JAVA_HOME-}" ]; then java="$JAVA_HOME/bin/java"; fi
cd "$root"
exec "$java" -Xms2g -Xmx6g -cp "$jar" io.switchboard.bench.routing.RoutingBench "$@"
