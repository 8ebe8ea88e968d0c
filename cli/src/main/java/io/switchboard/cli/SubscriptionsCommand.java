package io.switchboard.cli;

import io.switchboard.client.PushWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard subscriptions create|list|pause|resume|rotate-secret|stats|delete}: a queue's
 * push subscriptions (docs/api.md, "Push subscriptions").
 */
@Command(
    name = "subscriptions",
    description = "Create, list, pause, resume and delete a queue's push subscriptions.",
    subcommands = {
      SubscriptionsCommand.Create.class,
      SubscriptionsCommand.ListThem.class,
      SubscriptionsCommand.Pause.class,
      SubscriptionsCommand.Resume.class,
      SubscriptionsCommand.Rotate.class,
      SubscriptionsCommand.Stats.class,
      SubscriptionsCommand.Delete.class
    })
final class SubscriptionsCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A command about one subscription: QUEUE NAME. */
  abstract static class One extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", paramLabel = "NAME")
    String name;
  }

  @Command(
      name = "create",
      description =
          "Create a push subscription: the server POSTs the queue's messages to URL; prints its"
              + " signing secret, which the server never shows again.")
  static final class Create extends One {
    @Option(names = "--url", required = true, paramLabel = "URL", description = "the endpoint")
    String url;

    @Option(
        names = "--header",
        paramLabel = "NAME=VALUE",
        description = "an extra request header; repeatable")
    List<String> headers = new ArrayList<>();

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "per delivery, 1..60 (10)")
    @Nullable Integer timeout;

    @Option(names = "--selector", paramLabel = "SELECTOR", description = "only matching messages")
    @Nullable String selector;

    @Option(
        names = "--max-concurrent",
        paramLabel = "N",
        description = "deliveries in flight, 1..1000 (10)")
    @Nullable Integer maxConcurrent;

    @Option(
        names = "--max-per-second",
        paramLabel = "RATE",
        description = "deliveries started per second (no rate)")
    @Nullable Double maxPerSecond;

    @Option(
        names = "--burst",
        paramLabel = "N",
        description = "the token bucket's size, 1..10000 (1)")
    @Nullable Integer burst;

    @Option(
        names = "--batch-size",
        paramLabel = "N",
        description = "messages per delivery, 1..100 (1)")
    @Nullable Integer batchSize;

    @Option(
        names = "--batch-window-ms",
        paramLabel = "MS",
        description = "wait to fill a batch, 0..60000 (0)")
    @Nullable Long batchWindow;

    @Option(names = "--min-backoff-ms", paramLabel = "MS", description = "first retry delay (1000)")
    @Nullable Long minBackoff;

    @Option(
        names = "--max-backoff-ms",
        paramLabel = "MS",
        description = "longest retry delay (60000)")
    @Nullable Long maxBackoff;

    @Option(
        names = "--max-attempts",
        paramLabel = "N",
        description = "failed deliveries before the dead-letter queue")
    @Nullable Integer maxAttempts;

    @Option(names = "--paused", description = "create it paused")
    boolean paused;

    @Option(
        names = "--key-attribute",
        paramLabel = "NAME",
        description = "limit per value of this message attribute (e.g. tenant)")
    @Nullable String keyAttribute;

    @Option(
        names = "--key-max-concurrent",
        paramLabel = "N",
        description = "messages of one key in flight, 1..1000")
    @Nullable Integer keyMaxConcurrent;

    @Option(
        names = "--key-max-per-second",
        paramLabel = "RATE",
        description = "messages of one key started per second")
    @Nullable Double keyMaxPerSecond;

    @Override
    void run(SwitchboardClient client) {
      Map<String, String> h = new LinkedHashMap<>();
      for (String header : headers) {
        int eq = header.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "--header must be NAME=VALUE (e.g. Authorization=Bearer abc), got '" + header + "'");
        }
        h.put(header.substring(0, eq), header.substring(eq + 1));
      }
      if (keyAttribute == null && (keyMaxConcurrent != null || keyMaxPerSecond != null)) {
        throw new IllegalArgumentException(
            "--key-max-concurrent and --key-max-per-second need --key-attribute");
      }
      PushWire.KeyLimit keyLimit =
          keyAttribute == null
              ? null
              : new PushWire.KeyLimit(keyAttribute, keyMaxConcurrent, keyMaxPerSecond);
      PushWire.Subscription made =
          client.createSubscription(
              queue,
              new PushWire.Subscription(
                  name,
                  null,
                  url,
                  h.isEmpty() ? null : h,
                  timeout,
                  selector,
                  maxConcurrent,
                  maxPerSecond,
                  burst,
                  batchSize,
                  batchWindow,
                  minBackoff,
                  maxBackoff,
                  maxAttempts,
                  paused ? Boolean.TRUE : null,
                  null,
                  null,
                  keyLimit));
      if (options.json) {
        Output.json(out(), Json.tree(made));
      } else {
        out().println("subscription: " + queue + "/" + made.name() + " -> " + made.url());
        out().println("secret:       " + made.secret());
        out().println("(the secret is shown this once: store it now)");
      }
    }
  }

  @Command(name = "list", description = "The queue's push subscriptions (never their secrets).")
  static final class ListThem extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "QUEUE")
    String queue;

    @Override
    void run(SwitchboardClient client) {
      List<PushWire.Subscription> all = client.listSubscriptions(queue);
      if (options.json) {
        Output.json(out(), Json.tree(new PushWire.SubscriptionList(all)));
      } else if (all.isEmpty()) {
        out().println("(no subscriptions)");
      } else {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("NAME", "URL", "CONCURRENT", "PER SECOND", "BATCH", "SELECTOR", "PAUSED"));
        for (PushWire.Subscription s : all) {
          rows.add(
              List.of(
                  s.name(),
                  s.url(),
                  String.valueOf(s.maxConcurrent()),
                  s.maxPerSecond() == null ? "-" : String.valueOf(s.maxPerSecond()),
                  String.valueOf(s.batchSize()),
                  s.selector() == null ? "-" : s.selector(),
                  String.valueOf(Boolean.TRUE.equals(s.paused()))));
        }
        Output.table(out(), rows);
      }
    }
  }

  @Command(name = "pause", description = "Stop taking messages; deliveries in flight finish.")
  static final class Pause extends One {
    @Override
    void run(SwitchboardClient client) {
      client.pauseSubscription(queue, name, true);
      if (!options.json) {
        out().println("paused " + queue + "/" + name);
      }
    }
  }

  @Command(name = "resume", description = "Take messages again.")
  static final class Resume extends One {
    @Override
    void run(SwitchboardClient client) {
      client.pauseSubscription(queue, name, false);
      if (!options.json) {
        out().println("resumed " + queue + "/" + name);
      }
    }
  }

  @Command(
      name = "rotate-secret",
      description = "A new signing secret; prints it, the server never shows it again.")
  static final class Rotate extends One {
    @Override
    void run(SwitchboardClient client) {
      PushWire.Subscription s = client.rotateSubscriptionSecret(queue, name);
      if (options.json) {
        Output.json(out(), Json.tree(s));
      } else {
        out().println("secret: " + s.secret());
        out().println("(the secret is shown this once: store it now)");
      }
    }
  }

  @Command(name = "stats", description = "What the subscription did since the server ran it.")
  static final class Stats extends One {
    @Override
    void run(SwitchboardClient client) {
      PushWire.Stats s = client.subscriptionStats(queue, name);
      if (options.json) {
        Output.json(out(), Json.tree(s));
      } else {
        out().println("state:       " + s.state());
        out().println("deliveries:  " + s.deliveries());
        out().println("delivered:   " + s.delivered());
        out().println("failures:    " + s.failures());
        out().println("in flight:   " + s.inFlight() + " (limit now " + s.concurrencyLimit() + ")");
        out().println("rate now:    " + (s.rateLimit() == null ? "-" : s.rateLimit() + "/s"));
        out().println("backlog:     " + s.backlog());
      }
    }
  }

  @Command(name = "delete", description = "Delete the subscription; deliveries in flight finish.")
  static final class Delete extends One {
    @Override
    void run(SwitchboardClient client) {
      client.deleteSubscription(queue, name);
      if (!options.json) {
        out().println("deleted " + queue + "/" + name);
      }
    }
  }
}
