package io.switchboard.cli;

import java.io.PrintStream;
import java.util.Arrays;

/** Entry point of the {@code switchboard} command. */
public final class Main {

  static final int OK = 0;
  static final int USAGE = 64;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command; returns the process exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "help" : args[0];
    String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    return switch (command) {
      case "tour" -> new Tour(out).run(rest);
      case "help", "--help", "-h" -> {
        usage(out);
        yield OK;
      }
      default -> {
        err.println("switchboard: unknown command '" + command + "'");
        usage(err);
        yield USAGE;
      }
    };
  }

  private static void usage(PrintStream out) {
    out.println(
        """
        usage: switchboard <command>

        commands:
          tour    walk through the seed patterns (filtered agent queue, priority queue with
                  change-priority and dead letters, LIFO with TTL and shedding, grouped FIFO)
                  on an in-memory engine with a simulated clock
          help    this text

        The server, the native HTTP API and the client commands arrive with the server issue.""");
  }
}
