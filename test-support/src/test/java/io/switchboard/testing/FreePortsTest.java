package io.switchboard.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void freePort_canBeBound() throws IOException {
    int port = FreePorts.free();
    assertTrue(port > 0 && port < 65_536, "port " + port);
    try (ServerSocket s = new ServerSocket(port)) {
      assertEquals(port, s.getLocalPort());
    }
  }
}
