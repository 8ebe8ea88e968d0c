package io.switchboard.server.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The web console's sessions: how long they live, what ends them, and that a session made on one
 * server of a store is one on every other ({@code docs/security.md}).
 */
class ConsoleSessionsTest {

  private final ManualClock now = ManualClock.create();
  private final Principal admin = Principal.admin("AKADMIN", "s");
  private final MemoryKeyRing keys = new MemoryKeyRing(List.of(admin));
  private final SystemRecords store = SystemRecords.inMemory();
  private final Console console = console();

  private Console console() {
    Console c = new Console(keys, now);
    c.attach(store);
    return c;
  }

  @Test
  void aSession_livesWhileUsed_andEndsAfterEightIdleHours() {
    ConsoleSessions.Opened s = console.open(admin);
    assertNotEquals(s.token(), s.csrf());
    now.advanceMillis(ConsoleSessions.RENEW.toMillis() - 1);
    assertTrue(console.live(s.token()).orElseThrow().renewed().isEmpty(), "renewed after 1 min");
    now.advanceMillis(Console.IDLE.toMillis() - ConsoleSessions.RENEW.toMillis() + 1);
    // idle exactly 8 h: still live, and renewed now
    ConsoleSessions.Session used = console.live(s.token()).orElseThrow();
    assertEquals("AKADMIN", used.keyId());
    assertEquals(s.csrf(), used.csrf(), "the CSRF token stays the session's");
    String renewed = used.renewed().orElseThrow();
    now.advanceMillis(1);
    assertTrue(console.live(s.token()).isEmpty(), "the old cookie: 8 h and 1 ms idle, ended");
    assertTrue(console.live(renewed).isPresent(), "the renewed cookie lives on");
    now.advanceMillis(Console.IDLE.toMillis());
    assertTrue(console.live(renewed).isEmpty(), "8 h idle after its renewal: ended");
  }

  @Test
  void revokingTheKey_orSigningOut_endsTheSession() {
    ConsoleSessions.Opened a = console.open(admin);
    ConsoleSessions.Opened b = console.open(admin);
    console.close(a.token());
    assertTrue(console.live(a.token()).isEmpty());
    assertTrue(console.live(b.token()).isPresent());
    keys.revoke("AKADMIN");
    assertTrue(console.live(b.token()).isEmpty());
    keys.put(Principal.admin("AKADMIN", "a new secret"));
    assertTrue(
        console.live(b.token()).isEmpty(),
        "a key put back with a new secret does not revive its sessions");
  }

  @Test
  void aSessionMadeOnOneServer_isOneOnAnotherOfTheStore_andSignedOutThereToo() {
    Console other = console();
    ConsoleSessions.Opened s = console.open(admin);
    ConsoleSessions.Session there = other.live(s.token()).orElseThrow();
    assertEquals("AKADMIN", there.keyId());
    assertEquals(s.csrf(), there.csrf());
    other.close(s.token());
    assertTrue(console.live(s.token()).isEmpty(), "signed out on the other: ended here at once");
  }

  @Test
  void aSignOutRecord_isDeletedOnceTheSessionCouldNoLongerLive() {
    console.close(console.open(admin).token());
    assertEquals(1, store.list(ConsoleSessions.SIGNED_OUT).size());
    now.advance(Console.IDLE.plus(ConsoleSessions.RENEW).plusMillis(1));
    console.close(console.open(admin).token());
    assertEquals(1, store.list(ConsoleSessions.SIGNED_OUT).size(), "the first one deleted");
  }

  @Test
  void aForgedOrChangedToken_isNoSession() {
    assertTrue(console.live("forged").isEmpty());
    String token = console.open(admin).token();
    String[] parts = token.split("\\.");
    // every byte counts: a changed time, key id, session id or MAC is no session
    for (int i = 1; i < parts.length; i++) {
      String[] changed = parts.clone();
      char c = changed[i].charAt(0);
      changed[i] = (c == 'A' ? 'B' : 'A') + changed[i].substring(1);
      assertTrue(console.live(String.join(".", changed)).isEmpty(), "part " + i + " changed");
    }
    assertTrue(console.live(token + "x").isEmpty());
    Console elsewhere = new Console(keys, now); // a server of another store: another key
    assertTrue(elsewhere.live(token).isEmpty(), "signed under another store's key");
    assertTrue(elsewhere.live(elsewhere.open(admin).token()).isPresent());
  }
}
