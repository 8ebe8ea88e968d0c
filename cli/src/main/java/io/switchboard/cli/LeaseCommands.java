package io.switchboard.cli;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.Message;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * The commands on a lease beyond ack and release: extend, fail, and dead-letter (which also takes a
 * message id, for a message that is not leased).
 */
final class LeaseCommands {

  private LeaseCommands() {}

  @Command(
      name = "extend",
      description = "Set a lease to end SECONDS from now (0 makes the message available now).")
  static final class Extend extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", paramLabel = "RECEIPT")
    String receipt;

    @Option(
        names = "--visibility",
        paramLabel = "SECONDS",
        required = true,
        description = "the lease's new remaining length, 0..43200")
    long visibility;

    @Override
    void run(SwitchboardClient client) {
      Message m = client.extend(queue, receipt, Duration.ofSeconds(visibility));
      if (options.json) {
        Output.json(out(), WireFormat.message(m));
      } else {
        out()
            .println(
                "extended "
                    + m.id()
                    + m.visibleAt().map(t -> ": visible again at " + t).orElse(": available now"));
      }
    }
  }

  @Command(
      name = "fail",
      description = "Report a received message failed: it leaves the queue, not retried.")
  static final class Fail extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", paramLabel = "RECEIPT")
    String receipt;

    @Override
    void run(SwitchboardClient client) {
      client.fail(queue, receipt);
      if (options.json) {
        Output.json(out(), WireFormat.object().put("failed", true));
      } else {
        out().println("failed");
      }
    }
  }

  @Command(
      name = "dead-letter",
      description = {
        "Move a message to the queue's dead-letter queue now:",
        "a received one by its RECEIPT, or any queued one by --id."
      })
  static final class DeadLetter extends QueuesCommand.ClientCommand {
    @Parameters(index = "0", paramLabel = "QUEUE")
    String queue;

    @Parameters(index = "1", arity = "0..1", paramLabel = "RECEIPT")
    @Nullable String receipt;

    @Option(names = "--id", paramLabel = "ID", description = "the message's id instead")
    @Nullable String id;

    @Override
    void run(SwitchboardClient client) {
      if (id != null && receipt == null) {
        client.deadLetterById(queue, id);
      } else if (receipt != null && id == null) {
        client.deadLetter(queue, receipt);
      } else {
        throw new ParameterException(
            spec.commandLine(), "dead-letter needs a RECEIPT or --id ID, not both or neither");
      }
      if (options.json) {
        Output.json(out(), WireFormat.object().put("deadLettered", true));
      } else {
        out().println("dead-lettered");
      }
    }
  }
}
