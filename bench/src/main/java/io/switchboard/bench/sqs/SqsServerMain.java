package io.switchboard.bench.sqs;

import io.switchboard.server.ServerConfig;
import io.switchboard.server.SwitchboardServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

/**
 * The server side of {@link SqsBench}, run in its own JVM so the load generator does not share a
 * heap, a JIT and a GC with it: {@code SqsServerMain switchboard|elasticmq}. It listens on a free
 * loopback port, prints {@code LISTENING <port>} on standard output, and stops when its standard
 * input closes (so it never outlives the benchmark that started it).
 */
public final class SqsServerMain {

  /** The line a started server prints, followed by its port. */
  static final String READY = "LISTENING ";

  private SqsServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: SqsServerMain switchboard|elasticmq");
      System.exit(2);
    }
    Runnable stop;
    int port;
    switch (args[0]) {
      case "switchboard" -> {
        SwitchboardServer server =
            SwitchboardServer.start(
                ServerConfig.resolve(
                    Map.of("port", "0", "bind", "127.0.0.1", "in-memory", "true"), Map.of()));
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
    System.out.println(READY + port);
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // the parent never writes; end of input means it is done (or gone)
    }
    stop.run();
    System.exit(0);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
