package io.switchboard.cli;

import io.switchboard.server.ServerConfig;
import io.switchboard.server.SwitchboardServer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard server}: runs the server in the foreground until SIGTERM or Ctrl-C, then stops
 * gracefully. Flags beat {@code SWITCHBOARD_*} variables, which beat the config file.
 */
@Command(
    name = "server",
    description = {
      "Run the Switchboard server in the foreground (stop with Ctrl-C or SIGTERM).",
      "Each flag can also be set by a SWITCHBOARD_* variable (e.g. SWITCHBOARD_PORT) or a",
      "config file of key=value lines (--config); flags win over variables, variables over the file."
    })
final class ServerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--port", description = "TCP port (default 8080; 0 = any free port)")
  Integer port;

  @Option(names = "--bind", description = "address to listen on (default 127.0.0.1)")
  String bind;

  @Option(names = "--data-dir", description = "directory of the durable store (default ./data)")
  String dataDir;

  @Option(
      names = "--durability",
      description = "sync | batch | none: when the durable store acknowledges (default sync)")
  String durability;

  @Option(
      names = "--in-memory",
      arity = "0..1",
      fallbackValue = "true",
      description = "keep everything in memory; lost when the server stops")
  Boolean inMemory;

  @Option(names = "--config", description = "config file (Java properties: port=8080, ...)")
  String config;

  @Option(names = "--max-body-bytes", description = "largest request body (default 4194304)")
  Integer maxBodyBytes;

  @Option(names = "--max-batch", description = "most messages per send batch (default 100)")
  Integer maxBatch;

  @Option(names = "--max-selector-length", description = "longest selector (default 4096)")
  Integer maxSelectorLength;

  @Option(names = "--max-queues", description = "most queues (default 10000)")
  Integer maxQueues;

  @Option(
      names = "--shutdown-grace-seconds",
      description = "how long a stop waits for requests in flight (default 10)")
  Integer shutdownGraceSeconds;

  @Option(
      names = "--sqs-access-keys",
      description =
          "verify SQS SigV4 signatures with these keys, ID:SECRET[,ID:SECRET...] (default: not"
              + " verified; prefer SWITCHBOARD_SQS_ACCESS_KEYS, a flag shows in ps)")
  String sqsAccessKeys;

  @Option(
      names = "--sqs-account-id",
      description = "the 12-digit account id of SQS queue URLs and ARNs (default 000000000000)")
  String sqsAccountId;

  @Option(
      names = "--sqs-default-region",
      description =
          "the region of unsigned SQS requests whose host names none; its queues are the native"
              + " API's (default us-east-1)")
  String sqsDefaultRegion;

  @Option(
      names = "--routing-strategy",
      description = "longest-idle | least-occupied | highest:<attribute> (default longest-idle)")
  String routingStrategy;

  @Option(names = "--routing-offer-timeout", description = "offer timeout, 1s..1h (default 30s)")
  String routingOfferTimeout;

  @Option(
      names = "--routing-miss-limit",
      description = "missed offers in a row that set an agent away, 0 = never (default 3)")
  Integer routingMissLimit;

  @Option(
      names = "--routing-auto-accept",
      description = "channels whose offers are accepted at once, e.g. voice,chat (default none)")
  String routingAutoAccept;

  @Option(
      names = "--routing-wrap-up",
      description = "wrap-up per channel, e.g. chat=30s,voice=10s (default none)")
  String routingWrapUp;

  @Option(
      names = "--routing-service-level",
      description = "service level: answered within, 1s..1h (default 20s)")
  String routingServiceLevel;

  @Option(
      names = "--routing-stats-window",
      description = "sliding window of routing statistics, 1m..24h (default 15m)")
  String routingStatsWindow;

  @Option(
      names = "--routing-event-history",
      description = "routing events kept for resuming clients, 16..1000000 (default 10000)")
  Integer routingEventHistory;

  @Option(
      names = "--routing-contact-history",
      description = "finished contacts kept readable, 0..1000000 (default 10000)")
  Integer routingContactHistory;

  @Option(
      names = "--postgres-url",
      description =
          "JDBC URL of a PostgreSQL database shared by several servers (default: embedded store)")
  String postgresUrl;

  @Option(names = "--postgres-user", description = "PostgreSQL user (or SWITCHBOARD_POSTGRES_USER)")
  String postgresUser;

  @Option(
      names = "--advertise-url",
      description =
          "with --postgres-url: where the other servers reach this one with routing calls while"
              + " it is the routing leader (default http://<bind>:<port>)")
  String advertiseUrl;

  @Option(
      names = "--routing-lease",
      description =
          "with --postgres-url: the routing leader's lease, 1s..5m; a dead leader is replaced"
              + " within about this long (default 5s)")
  String routingLease;

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig resolved = ServerConfig.resolve(flags(), System.getenv());
    SwitchboardServer server = SwitchboardServer.start(resolved);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.stop();
                  stopped.countDown();
                },
                "switchboard-shutdown"));
    spec.commandLine()
        .getOut()
        .println(
            "Switchboard is listening on "
                + server.uri()
                + (resolved.postgres().isPresent()
                    ? " (queues in PostgreSQL at " + resolved.postgres().get().displayUrl() + ")"
                    : resolved.inMemory() ? " (in memory: queues are lost when it stops)" : "")
                + "; stop with Ctrl-C");
    spec.commandLine().getOut().flush();
    stopped.await();
    return Main.OK;
  }

  Map<String, String> flags() {
    Map<String, String> flags = new LinkedHashMap<>();
    put(flags, "port", port);
    put(flags, "bind", bind);
    put(flags, "data-dir", dataDir);
    put(flags, "durability", durability);
    put(flags, "in-memory", inMemory);
    put(flags, "config", config);
    put(flags, "max-body-bytes", maxBodyBytes);
    put(flags, "max-batch", maxBatch);
    put(flags, "max-selector-length", maxSelectorLength);
    put(flags, "max-queues", maxQueues);
    put(flags, "shutdown-grace-seconds", shutdownGraceSeconds);
    put(flags, "sqs-access-keys", sqsAccessKeys);
    put(flags, "sqs-account-id", sqsAccountId);
    put(flags, "sqs-default-region", sqsDefaultRegion);

    put(flags, "routing-strategy", routingStrategy);
    put(flags, "routing-offer-timeout", routingOfferTimeout);
    put(flags, "routing-miss-limit", routingMissLimit);
    put(flags, "routing-auto-accept", routingAutoAccept);
    put(flags, "routing-wrap-up", routingWrapUp);
    put(flags, "routing-service-level", routingServiceLevel);
    put(flags, "routing-stats-window", routingStatsWindow);
    put(flags, "routing-event-history", routingEventHistory);
    put(flags, "routing-contact-history", routingContactHistory);
    put(flags, "postgres-url", postgresUrl);
    put(flags, "postgres-user", postgresUser);
    put(flags, "advertise-url", advertiseUrl);
    put(flags, "routing-lease", routingLease);
    return flags;
  }

  private static void put(Map<String, String> flags, String key, Object value) {
    if (value != null) {
      flags.put(key, value.toString());
    }
  }
}
