package io.switchboard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.AckResult;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.NativeWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The commands that send, receive and settle messages: send, receive, ack, release, browse, stats.
 */
final class MessageCommands {

  private MessageCommands() {}

  @Command(name = "send", description = "Send a message.")
  static final class Send extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", paramLabel = "BODY")
    String body;

    @Mixin AttributeOptions attributes;

    @Option(
        names = {"-p", "--priority"},
        description = "higher first (default 0)")
    int priority;

    @Option(names = "--group", description = "message group (grouped queues)")
    @Nullable String group;

    @Option(names = "--dedup-id", description = "deduplication id")
    @Nullable String dedupId;

    @Option(names = "--delay", paramLabel = "SECONDS")
    @Nullable Long delay;

    @Option(names = "--ttl", paramLabel = "SECONDS", description = "time to live")
    @Nullable Long ttl;

    @Override
    void run(SwitchboardClient client) {
      NewMessage.Builder b = NewMessage.builder(body).priority(priority);
      attributes.values().forEach(b::attribute);
      if (group != null) {
        b.groupId(group);
      }
      if (dedupId != null) {
        b.deduplicationId(dedupId);
      }
      if (delay != null) {
        b.delay(Duration.ofSeconds(delay));
      }
      if (ttl != null) {
        b.timeToLive(Duration.ofSeconds(ttl));
      }
      SendResult r = client.send(queue, b.build());
      if (options.json) {
        Output.json(out(), Json.tree(r));
      } else {
        out().println(r.id() + (r.duplicate() ? " (duplicate: nothing enqueued)" : ""));
      }
    }
  }

  @Command(name = "receive", description = "Receive (lease) messages, optionally filtered.")
  static final class Receive extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "QUEUE")
    String queue;

    @Option(names = "--max", description = "most messages (default 1)")
    int max = 1;

    @Option(names = "--wait", paramLabel = "SECONDS", description = "long-poll up to 20 s")
    @Nullable Long wait;

    @Option(names = "--visibility", paramLabel = "SECONDS", description = "lease length")
    @Nullable Long visibility;

    @Option(names = "--filter", paramLabel = "SELECTOR", description = "e.g. \"lang = 'es'\"")
    @Nullable String filter;

    @Option(names = "--ack", description = "acknowledge what was received at once")
    boolean ack;

    @Override
    void run(SwitchboardClient client) {
      ReceiveRequest.Builder b = ReceiveRequest.builder().maxMessages(max);
      if (wait != null) {
        b.waitTime(Duration.ofSeconds(wait));
      }
      if (visibility != null) {
        b.visibilityTimeout(Duration.ofSeconds(visibility));
      }
      if (filter != null) {
        b.selector(filter);
      }
      List<Message> messages = client.receive(queue, b.build());
      if (ack) {
        messages.forEach(m -> client.ack(queue, m.receipt().orElseThrow()));
      }
      if (options.json) {
        Output.json(out(), list(messages));
      } else {
        Output.messages(out(), messages, !ack);
        if (ack && !messages.isEmpty()) {
          out().println("acknowledged " + messages.size());
        }
      }
    }
  }

  @Command(
      name = "ack",
      description = {
        "Acknowledge (delete) received messages by their receipts.",
        "Several receipts go in one batch request; each is acked on its own, and the exit code is"
            + " that of the first receipt that failed."
      })
  static final class Ack extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "RECEIPT")
    List<String> receipts;

    @Override
    void run(SwitchboardClient client) {
      if (receipts.size() == 1) {
        client.ack(queue, receipts.get(0));
        if (options.json) {
          Output.json(out(), WireFormat.object().put("acked", true));
        } else {
          out().println("acknowledged");
        }
        return;
      }
      List<AckResult> results = client.ackBatch(queue, receipts);
      if (options.json) {
        Output.json(
            out(),
            Json.tree(
                new NativeWire.AckResults(results.stream().map(NativeWire.Acked::of).toList())));
      } else {
        Output.ackResults(out(), results);
      }
      exitCode =
          results.stream().filter(r -> !r.acked()).findFirst().map(Main::exitCode).orElse(Main.OK);
    }
  }

  @Command(name = "release", description = "Return a received message to the queue.")
  static final class Release extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", paramLabel = "RECEIPT")
    String receipt;

    @Option(names = "--delay", paramLabel = "SECONDS", description = "back after a delay")
    long delay;

    @Option(names = "--to-back", description = "to the back of the queue instead of its place")
    boolean toBack;

    @Override
    void run(SwitchboardClient client) {
      client.release(queue, receipt, Duration.ofSeconds(delay), toBack);
      if (options.json) {
        Output.json(out(), WireFormat.object().put("released", true));
      } else {
        out().println("released");
      }
    }
  }

  @Command(name = "browse", description = "List messages in delivery order without leasing.")
  static final class Browse extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "QUEUE")
    String queue;

    @Option(names = "--limit", description = "page size (default 20)")
    int limit = 20;

    @Option(names = "--cursor", description = "next page (printed after a full page)")
    @Nullable String cursor;

    @Option(names = "--filter", paramLabel = "SELECTOR")
    @Nullable String filter;

    @Option(names = "--all", description = "include delayed and in-flight messages")
    boolean all;

    @Override
    void run(SwitchboardClient client) {
      BrowseRequest request = BrowseRequest.first(limit).includeInvisible(all);
      if (cursor != null) {
        request = request.after(cursor);
      }
      if (filter != null) {
        request = request.filter(SelectorFilter.parse(filter));
      }
      Page page = client.browse(queue, request);
      if (options.json) {
        ObjectNode o = list(page.items());
        page.nextCursor().ifPresent(c -> o.put("nextCursor", c));
        Output.json(out(), o);
      } else {
        Output.messages(out(), page.items(), false);
        page.nextCursor().ifPresent(c -> out().println("next page: --cursor " + c));
      }
    }
  }

  @Command(name = "stats", description = "A queue's counts by state, oldest age and counters.")
  static final class Stats extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "QUEUE")
    String queue;

    @Override
    void run(SwitchboardClient client) {
      var stats = client.stats(queue);
      if (options.json) {
        Output.json(out(), WireFormat.stats(stats));
      } else {
        Output.stats(out(), queue, stats);
      }
    }
  }

  private static ObjectNode list(List<Message> messages) {
    ObjectNode o = WireFormat.object();
    ArrayNode items = o.putArray("messages");
    new ArrayList<>(messages).forEach(m -> items.add(WireFormat.message(m)));
    return o;
  }
}
