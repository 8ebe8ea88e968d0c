#!/bin/sh
# Kept for old notes: the routing benchmark is the run.sh entry "routing" (docs/benchmarks.md,
# "Routing"), which installs redis-server when missing and writes bench/results/routing/.
exec "$(dirname "$0")/run.sh" routing "$@"
