package io.switchboard.bench.routing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A {@code redis-server} from the {@code PATH}, started as a child process on a free loopback port
 * with persistence off (no RDB snapshots, no AOF) and stopped by {@link #close()}.
 */
final class RedisServer implements AutoCloseable {

  private final Process process;
  private final Path dir;
  private final int port;
  private final String version;

  private RedisServer(Process process, Path dir, int port, String version) {
    this.process = process;
    this.dir = dir;
    this.port = port;
    this.version = version;
  }

  /** The {@code redis-server} executable on the PATH, if there is one. */
  static Optional<Path> executable() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Starts a server and waits (at most 10 s) until it answers PING. */
  static RedisServer start() throws IOException, InterruptedException {
    Path exe =
        executable()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "redis-server is not on the PATH; install it (apt-get install -y"
                            + " redis-server) or leave redis out of --targets"));
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path dir = Files.createTempDirectory("routingbench-redis");
    Process p =
        new ProcessBuilder(
                List.of(
                    exe.toString(),
                    "--port",
                    Integer.toString(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    dir.toString(),
                    "--protected-mode",
                    "yes",
                    "--loglevel",
                    "warning"))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try (Jedis j = new Jedis("127.0.0.1", port, 1_000)) {
        j.ping();
        String info = j.info("server");
        String version =
            info.lines()
                .filter(l -> l.startsWith("redis_version:"))
                .map(l -> l.substring("redis_version:".length()).trim())
                .findFirst()
                .orElse("unknown");
        return new RedisServer(p, dir, port, version);
      } catch (JedisConnectionException notYet) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          p.destroyForcibly();
          throw new IllegalStateException(
              "redis-server did not start on port " + port + ": " + log(dir), notYet);
        }
        Thread.sleep(20);
      }
    }
  }

  int port() {
    return port;
  }

  String version() {
    return version;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      Files.deleteIfExists(dir.resolve("redis.log"));
      Files.deleteIfExists(dir);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("redis.log"));
    } catch (IOException e) {
      return "(no log)";
    }
  }
}
