package io.switchboard.cli;

import java.io.PrintStream;
import sun.misc.Signal;

/**
 * Ends the server's JVM on SIGTERM (a supervisor's stop) and SIGINT (Ctrl-C): runs the graceful
 * stop, then exits with 0 when it completed, or 1 ({@link Main#SERVER_ERROR}) when it failed. The
 * JVM's own handling of these signals runs the shutdown hooks and then exits with 128 + the signal
 * (143 for SIGTERM), which systemd's {@code Restart=on-failure} and container orchestrators read as
 * a failure even after a clean stop.
 */
final class GracefulStop {

  private GracefulStop() {}

  /** Handles SIGTERM and SIGINT with {@code stop}, then {@link System#exit} with its outcome. */
  static void install(Runnable stop) {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> System.exit(run(stop, System.err)));
    }
  }

  /** Runs {@code stop}; 0 when it completed, 1 (saying why on {@code err}) when it threw. */
  static int run(Runnable stop, PrintStream err) {
    try {
      stop.run();
      return Main.OK;
    } catch (RuntimeException | Error e) {
      err.println("switchboard: the server did not stop cleanly: " + e);
      e.printStackTrace(err);
      err.flush();
      return Main.SERVER_ERROR;
    }
  }
}
