package io.switchboard.server.observability;

import java.util.logging.Level;
import org.slf4j.bridge.SLF4JBridgeHandler;

/** Sends Helidon's {@code java.util.logging} records through SLF4J, once per JVM. */
public final class Logging {

  private static boolean routed;

  private Logging() {}

  public static synchronized void routeJulToSlf4j() {
    if (routed) {
      return;
    }
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    java.util.logging.Logger.getLogger("").setLevel(Level.INFO);
    routed = true;
  }
}
