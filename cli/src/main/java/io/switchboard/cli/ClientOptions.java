package io.switchboard.cli;

import io.switchboard.client.SwitchboardClient;
import java.net.URI;
import picocli.CommandLine.Option;

/** Options every client command shares: where the server is, and people or scripts. */
final class ClientOptions {

  @Option(
      names = "--server",
      paramLabel = "URL",
      description = "server URL (default $SWITCHBOARD_SERVER or http://127.0.0.1:8080)")
  String server;

  @Option(names = "--json", description = "print JSON (the API's own) instead of tables")
  boolean json;

  SwitchboardClient client() {
    String url = server;
    if (url == null) {
      url = System.getenv().getOrDefault("SWITCHBOARD_SERVER", "http://127.0.0.1:8080");
    }
    return SwitchboardClient.create(URI.create(url));
  }
}
