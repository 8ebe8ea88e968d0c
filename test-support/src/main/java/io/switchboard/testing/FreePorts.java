package io.switchboard.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/**
 * A TCP port free at the time of asking, for a server a test starts that must be told its port in
 * advance (an embedded PostgreSQL, a configuration naming a port). Prefer port 0 wherever the
 * server can bind it and report the port it got: a port found here may be taken by another process
 * before the test binds it.
 */
public final class FreePorts {

  private FreePorts() {}

  /** A port no socket of this machine was bound to a moment ago. */
  public static int free() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port: " + e.getMessage(), e);
    }
  }
}
