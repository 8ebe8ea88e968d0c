package io.switchboard.cli;

import io.switchboard.client.AckResult;
import io.switchboard.client.SwitchboardException;
import io.switchboard.queue.ErrorCode;
import io.switchboard.server.StartupException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code switchboard} command. Exit codes, for scripts:
 *
 * <table>
 *   <tr><td>0</td><td>done</td></tr>
 *   <tr><td>1</td><td>server error (5xx) or an unexpected failure</td></tr>
 *   <tr><td>2</td><td>usage: unknown command, bad flag, bad server configuration</td></tr>
 *   <tr><td>3</td><td>not found: queue, message, redrive task, agent, contact, reservation</td></tr>
 *   <tr><td>4</td><td>conflict: stale receipt, queue exists, not in flight, offer expired, ...</td></tr>
 *   <tr><td>5</td><td>refused input: invalid argument or selector, too large</td></tr>
 *   <tr><td>6</td><td>unavailable: cannot connect, timed out, queue full, server starting or
 *       stopping</td></tr>
 *   <tr><td>7</td><td>{@code store verify}: the store is damaged; {@code store salvage}: something
 *       could not be read (listed)</td></tr>
 * </table>
 */
@Command(
    name = "switchboard",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "A queue server for work that must be matched, not just delivered.",
    subcommands = {
      ServerCommand.class,
      QueuesCommand.class,
      MessageCommands.Send.class,
      MessageCommands.Receive.class,
      MessageCommands.Ack.class,
      MessageCommands.Release.class,
      MessageCommands.Browse.class,
      MessageCommands.Stats.class,
      LeaseCommands.Extend.class,
      LeaseCommands.Fail.class,
      LeaseCommands.DeadLetter.class,
      ByIdCommands.Get.class,
      ByIdCommands.Update.class,
      ByIdCommands.Touch.class,
      ByIdCommands.Remove.class,
      ByIdCommands.Restore.class,
      RedriveCommand.class,
      KeysCommand.class,
      RoutingCommands.Agents.class,
      RoutingCommands.Contacts.class,
      RoutingCommands.Reservations.class,
      RoutingCommands.Routing.class,
      WorkspacesCommand.class,
      ExportCommand.class,
      StoreCommand.class,
      Main.TourCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {

  static final int OK = 0;
  static final int SERVER_ERROR = 1;
  static final int USAGE = 2;
  static final int NOT_FOUND = 3;
  static final int CONFLICT = 4;
  static final int REFUSED = 5;
  static final int UNAVAILABLE = 6;
  static final int DAMAGED = 7;

  private static final Set<String> COMMANDS =
      Set.of(
          "server",
          "queues",
          "send",
          "receive",
          "ack",
          "release",
          "browse",
          "stats",
          "extend",
          "fail",
          "dead-letter",
          "get",
          "update",
          "touch",
          "remove",
          "restore",
          "redrive",
          "keys",
          "agents",
          "contacts",
          "reservations",
          "routing",
          "workspaces",
          "export",
          "store",
          "tour",
          "help",
          "--help",
          "-h",
          "--version",
          "-V");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    int code = run(args, System.out, System.err);
    if (code != OK || args.length == 0 || !args[0].equals("server")) {
      System.exit(code);
    }
  }

  /** Runs one command; returns the process exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0 && !COMMANDS.contains(args[0])) {
      err.println("switchboard: unknown command '" + args[0] + "'");
      err.println(new CommandLine(new Main()).getUsageMessage());
      return USAGE;
    }
    CommandLine cli = new CommandLine(new Main());
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          PrintWriter w = commandLine.getErr();
          if (e instanceof SwitchboardException s) {
            w.println("switchboard: " + s.wireCode() + ": " + s.getMessage());
            return exitCode(s);
          }
          if (e instanceof StartupException s) {
            w.println("switchboard: " + s.getMessage());
            return USAGE;
          }
          if (e instanceof io.switchboard.routing.RoutingException r) {
            // refused here, before any request: a routing value the core types check (a worker
            // expression that does not parse, say)
            w.println("switchboard: " + r.code() + ": " + r.getMessage());
            return REFUSED;
          }
          if (e instanceof IllegalArgumentException
              || e instanceof io.switchboard.queue.QueueException) {
            w.println("switchboard: " + e.getMessage());
            return REFUSED;
          }
          w.println("switchboard: " + e);
          return SERVER_ERROR;
        });
    return cli.execute(args);
  }

  /** The exit code of one failed entry of a batch, as if it had been a request of its own. */
  static int exitCode(AckResult failed) {
    return failed.engineCode().map(Main::exitCode).orElse(SERVER_ERROR);
  }

  static int exitCode(ErrorCode code) {
    return switch (code) {
      case QUEUE_NOT_FOUND, MESSAGE_NOT_FOUND, TASK_NOT_FOUND -> NOT_FOUND;
      case QUEUE_ALREADY_EXISTS, TOO_MANY_QUEUES, RECEIPT_STALE, MESSAGE_NOT_IN_FLIGHT, CONFLICT ->
          CONFLICT;
      case INVALID_ARGUMENT,
          INVALID_SELECTOR,
          RECEIPT_INVALID,
          MESSAGE_TOO_LARGE,
          BATCH_TOO_LARGE ->
          REFUSED;
      case QUEUE_FULL, UNAVAILABLE, SERVER_FULL, OVER_LIMIT -> UNAVAILABLE;
    };
  }

  static int exitCode(SwitchboardException e) {
    int status = e.status();
    if (status == 0 || status == 429 || status == 503) {
      return UNAVAILABLE;
    }
    if (status == 404) {
      return NOT_FOUND;
    }
    if (status == 409) {
      return CONFLICT;
    }
    if (status >= 400 && status < 500) {
      return REFUSED;
    }
    return SERVER_ERROR;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The narrated seed tour on an in-memory engine with a simulated clock. */
  @Command(
      name = "tour",
      description =
          "Walk through the seed patterns (filtered agent queue, priority queue with"
              + " change-priority and dead letters, LIFO with TTL and shedding, grouped FIFO) on an"
              + " in-memory engine with a simulated clock.")
  static final class TourCommand implements java.util.concurrent.Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
      int code = new Tour(new PrintStream(text, true, StandardCharsets.UTF_8)).run(new String[0]);
      spec.commandLine().getOut().print(text.toString(StandardCharsets.UTF_8));
      spec.commandLine().getOut().flush();
      return code;
    }
  }
}
