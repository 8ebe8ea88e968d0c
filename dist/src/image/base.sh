#!/bin/sh
# Builds the container image's base image without pulling anything: a Java runtime jlinked from the
# build's JDK, the C libraries it (and RocksDB's JNI library) load, taken from the build machine,
# a passwd entry for the non-root user 10001, /tmp, and /data owned by that user. Written as a
# one-layer image archive (the `docker save` format) OUT_DIR.tar, which Jib takes as its base
# (`tar://`) and puts the application's layers on (dist/pom.xml, profile image;
# docs/decisions.md says why).
#   base.sh JDK_HOME ROCKSDB_JAR OUT_DIR
set -eu
jdk=$1 rocksdb_jar=$2 out=$3
for tool in ldd sha256sum tar; do
  command -v $tool >/dev/null 2>&1 || { echo "base.sh: needs $tool (GNU coreutils, tar, glibc's ldd)" >&2; exit 1; }
done

if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
  echo "base.sh: the image is linux/amd64 and its runtime is jlinked from the build's JDK: build it on Linux x86_64 (this is $(uname -s) $(uname -m))" >&2
  exit 1
fi

# The modules the server's jars need (jdeps --print-module-deps over cli/target/lib, 2026-11-25),
# plus TLS with EC keys, DNS for JNDI, JFR and jcmd for diagnostics.
modules=java.base,java.desktop,java.naming,java.net.http,java.security.jgss,java.sql,jdk.management,jdk.unsupported,jdk.crypto.ec,jdk.naming.dns,jdk.zipfs,jdk.jfr,jdk.jcmd

rm -rf "$out"
mkdir -p "$out/rootfs"
root=$out/rootfs
mkdir -p "$root/opt" "$root/etc" "$root/tmp" "$root/data" "$root/proc" "$root/dev" "$root/sys"
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=zip-6 --output "$root/opt/java"

# RocksDB's JNI library for this platform, only to ask ldd what it needs (the JVM extracts it
# from the jar at run time).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && "$jdk/bin/jar" xf "$rocksdb_jar" librocksdbjni-linux64.so)

# Every library the runtime's binaries load, but the X11 and sound ones (a headless server never
# loads libawt_xawt, libjawt, libsplashscreen or libjsound), with the loader.
{
  for f in "$root/opt/java/bin/"* "$root/opt/java/lib/"*.so "$root/opt/java/lib/server/"*.so \
      "$scratch/librocksdbjni-linux64.so"; do
    case $(basename "$f") in libawt_xawt.so|libjawt.so|libsplashscreen.so|libjsound.so) continue ;; esac
    ldd "$f" 2>/dev/null || true
  done
} | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*ld-linux[^ ]*\) .*/\1/p' | sort -u |
while read -r lib; do
  case $lib in "$root"/*) continue ;; esac
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
# The loader where binaries look for it, whichever directory ldd named.
if [ ! -e "$root/lib64/ld-linux-x86-64.so.2" ]; then
  mkdir -p "$root/lib64"
  cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
fi

cat > "$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
switchboard:x:10001:10001:Switchboard:/data:/sbin/nologin
PASSWD
cat > "$root/etc/group" <<'GROUP'
root:x:0:
switchboard:x:10001:
GROUP
chmod 1777 "$root/tmp"
chmod 700 "$root/data"

# The layer: reproducible (sorted, time 0, numeric owners), root's but /data, the user's.
layer=$out/layer.tar
tar --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 --exclude=./data \
  -C "$root" -cf "$layer" .
tar --mtime=@0 --numeric-owner --owner=10001 --group=10001 -C "$root" -rf "$layer" ./data
diff_id=$(sha256sum "$layer" | cut -d' ' -f1)
cat > "$out/config.json" <<CONFIG
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
 "config":{"Env":["PATH=/opt/java/bin:/usr/bin:/bin","JAVA_HOME=/opt/java"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},
 "history":[{"created":"1970-01-01T00:00:00Z","created_by":"dist/src/image/base.sh: jlink $modules"}]}
CONFIG
echo '[{"Config":"config.json","RepoTags":["switchboard-base:local"],"Layers":["layer.tar"]}]' > "$out/manifest.json"
tar --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 -C "$out" \
  -cf "$out.tar" manifest.json config.json layer.tar
echo "base.sh: base image $out.tar ($(du -sh "$out.tar" | cut -f1))"
