package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The web console's sessions: how long they live and what ends them ({@code docs/security.md}). */
class ConsoleSessionsTest {

  private final ManualClock now = ManualClock.create();
  private final MemoryKeyRing keys = new MemoryKeyRing(List.of(Principal.admin("AKADMIN", "s")));
  private final Console console = new Console(keys, now);

  @Test
  void aSession_livesWhileUsed_andEndsAfterEightIdleHours() {
    Console.Opened s = console.open("AKADMIN");
    assertNotEquals(s.token(), s.csrf());
    assertTrue(s.token().length() >= 43, "256 random bits: " + s.token());
    now.advance(Console.IDLE); // idle exactly 8 h: still live, and used again now
    assertEquals("AKADMIN", console.live(s.token()).orElseThrow().keyId());
    now.advanceMillis(Console.IDLE.toMillis() + 1);
    assertTrue(console.live(s.token()).isEmpty(), "8 h and 1 ms idle: ended");
    assertTrue(console.live(s.token()).isEmpty(), "and stays ended");
  }

  @Test
  void revokingTheKey_orSigningOut_endsTheSession() {
    Console.Opened a = console.open("AKADMIN");
    Console.Opened b = console.open("AKADMIN");
    console.close(a.token());
    assertTrue(console.live(a.token()).isEmpty());
    assertTrue(console.live(b.token()).isPresent());
    keys.revoke("AKADMIN");
    assertTrue(console.live(b.token()).isEmpty());
    keys.put(Principal.admin("AKADMIN", "s"));
    assertTrue(console.live(b.token()).isEmpty(), "a key put back does not revive its sessions");
  }

  @Test
  void anUnknownToken_isNoSession() {
    assertTrue(console.live("forged").isEmpty());
  }
}
