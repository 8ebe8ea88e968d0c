/**
 * The {@code switchboard} command: the server's start command and the API's commands over the Java
 * client (picocli).
 *
 * <p>The main code is compiled as this module; the start script and {@code java -jar} run it on the
 * class path (docs/decisions.md, 2026-11-26).
 */
module io.switchboard.cli {
  requires io.switchboard.server;
  requires info.picocli;
  requires jdk.unsupported; // sun.misc.Signal: a clean stop on SIGTERM exits 0 (GracefulStop)
  requires static org.jspecify;

  // picocli reads the commands' annotated fields and methods, and sets the options, by reflection.
  opens io.switchboard.cli to
      info.picocli;
}
