# Sourced by ./mvnw and ./switchboard (POSIX sh). Switchboard targets Java 21: when JAVA_HOME
# (or the java on PATH) is older, look for a JDK 21+ among the installed JVMs and export it as
# JAVA_HOME, so that a fresh machine whose default java is 17 builds without hand setup.
# Set SWITCHBOARD_NO_JDK_SEARCH=1 to turn the search off (the build then fails with a clear
# message from the Maven enforcer rule when the JDK is too old).

sb_jdk_major() {
  # Prints the feature version of the JDK at $1 (e.g. 21), or nothing if it is not a JDK.
  [ -x "$1/bin/javac" ] || return 0
  if [ -f "$1/release" ]; then
    sed -n 's/^JAVA_VERSION="\(1\.\)\{0,1\}\([0-9]*\).*/\2/p' "$1/release" | head -n 1
  else
    "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\(1\.\)\{0,1\}\([0-9]*\).*/\2/p' | head -n 1
  fi
}

sb_find_jdk() {
  sb_min=21
  if [ -n "${JAVA_HOME-}" ]; then
    sb_v=$(sb_jdk_major "$JAVA_HOME")
    [ -n "$sb_v" ] && [ "$sb_v" -ge "$sb_min" ] && return 0
  elif command -v javac >/dev/null 2>&1; then
    sb_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    sb_v=$(sb_jdk_major "$sb_home")
    if [ -n "$sb_v" ] && [ "$sb_v" -ge "$sb_min" ]; then
      JAVA_HOME=$sb_home
      export JAVA_HOME
      return 0
    fi
  fi
  [ "${SWITCHBOARD_NO_JDK_SEARCH-}" = "1" ] && return 0
  sb_best=""
  sb_best_v=0
  sb_noglob=""
  case $- in *f*) sb_noglob=1 ;; esac
  set +f
  for sb_cand in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /usr/local/jdk* \
      "${HOME-}"/.sdkman/candidates/java/* "${HOME-}"/.jdks/* "${HOME-}"/.m2/jdks/*; do
    [ -d "$sb_cand" ] || continue
    sb_v=$(sb_jdk_major "$sb_cand")
    [ -n "$sb_v" ] || continue
    if [ "$sb_v" -ge "$sb_min" ] && [ "$sb_v" -gt "$sb_best_v" ]; then
      sb_best=$sb_cand
      sb_best_v=$sb_v
    fi
  done
  if [ -n "$sb_noglob" ]; then set -f; fi
  if [ -n "$sb_best" ]; then
    JAVA_HOME=$sb_best
    export JAVA_HOME
  fi
  return 0
}

sb_find_jdk
