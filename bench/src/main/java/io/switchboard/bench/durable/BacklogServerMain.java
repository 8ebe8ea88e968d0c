package io.switchboard.bench.durable;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The server side of {@link BacklogBench}: {@code BacklogServerMain name=value ...}, a Switchboard
 * server on the embedded store with those settings on a free loopback port. It prints {@code
 * LISTENING <port>} once ready (the engine recovered), answers each {@code stats} line on standard
 * input with {@code STATS <heap bytes in use after a full GC>}, and stops when standard input
 * closes: the protocol {@code io.switchboard.bench.sqs.ChildServer} reads (its {@code
 * allocatedBytes} is then the heap in use after a full GC).
 */
public final class BacklogServerMain {

  private BacklogServerMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = new HashMap<>();
    flags.put("port", "0");
    flags.put("bind", "127.0.0.1");
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        System.err.println("server settings are name=value, got " + a);
        System.exit(2);
      }
      flags.put(a.substring(0, eq), a.substring(eq + 1));
    }
    SwitchboardServer server = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
    System.out.println("LISTENING " + server.uri().getPort());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.trim().equals("stats")) {
        System.gc();
        System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.println("STATS " + used);
        System.out.flush();
      }
    }
    server.stop();
    System.exit(0);
  }
}
