package io.switchboard.cli;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.WorkspacesClient;
import io.switchboard.client.wire.WorkspaceWire;
import io.switchboard.routing.Activity;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.TaskQueueStats;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard workspaces list|show|create|delete|activity|queue|queue-stats|...}: the
 * routing workspaces, their activities and task queues ({@code docs/api.md}, "Workspaces").
 */
@Command(
    name = "workspaces",
    description =
        "Create, show and delete routing workspaces; their activities, task queues and workflows.",
    subcommands = {
      WorkspacesCommand.ListWorkspaces.class,
      WorkspacesCommand.Show.class,
      WorkspacesCommand.Create.class,
      WorkspacesCommand.Configure.class,
      WorkspacesCommand.Delete.class,
      WorkspacesCommand.RotateCallbackSecret.class,
      WorkspacesCommand.PutActivity.class,
      WorkspacesCommand.DeleteActivity.class,
      WorkspacesCommand.PutQueue.class,
      WorkspacesCommand.QueueStats.class,
      WorkspacesCommand.DeleteQueue.class,
      WorkflowsCommand.class
    })
final class WorkspacesCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A command over the workspaces client. */
  abstract static class WorkspaceCommand extends QueuesCommand.ClientCommand {
    @Override
    void run(SwitchboardClient client) {
      run(client.workspaces(), out());
    }

    abstract void run(WorkspacesClient workspaces, PrintWriter out);

    void show(PrintWriter out, WorkspaceDefinition d) {
      if (options.json) {
        Output.json(out, WorkspaceWire.workspace(d));
        return;
      }
      WorkspaceSettings s = d.settings();
      out.println("workspace:      " + d.name());
      out.println("strategy:       " + s.strategy().text());
      out.println("offer timeout:  " + s.offerTimeout().toSeconds() + " s");
      out.println("service level:  " + s.serviceLevelThreshold().toSeconds() + " s");
      out.println("default:        " + s.defaultActivity());
      out.println("miss limit:     " + s.missLimit().map(String::valueOf).orElse("the server's"));
      out.println(
          "auto-accept:    "
              + s.autoAccept()
                  .map(c -> String.join(",", c.stream().sorted().toList()))
                  .orElse("the server's"));
      out.println(
          "stats window:   "
              + s.statsWindow().map(w -> w.toSeconds() + " s").orElse("the server's"));
      out.println("rest period:    " + s.restPeriod().toSeconds() + " s");
      out.println("on reject:      " + s.rejectActivity().orElse("(stays)"));
      out.println("on miss limit:  " + d.timeoutActivity().map(Activity::name).orElse("(none)"));
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("ACTIVITY", "AVAILABLE"));
      d.activities().forEach(a -> rows.add(List.of(a.name(), Boolean.toString(a.available()))));
      Output.table(out, rows);
      if (!d.queues().isEmpty()) {
        List<List<String>> queues = new ArrayList<>();
        queues.add(List.of("TASK QUEUE", "WORKER EXPRESSION", "ORDER"));
        d.queues()
            .forEach(
                q ->
                    queues.add(
                        List.of(
                            q.name(),
                            q.workerExpression().orElse("(every agent)"),
                            q.order().name().toLowerCase(java.util.Locale.ROOT))));
        Output.table(out, queues);
      }
    }
  }

  @Command(name = "list", description = "List the workspaces.")
  static final class ListWorkspaces extends WorkspaceCommand {
    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      List<WorkspaceDefinition> all = workspaces.list();
      if (options.json) {
        Output.json(out, WorkspaceWire.workspaces(all));
        return;
      }
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("WORKSPACE", "STRATEGY", "ACTIVITIES", "TASK QUEUES"));
      for (WorkspaceDefinition d : all) {
        rows.add(
            List.of(
                d.name(),
                d.settings().strategy().text(),
                Integer.toString(d.activities().size()),
                Integer.toString(d.queues().size())));
      }
      Output.table(out, rows);
    }
  }

  @Command(name = "show", description = "Show a workspace's settings, activities and queues.")
  static final class Show extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      show(out, workspaces.get(name));
    }
  }

  /** The settings a workspace may have of its own since refusals are heard. */
  static final class RefusalOptions {
    @Option(
        names = "--miss-limit",
        paramLabel = "N",
        description = "missed offers in a row that move an agent to the timeout activity, 0..1000")
    @Nullable Integer missLimit;

    @Option(
        names = "--auto-accept",
        paramLabel = "CHANNELS",
        split = ",",
        description = "channels whose offers are accepted at once, comma-separated")
    @Nullable List<String> autoAccept;

    @Option(
        names = "--stats-window",
        paramLabel = "SECONDS",
        description = "sliding window of the live statistics, 60..86400")
    @Nullable Long statsWindow;

    @Option(
        names = "--rest-period",
        paramLabel = "SECONDS",
        description =
            "after a reject or a missed offer, how long that contact is not offered to that agent"
                + " again, 1..3600 (default 30)")
    @Nullable Long restPeriod;

    @Option(
        names = "--reject-activity",
        paramLabel = "NAME",
        description = "the activity an agent moves to when it rejects an offer (\"\": none)")
    @Nullable String rejectActivity;

    @Option(
        names = "--timeout-activity",
        paramLabel = "NAME",
        description =
            "the unavailable activity an agent moves to at the miss limit (\"\": the default)")
    @Nullable String timeoutActivity;

    WorkspaceSettings over(WorkspaceSettings s) {
      if (missLimit != null) {
        s = s.withMissLimit(Optional.of(missLimit));
      }
      if (autoAccept != null) {
        s = s.withAutoAccept(Optional.of(java.util.Set.copyOf(autoAccept)));
      }
      if (statsWindow != null) {
        s = s.withStatsWindow(Optional.of(Duration.ofSeconds(statsWindow)));
      }
      if (restPeriod != null) {
        s = s.withRestPeriod(Duration.ofSeconds(restPeriod));
      }
      if (rejectActivity != null) {
        s = s.withRejectActivity(Optional.of(rejectActivity).filter(a -> !a.isEmpty()));
      }
      if (timeoutActivity != null) {
        s = s.withTimeoutActivity(Optional.of(timeoutActivity).filter(a -> !a.isEmpty()));
      }
      return s;
    }
  }

  @Command(name = "configure", description = "Change a workspace's settings.")
  static final class Configure extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String name;

    @Option(
        names = "--strategy",
        paramLabel = "STRATEGY",
        description = "longest-idle, least-occupied or highest:<attribute>")
    @Nullable String strategy;

    @Option(names = "--offer-timeout", paramLabel = "SECONDS", description = "1..3600")
    @Nullable Long offerTimeout;

    @Option(
        names = "--default-activity",
        paramLabel = "NAME",
        description = "for agents created without one")
    @Nullable String defaultActivity;

    @picocli.CommandLine.Mixin RefusalOptions refusals = new RefusalOptions();

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      WorkspaceSettings s = workspaces.get(name).settings();
      if (strategy != null) {
        s = s.withStrategy(Strategy.parse("--strategy", strategy));
      }
      if (offerTimeout != null) {
        s = s.withOfferTimeout(Duration.ofSeconds(offerTimeout));
      }
      if (defaultActivity != null) {
        s = s.withDefaultActivity(defaultActivity);
      }
      show(out, workspaces.configure(name, refusals.over(s)));
    }
  }

  @Command(name = "create", description = "Create a workspace.")
  static final class Create extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String name;

    @Option(
        names = "--activity",
        paramLabel = "NAME=AVAILABLE",
        description =
            "an activity, e.g. Ready=true or Lunch=false; repeatable (default: available, away,"
                + " offline)")
    List<String> activities = new ArrayList<>();

    @Option(
        names = "--strategy",
        paramLabel = "STRATEGY",
        description = "longest-idle (default), least-occupied or highest:<attribute>")
    @Nullable String strategy;

    @Option(names = "--offer-timeout", paramLabel = "SECONDS", description = "default 30")
    @Nullable Long offerTimeout;

    @Option(
        names = "--default-activity",
        paramLabel = "NAME",
        description = "for agents created without one (default: offline, else the first)")
    @Nullable String defaultActivity;

    @picocli.CommandLine.Mixin RefusalOptions refusals = new RefusalOptions();

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      List<Activity> list = new ArrayList<>();
      for (String a : activities) {
        int eq = a.indexOf('=');
        if (eq < 0) {
          throw new picocli.CommandLine.ParameterException(
              spec.commandLine(), "--activity must be NAME=true or NAME=false, got '" + a + "'");
        }
        list.add(new Activity(a.substring(0, eq), Boolean.parseBoolean(a.substring(eq + 1))));
      }
      List<Activity> all = list.isEmpty() ? Activity.DEFAULTS : list;
      String fallback =
          all.stream()
              .map(Activity::name)
              .filter(n -> n.equalsIgnoreCase("offline"))
              .findFirst()
              .orElse(all.get(0).name());
      WorkspaceSettings s =
          WorkspaceSettings.DEFAULTS.withDefaultActivity(
              defaultActivity != null ? defaultActivity : fallback);
      if (strategy != null) {
        s = s.withStrategy(Strategy.parse("--strategy", strategy));
      }
      if (offerTimeout != null) {
        s = s.withOfferTimeout(Duration.ofSeconds(offerTimeout));
      }
      WorkspaceDefinition created = workspaces.create(name, refusals.over(s), all);
      String secret = created.callbackSecret().map(CallbackSecret::value).orElse("");
      if (options.json) {
        Output.json(out, WorkspaceWire.workspace(created).put("callbackSecret", secret));
        return;
      }
      show(out, created);
      out.println("callback secret: " + secret);
      out.println("  (signs assignment callbacks; shown only now: keep it)");
    }
  }

  @Command(
      name = "rotate-callback-secret",
      description =
          "Give a workspace a new assignment-callback secret and print it (shown only now).")
  static final class RotateCallbackSecret extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      CallbackSecret secret = workspaces.rotateCallbackSecret(name);
      if (options.json) {
        Output.json(
            out,
            io.switchboard.client.wire.Json.tree(
                java.util.Map.of("workspace", name, "callbackSecret", secret.value())));
        return;
      }
      out.println(secret.value());
    }
  }

  @Command(name = "delete", description = "Delete a workspace with its agents and contacts.")
  static final class Delete extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      workspaces.delete(name);
      out.println("deleted workspace " + name);
    }
  }

  @Command(name = "activity", description = "Add or replace an activity.")
  static final class PutActivity extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String workspace;

    @Parameters(index = "1", paramLabel = "ACTIVITY")
    String name;

    @Option(names = "--available", description = "agents in it take work")
    boolean available;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      Activity a = workspaces.putActivity(workspace, new Activity(name, available));
      out.println("activity " + a.name() + " (available: " + a.available() + ")");
    }
  }

  @Command(name = "delete-activity", description = "Remove an activity (no agent may be in it).")
  static final class DeleteActivity extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String workspace;

    @Parameters(index = "1", paramLabel = "ACTIVITY")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      workspaces.removeActivity(workspace, name);
      out.println("removed activity " + name);
    }
  }

  @Command(name = "queue", description = "Add or replace a task queue.")
  static final class PutQueue extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String workspace;

    @Parameters(index = "1", paramLabel = "QUEUE")
    String name;

    @Option(
        names = "--expression",
        paramLabel = "SELECTOR",
        description = "who may serve it, e.g. \"skills HAS 'billing'\" (default: every agent)")
    @Nullable String expression;

    @Option(
        names = "--order",
        paramLabel = "ORDER",
        description = "fifo (default) or lifo: among its waiting contacts of equal priority")
    @Nullable String order;

    @Option(
        names = "--strategy",
        paramLabel = "STRATEGY",
        description =
            "longest-idle, least-occupied or highest:<attribute> (default: the workspace's)")
    @Nullable String strategy;

    @Option(
        names = "--max-reservations",
        paramLabel = "N",
        description = "at most N of its contacts offered to or held by one agent, 1..100")
    @Nullable Integer maxReservations;

    @Option(
        names = "--service-level",
        paramLabel = "SECONDS",
        description = "answered within, for its service level (default: the workspace's)")
    @Nullable Long serviceLevel;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      TaskQueue.Order o = TaskQueue.Order.FIFO;
      if (order != null) {
        try {
          o = TaskQueue.Order.valueOf(order.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new picocli.CommandLine.ParameterException(
              spec.commandLine(), "--order must be fifo or lifo, got '" + order + "'");
        }
      }
      TaskQueue q =
          workspaces.putQueue(
              workspace,
              new TaskQueue(
                  name,
                  Optional.ofNullable(expression),
                  o,
                  Optional.ofNullable(strategy).map(t -> Strategy.parse("--strategy", t)),
                  Optional.ofNullable(maxReservations),
                  Optional.ofNullable(serviceLevel).map(Duration::ofSeconds)));
      if (options.json) {
        Output.json(out, WorkspaceWire.queue(q));
      } else {
        out.println("task queue " + q.name() + ": " + q.workerExpression().orElse("(every agent)"));
      }
    }
  }

  @Command(name = "queue-stats", description = "Show a task queue's live figures.")
  static final class QueueStats extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String workspace;

    @Parameters(index = "1", paramLabel = "QUEUE")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      TaskQueueStats s = workspaces.queueStats(workspace, name);
      if (options.json) {
        Output.json(
            out, io.switchboard.client.wire.Json.tree(WorkspaceWire.TaskQueueStatsBody.of(s)));
        return;
      }
      out.println("task queue:     " + s.queue() + " (since " + s.since() + ")");
      out.println(
          "waiting:        " + s.waiting() + ", longest " + s.longestWait().toMillis() + " ms");
      out.println(
          "offers:         "
              + s.offered()
              + " offered, "
              + s.accepted()
              + " accepted, "
              + s.rejected()
              + " rejected, "
              + s.offersTimedOut()
              + " timed out");
      out.println(
          "contacts:       "
              + s.answered()
              + " answered ("
              + s.answeredWithinThreshold()
              + " within "
              + s.serviceLevelThreshold().toSeconds()
              + " s), "
              + s.abandoned()
              + " abandoned, "
              + s.timedOut()
              + " timed out");
      out.println(
          "service level:  "
              + (s.serviceLevel().isPresent()
                  ? String.format(
                      java.util.Locale.ROOT, "%.1f %%", 100 * s.serviceLevel().getAsDouble())
                  : "-"));
      out.println(
          "ASA:            " + s.averageSpeedOfAnswer().map(d -> d.toMillis() + " ms").orElse("-"));
    }
  }

  @Command(name = "delete-queue", description = "Remove a task queue (no live contact in it).")
  static final class DeleteQueue extends WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String workspace;

    @Parameters(index = "1", paramLabel = "QUEUE")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      workspaces.removeQueue(workspace, name);
      out.println("removed task queue " + name);
    }
  }
}
