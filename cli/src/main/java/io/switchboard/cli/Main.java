package io.switchboard.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.AckResult;
import io.switchboard.client.SwitchboardException;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.ErrorCode;
import io.switchboard.server.config.StartupException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code switchboard} command. Exit codes are {@link ExitCode} (docs/server.md,
 * "CLI", lists them). Global options ({@link ClientOptions}: {@code --server}, {@code --json}, the
 * credentials and {@code --ca-cert}) may come before the command or after it. Every error is one
 * line on stderr, {@code switchboard: CODE: message}, or under {@code --json} one JSON object
 * {@code {"code","message","status","exit"}} ({@code status} only when a server answered).
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
      SubscriptionsCommand.class,
      RoutingCommands.Agents.class,
      RoutingCommands.Contacts.class,
      RoutingCommands.Reservations.class,
      RoutingCommands.Routing.class,
      WorkspacesCommand.class,
      ExportCommand.class,
      StoreCommand.class,
      Main.TourCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {

  static final int OK = ExitCode.OK.code();
  static final int SERVER_ERROR = ExitCode.SERVER_ERROR.code();
  static final int USAGE = ExitCode.USAGE.code();
  static final int NOT_FOUND = ExitCode.NOT_FOUND.code();
  static final int CONFLICT = ExitCode.CONFLICT.code();
  static final int REFUSED = ExitCode.REFUSED.code();
  static final int UNAVAILABLE = ExitCode.UNAVAILABLE.code();
  static final int DAMAGED = ExitCode.DAMAGED.code();
  static final int DENIED = ExitCode.DENIED.code();

  /** The options every client command takes, which may also come before the command's name. */
  private static final Set<String> GLOBAL_FLAGS = Set.of("--json");

  private static final Set<String> GLOBAL_OPTIONS_WITH_VALUE =
      Set.of("--server", "--access-key", "--secret-key", "--profile", "--auth", "--ca-cert");

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
          "subscriptions",
          "agents",
          "contacts",
          "reservations",
          "routing",
          "workspaces",
          "export",
          "store",
          "tour",
          "completion",
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
  static int run(String[] givenArgs, PrintStream out, PrintStream err) {
    String[] args = globalOptionsLast(givenArgs);
    boolean json = jsonRequested(args);
    if (args.length > 0 && !COMMANDS.contains(args[0])) {
      PrintWriter w = new PrintWriter(err, true, StandardCharsets.UTF_8);
      String given = args[0];
      report(w, json, "USAGE", "unknown command '" + given + "'", 0, ExitCode.USAGE);
      if (!json) {
        w.println(new CommandLine(new Main()).getUsageMessage());
      }
      return USAGE;
    }
    CommandLine cli = new CommandLine(new Main());
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cli.setParameterExceptionHandler(
        (e, a) -> {
          CommandLine at = e.getCommandLine();
          report(at.getErr(), json, "USAGE", e.getMessage(), 0, ExitCode.USAGE);
          if (!json) {
            at.getErr()
                .println(
                    "(see 'switchboard help "
                        + at.getCommandSpec().qualifiedName(" ").replaceFirst("^switchboard ?", "")
                        + "')");
          }
          return USAGE;
        });
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> fail(commandLine.getErr(), json, e));
    return cli.execute(args);
  }

  /** Reports a command's failure on {@code w} and returns its exit code. */
  private static int fail(PrintWriter w, boolean json, Exception e) {
    if (e instanceof SwitchboardException s) {
      ExitCode exit = exitCodeOf(s);
      report(w, json, s.wireCode(), s.getMessage(), s.status(), exit);
      return exit.code();
    }
    if (e instanceof StartupException s) {
      // the server's own configuration refused before it started
      report(w, json, "CANNOT_START", s.getMessage(), 0, ExitCode.USAGE);
      return USAGE;
    }
    if (e instanceof io.switchboard.routing.RoutingException r) {
      // refused here, before any request: a routing value the core types check (a worker
      // expression that does not parse, say)
      report(w, json, r.code().toString(), r.getMessage(), 0, ExitCode.REFUSED);
      return REFUSED;
    }
    if (e instanceof io.switchboard.queue.QueueException q) {
      ExitCode exit = exitCodeOf(q.code());
      report(w, json, q.code().name(), q.getMessage(), 0, exit);
      return exit.code();
    }
    if (e instanceof io.switchboard.selector.SelectorException) {
      // a selector checked here before any request (browse --filter, say)
      report(w, json, ErrorCode.INVALID_SELECTOR.name(), e.getMessage(), 0, ExitCode.REFUSED);
      return REFUSED;
    }
    if (e instanceof IllegalArgumentException) {
      report(w, json, ErrorCode.INVALID_ARGUMENT.name(), e.getMessage(), 0, ExitCode.REFUSED);
      return REFUSED;
    }
    report(w, json, "INTERNAL", e.toString(), 0, ExitCode.SERVER_ERROR);
    return SERVER_ERROR;
  }

  /**
   * One error line: {@code switchboard: CODE: message}, or under {@code --json} the object {@code
   * {"code","message","status","exit"}} ({@code status}, the HTTP status, only when a server
   * answered).
   */
  static void report(
      PrintWriter w,
      boolean json,
      String code,
      @Nullable String message,
      int status,
      ExitCode exit) {
    String text = message == null ? "" : message;
    if (json) {
      ObjectNode o = WireFormat.object().put("code", code).put("message", text);
      if (status > 0) {
        o.put("status", status);
      }
      o.put("exit", exit.code());
      w.println(o.toString());
    } else {
      w.println("switchboard: " + code + ": " + text);
    }
    w.flush();
  }

  /**
   * Moves the global options given before the command's name to after it (before a {@code --} if
   * there is one), where picocli reads them: {@code --server URL queues list} is {@code queues list
   * --server URL}.
   */
  static String[] globalOptionsLast(String[] args) {
    List<String> moved = new ArrayList<>();
    int i = 0;
    while (i < args.length) {
      String a = args[i];
      String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (GLOBAL_FLAGS.contains(a)
          || (GLOBAL_OPTIONS_WITH_VALUE.contains(name) && a.contains("="))) {
        moved.add(a);
        i++;
      } else if (GLOBAL_OPTIONS_WITH_VALUE.contains(a) && i + 1 < args.length) {
        moved.add(a);
        moved.add(args[i + 1]);
        i += 2;
      } else {
        break;
      }
    }
    if (moved.isEmpty()) {
      return args;
    }
    List<String> rest = new ArrayList<>(Arrays.asList(args).subList(i, args.length));
    int end = rest.indexOf("--");
    rest.addAll(end >= 0 ? end : rest.size(), moved);
    return rest.toArray(String[]::new);
  }

  private static boolean jsonRequested(String[] args) {
    for (String a : args) {
      if (a.equals("--")) {
        return false;
      }
      if (a.equals("--json")) {
        return true;
      }
    }
    return false;
  }

  /** The exit code of one failed entry of a batch, as if it had been a request of its own. */
  static int exitCode(AckResult failed) {
    return failed.engineCode().map(Main::exitCode).orElse(SERVER_ERROR);
  }

  static int exitCode(ErrorCode code) {
    return exitCodeOf(code).code();
  }

  static ExitCode exitCodeOf(ErrorCode code) {
    return switch (code) {
      case QUEUE_NOT_FOUND, MESSAGE_NOT_FOUND, TASK_NOT_FOUND -> ExitCode.NOT_FOUND;
      case QUEUE_ALREADY_EXISTS, TOO_MANY_QUEUES, RECEIPT_STALE, MESSAGE_NOT_IN_FLIGHT, CONFLICT ->
          ExitCode.CONFLICT;
      case INVALID_ARGUMENT,
          INVALID_SELECTOR,
          RECEIPT_INVALID,
          MESSAGE_TOO_LARGE,
          BATCH_TOO_LARGE ->
          ExitCode.REFUSED;
      case QUEUE_FULL, UNAVAILABLE, SERVER_FULL, OVER_LIMIT -> ExitCode.UNAVAILABLE;
    };
  }

  static int exitCode(SwitchboardException e) {
    return exitCodeOf(e).code();
  }

  static ExitCode exitCodeOf(SwitchboardException e) {
    int status = e.status();
    if (status == 0 || status == 429 || status == 503) {
      return ExitCode.UNAVAILABLE;
    }
    if (status == 401 || status == 403) {
      return ExitCode.DENIED;
    }
    if (status == 404) {
      return ExitCode.NOT_FOUND;
    }
    if (status == 409) {
      return ExitCode.CONFLICT;
    }
    if (status >= 400 && status < 500) {
      return ExitCode.REFUSED;
    }
    return ExitCode.SERVER_ERROR;
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
              + " change-priority and dead letters, LIFO with TTL and shedding, grouped FIFO,"
              + " skills-based routing, and a workspace with task queues and a workflow) on an"
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
