package io.switchboard.bench.sqs;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

/**
 * The server side of {@link SqsBench} and {@code AuthBench}, run in its own JVM so the load
 * generator does not share a heap, a JIT and a GC with it: {@code SqsServerMain
 * switchboard|elasticmq [name=value ...]}, the pairs being extra Switchboard settings (e.g. {@code
 * access-keys=ID:SECRET}). It listens on a free loopback port, prints {@code LISTENING <port>} on
 * standard output, answers each {@code stats} line on its standard input with {@code STATS
 * <allocated bytes>} (heap bytes all its threads allocated so far, or -1), and stops when its
 * standard input closes (so it never outlives the benchmark that started it).
 */
public final class SqsServerMain {

  /** The line a started server prints, followed by its port. */
  static final String READY = "LISTENING ";

  /** The answer to a {@code stats} line, followed by the allocated bytes. */
  static final String STATS = "STATS ";

  private SqsServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || (args.length > 1 && !args[0].equals("switchboard"))) {
      System.err.println("usage: SqsServerMain switchboard [name=value ...] | elasticmq");
      System.exit(2);
    }
    Runnable stop;
    int port;
    switch (args[0]) {
      case "switchboard" -> {
        Map<String, String> flags = new HashMap<>();
        flags.put("port", "0");
        flags.put("bind", "127.0.0.1");
        flags.put("in-memory", "true");
        for (int i = 1; i < args.length; i++) {
          int eq = args[i].indexOf('=');
          if (eq <= 0) {
            System.err.println("server settings are name=value, got " + args[i]);
            System.exit(2);
          }
          flags.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        SwitchboardServer server = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
        port = server.uri().getPort();
        stop = server::stop;
      }
      case "elasticmq" -> {
        port = freePort();
        SQSRestServer server =
            SQSRestServerBuilder.withInterface("127.0.0.1")
                .withPort(port)
                .withServerAddress(new NodeAddress("http", "127.0.0.1", port, ""))
                .start();
        server.waitUntilStarted();
        stop = server::stopAndWait;
      }
      default -> {
        System.err.println("unknown server " + args[0] + "; expected switchboard or elasticmq");
        System.exit(2);
        return;
      }
    }
    serve(port, stop);
  }

  /**
   * The child side of {@link ChildServer}'s protocol, for a server listening on {@code port}:
   * prints {@code LISTENING <port>}, answers {@code stats} lines until standard input closes, then
   * runs {@code stop} and exits. Shared with {@code io.switchboard.bench.http.StackServerMain}.
   */
  public static void serve(int port, Runnable stop) throws IOException {
    System.out.println(READY + port);
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      // end of input means the parent is done (or gone)
      if (line.trim().equals("stats")) {
        System.out.println(STATS + allocatedBytes());
        System.out.flush();
      }
    }
    stop.run();
    System.exit(0);
  }

  /** Heap bytes every thread of this JVM allocated so far (virtual threads by their carriers). */
  private static long allocatedBytes() {
    return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
            && t.isThreadAllocatedMemorySupported()
            && t.isThreadAllocatedMemoryEnabled()
        ? t.getTotalThreadAllocatedBytes()
        : -1;
  }

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
