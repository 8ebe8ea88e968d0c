package io.switchboard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code switchboard redrive start|list|cancel}: move a dead-letter queue's messages back. */
@Command(
    name = "redrive",
    description = "Move a dead-letter queue's messages back to their sources (or elsewhere).",
    subcommands = {
      RedriveCommand.Start.class,
      RedriveCommand.ListTasks.class,
      RedriveCommand.Cancel.class
    })
final class RedriveCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "start",
      description = "Start moving every message of the dead-letter QUEUE; prints the task.")
  static final class Start extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "QUEUE")
    String queue;

    @Option(names = "--to", paramLabel = "QUEUE", description = "one destination for all")
    @Nullable String destination;

    @Option(names = "--max-per-second", paramLabel = "N", description = "rate limit")
    @Nullable Integer maxPerSecond;

    @Override
    void run(SwitchboardClient client) {
      RedriveRequest request =
          destination == null ? RedriveRequest.toSources() : RedriveRequest.to(destination);
      if (maxPerSecond != null) {
        request = request.maxPerSecond(maxPerSecond);
      }
      RedriveTask task = client.startRedrive(queue, request);
      if (options.json) {
        Output.json(out(), WireFormat.redriveTask(task));
      } else {
        Output.tasks(out(), List.of(task));
      }
    }
  }

  @Command(name = "list", description = "The redrive tasks of a dead-letter QUEUE, newest first.")
  static final class ListTasks extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "QUEUE")
    String queue;

    @Override
    void run(SwitchboardClient client) {
      List<RedriveTask> tasks = client.redriveTasks(queue);
      if (options.json) {
        ObjectNode o = WireFormat.object();
        ArrayNode items = o.putArray("tasks");
        tasks.forEach(t -> items.add(WireFormat.redriveTask(t)));
        Output.json(out(), o);
      } else if (tasks.isEmpty()) {
        out().println("(no redrive tasks)");
      } else {
        Output.tasks(out(), tasks);
      }
    }
  }

  @Command(name = "cancel", description = "Cancel a running redrive TASK.")
  static final class Cancel extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "TASK")
    String task;

    @Override
    void run(SwitchboardClient client) {
      RedriveTask t = client.cancelRedrive(task);
      if (options.json) {
        Output.json(out(), WireFormat.redriveTask(t));
      } else {
        Output.tasks(out(), List.of(t));
      }
    }
  }
}
