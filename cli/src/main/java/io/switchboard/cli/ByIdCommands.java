package io.switchboard.cli;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** The commands on a message by its id: get, update, touch, remove, restore. */
final class ByIdCommands {

  private ByIdCommands() {}

  /** QUEUE and ID, and printing the message the server answers with. */
  abstract static class ByIdCommand extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", paramLabel = "ID")
    String id;

    void print(Message m) {
      if (options.json) {
        Output.json(out(), WireFormat.message(m));
      } else {
        Output.message(out(), m);
      }
    }
  }

  @Command(name = "get", description = "Show one message, whatever its state, without leasing.")
  static final class Get extends ByIdCommand {
    @Override
    void run(SwitchboardClient client) {
      print(client.get(queue, id));
    }
  }

  @Command(
      name = "update",
      description = {
        "Change a queued message's priority and/or attributes; it keeps its place among equals.",
        "Attributes given replace all of the message's attributes."
      })
  static final class Update extends ByIdCommand {
    @Option(
        names = {"-p", "--priority"},
        description = "the new priority (higher first)")
    @Nullable Integer priority;

    @Mixin AttributeOptions attributes;

    @Option(names = "--clear-attributes", description = "remove every attribute")
    boolean clearAttributes;

    @Override
    void run(SwitchboardClient client) {
      if (clearAttributes && attributes.any()) {
        throw new ParameterException(
            spec.commandLine(), "--clear-attributes cannot go with attributes to set");
      }
      Optional<Map<String, io.switchboard.queue.AttributeValue>> newAttributes =
          clearAttributes
              ? Optional.of(Map.of())
              : attributes.any() ? Optional.of(attributes.values()) : Optional.empty();
      if (priority == null && newAttributes.isEmpty()) {
        throw new ParameterException(
            spec.commandLine(),
            "update needs --priority, attributes (-a, -n, -l) or --clear-attributes");
      }
      print(
          client.update(
              queue, id, new MessageUpdate(Optional.ofNullable(priority), newAttributes)));
    }
  }

  @Command(
      name = "touch",
      description = "Send a waiting message to the back of the queue (not on grouped queues).")
  static final class Touch extends ByIdCommand {
    @Override
    void run(SwitchboardClient client) {
      print(client.touch(queue, id));
    }
  }

  @Command(name = "remove", description = "Remove a message whatever its state; its lease dies.")
  static final class Remove extends ByIdCommand {
    @Override
    void run(SwitchboardClient client) {
      client.remove(queue, id);
      if (options.json) {
        Output.json(out(), WireFormat.object().put("removed", id));
      } else {
        out().println("removed " + id);
      }
    }
  }

  @Command(
      name = "restore",
      description = "Move one message of a dead-letter QUEUE back to the queue it came from.")
  static final class Restore extends ByIdCommand {
    @Override
    void run(SwitchboardClient client) {
      print(client.restore(queue, id));
    }
  }
}
