package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A store that refuses a write: the call fails with UNAVAILABLE, the router stops (memory would be
 * ahead of the store), and a router rebuilt on the store has exactly what was stored before.
 */
class RouterStoreFailureTest {

  /** A memory journal whose durable appends fail once {@link #failing} is set. */
  private static final class FailingJournal implements RouterJournal {
    final MemoryRouterJournal stored = new MemoryRouterJournal();
    volatile boolean failing;

    @Override
    public RouterSnapshot load() {
      return stored.load();
    }

    @Override
    public void append(List<RouterEntry> entries) {
      stored.append(entries);
    }

    @Override
    public Ticket appendDurable(List<RouterEntry> entries) {
      if (!failing) {
        return stored.appendDurable(entries);
      }
      return () -> {
        throw RoutingException.unavailable("disk full", new java.io.IOException("ENOSPC"));
      };
    }

    @Override
    public void close() {}
  }

  @Test
  void aFailedWrite_stopsTheRouter_andARestartHasWhatWasStored() {
    ManualClock clock = ManualClock.create();
    FailingJournal journal = new FailingJournal();
    Router router = Router.builder().clock(clock).journal(journal).build();
    router.createAgent(NewAgent.builder("ana").capacity("voice", 1).build());

    journal.failing = true;
    RoutingException failed =
        assertThrows(
            RoutingException.class,
            () -> router.createContact(NewContact.builder("c1", "voice").build()));
    assertEquals(RoutingErrorCode.UNAVAILABLE, failed.code());
    assertTrue(failed.getMessage().contains("disk full"), failed.getMessage());
    RoutingException stopped = assertThrows(RoutingException.class, () -> router.agent("ana"));
    assertEquals(RoutingErrorCode.UNAVAILABLE, stopped.code());
    assertTrue(stopped.getMessage().contains("restart"), stopped.getMessage());

    journal.failing = false;
    Router restarted = Router.builder().clock(clock).journal(journal).build();
    assertEquals("ana", restarted.agent("ana").id());
    RoutingException gone = assertThrows(RoutingException.class, () -> restarted.contact("c1"));
    assertEquals(RoutingErrorCode.CONTACT_NOT_FOUND, gone.code());
    restarted.createContact(NewContact.builder("c1", "voice").build());
    assertEquals(ContactState.QUEUED, restarted.contact("c1").state());
  }
}
