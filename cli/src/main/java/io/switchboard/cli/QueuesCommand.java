package io.switchboard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.QueuePage;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueInfo;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code switchboard queues create|list|show|delete|purge}. */
@Command(
    name = "queues",
    description = "Create, list, show, delete and purge queues.",
    subcommands = {
      QueuesCommand.Create.class,
      QueuesCommand.ListQueues.class,
      QueuesCommand.Show.class,
      QueuesCommand.Delete.class,
      QueuesCommand.Purge.class
    })
final class QueuesCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * Shared plumbing: the client, the output and the JSON switch. A command that succeeds exits 0
   * unless it sets {@link #exitCode} (a batch with some failed entries); errors raised by the
   * client are mapped to exit codes by {@link Main}.
   */
  abstract static class ClientCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClientOptions options;
    int exitCode = Main.OK;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    @Override
    public Integer call() {
      try (SwitchboardClient client = options.client()) {
        run(client);
      }
      return exitCode;
    }

    abstract void run(SwitchboardClient client);
  }

  @Command(name = "create", description = "Create a queue (a name ending .fifo is grouped).")
  static final class Create extends ClientCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--order", description = "fifo | lifo (default fifo)")
    @Nullable String order;

    @Option(names = "--visibility-timeout", paramLabel = "SECONDS")
    @Nullable Long visibility;

    @Option(names = "--delay", paramLabel = "SECONDS")
    @Nullable Long delay;

    @Option(names = "--retention", paramLabel = "SECONDS")
    @Nullable Long retention;

    @Option(names = "--receive-wait", paramLabel = "SECONDS")
    @Nullable Long receiveWait;

    @Option(names = "--dead-letter", paramLabel = "QUEUE", description = "dead-letter target")
    @Nullable String deadLetter;

    @Option(
        names = "--max-receive-count",
        description = "receives before dead-lettering (default 5)")
    int maxReceiveCount = 5;

    @Option(names = "--expire-to-dead-letter", description = "expired messages go to the DLQ")
    boolean expireToDeadLetter;

    @Option(names = "--max-depth")
    @Nullable Long maxDepth;

    @Option(names = "--overflow", description = "reject | dropOldest (with --max-depth)")
    @Nullable String overflow;

    @Option(names = "--content-based-dedup")
    boolean contentBasedDedup;

    @Option(names = "--index", paramLabel = "ATTRIBUTE", description = "indexed attribute(s)")
    @Nullable List<String> indexed;

    @Option(
        names = "--key-limit",
        paramLabel = "N",
        description =
            "at most N messages of one message group in flight; a receive skips a group at its"
                + " limit (1..120000)")
    @Nullable Integer keyLimit;

    @Override
    void run(SwitchboardClient client) {
      QueueConfig.Builder b = QueueConfig.builder();
      if (order != null) {
        b.order(WireFormat.enumValue(Order.class, "order", order));
      }
      if (visibility != null) {
        b.visibilityTimeout(Duration.ofSeconds(visibility));
      }
      if (delay != null) {
        b.delay(Duration.ofSeconds(delay));
      }
      if (retention != null) {
        b.retention(Duration.ofSeconds(retention));
      }
      if (receiveWait != null) {
        b.receiveWait(Duration.ofSeconds(receiveWait));
      }
      if (deadLetter != null) {
        b.deadLetter(deadLetter, maxReceiveCount);
      }
      if (expireToDeadLetter) {
        b.onExpire(ExpiryAction.DEAD_LETTER);
      }
      if (maxDepth != null) {
        b.maxDepth(
            maxDepth,
            overflow == null
                ? Overflow.REJECT
                : WireFormat.enumValue(Overflow.class, "overflow", overflow));
      }
      b.contentBasedDeduplication(contentBasedDedup);
      if (indexed != null) {
        b.indexedAttributes(Set.copyOf(indexed));
      }
      if (keyLimit != null) {
        b.keyLimit(keyLimit);
      }
      QueueInfo info = client.createQueue(name, b.build());
      if (options.json) {
        Output.json(out(), WireFormat.queueInfo(info));
      } else {
        Output.queues(out(), List.of(info));
      }
    }
  }

  @Command(name = "list", description = "List queues.")
  static final class ListQueues extends ClientCommand {
    @Option(names = "--prefix", description = "only names starting with this")
    String prefix = "";

    @Option(
        names = "--limit",
        description = "one page of at most this many queues (1..1000), with the cursor of the next")
    @Nullable Integer limit;

    @Option(names = "--cursor", description = "list the page after this one (its next cursor)")
    String cursor = "";

    @Override
    void run(SwitchboardClient client) {
      List<QueueInfo> queues;
      Optional<String> next = Optional.empty();
      if (limit == null && cursor.isEmpty()) {
        queues = client.listQueues(prefix); // every page
      } else {
        QueuePage page =
            client.queuePage(
                prefix,
                cursor.isEmpty() ? Optional.empty() : Optional.of(cursor),
                limit == null ? 1000 : limit);
        queues = page.queues();
        next = page.nextCursor();
      }
      if (options.json) {
        ObjectNode o = WireFormat.object();
        ArrayNode items = o.putArray("queues");
        queues.forEach(q -> items.add(WireFormat.queueInfo(q)));
        next.ifPresent(c -> o.put("nextCursor", c));
        Output.json(out(), o);
      } else if (queues.isEmpty()) {
        out().println("(no queues)");
      } else {
        Output.queues(out(), queues);
        next.ifPresent(c -> out().println("next page: --cursor " + c));
      }
    }
  }

  @Command(name = "show", description = "Show a queue's configuration and stats.")
  static final class Show extends ClientCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    void run(SwitchboardClient client) {
      QueueInfo info = client.queue(name);
      var stats = client.stats(name);
      if (options.json) {
        ObjectNode o = WireFormat.queueInfo(info);
        o.set("stats", WireFormat.stats(stats));
        Output.json(out(), o);
      } else {
        Output.queues(out(), List.of(info));
        out().println();
        Output.stats(out(), name, stats);
      }
    }
  }

  @Command(name = "delete", description = "Delete a queue and its messages.")
  static final class Delete extends ClientCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    void run(SwitchboardClient client) {
      client.deleteQueue(name);
      if (options.json) {
        Output.json(out(), WireFormat.object().put("deleted", name));
      } else {
        out().println("deleted " + name);
      }
    }
  }

  @Command(name = "purge", description = "Delete every message in a queue.")
  static final class Purge extends ClientCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    void run(SwitchboardClient client) {
      long purged = client.purge(name);
      if (options.json) {
        Output.json(out(), WireFormat.object().put("purged", purged));
      } else {
        out().println("purged " + purged + " message(s) from " + name);
      }
    }
  }
}
