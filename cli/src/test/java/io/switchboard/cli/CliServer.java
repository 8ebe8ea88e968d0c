package io.switchboard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An in-process server for a test class, and the command line run in-process against it: register
 * it with {@code @RegisterExtension static final CliServer cli = new CliServer();} and call {@link
 * #run(String...)}; a test that starts its own servers calls {@link #run(SwitchboardServer,
 * String...)}.
 */
final class CliServer implements BeforeAllCallback, AfterAllCallback {

  private SwitchboardServer server;

  /** What one command did: its exit code and what it printed. */
  record Run(int code, String out, String err) {
    JsonNode json() {
      return WireFormat.parse(out.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    server = SwitchboardServer.start(ServerConfig.forTests());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    server.stop();
  }

  /** Runs {@code switchboard ARGS --server URL} against this class's server. */
  Run run(String... args) {
    return run(server, args);
  }

  /**
   * Runs {@code switchboard ARGS --server URL} in-process against {@code server}: for tests that
   * start a server per test or several servers.
   */
  static Run run(SwitchboardServer server, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--server";
    all[args.length + 1] = server.uri().toString();
    int code =
        Main.run(
            all,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
