package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.internal.LongObjectMap;
import org.junit.jupiter.api.Test;

/** The visibility-timer use of {@link DueIndex}: entries live while the message still has them. */
class DueIndexTest {

  private final LongObjectMap<StoredMessage> live = new LongObjectMap<>();
  private final DueIndex timers = new DueIndex(m -> m.isTimed() ? m.visibleAt : DueIndex.NOT_DUE);

  private StoredMessage leased(long serial, long visibleAt) {
    StoredMessage m = StoredMessage.probe(serial, serial, 0);
    m.state = StoredMessage.IN_FLIGHT;
    m.visibleAt = visibleAt;
    live.put(serial, m);
    timers.add(visibleAt, serial);
    return m;
  }

  @Test
  void first_skipsMessagesGoneOrNoLongerTimed_andTheirEntriesGo() {
    leased(1, 100);
    StoredMessage two = leased(2, 200);
    StoredMessage three = leased(3, 300);
    live.remove(1); // acked
    two.state = StoredMessage.AVAILABLE; // released
    two.visibleAt = 0;
    assertSame(three, timers.first(live::get));
    assertEquals(1, timers.entries(), "the stale entries in front were dropped");
  }

  @Test
  void first_aLeaseMovedToAnotherTime_firesAtTheNewTimeOnly() {
    StoredMessage m = leased(1, 500);
    StoredMessage other = leased(2, 300);
    m.visibleAt = 100; // extended to an earlier deadline: a new entry, the old one goes stale
    timers.add(100, 1);
    assertSame(m, timers.first(live::get));
    live.remove(1);
    assertSame(other, timers.first(live::get), "the entry at 500 is stale, not fired");
  }

  @Test
  void first_earliestOfFifoAndOutOfOrderEntries() {
    leased(1, 1_000);
    StoredMessage early = leased(2, 50); // earlier than the FIFO's last: kept out of order
    assertSame(early, timers.first(live::get));
    live.remove(2);
    assertEquals(1, timers.first(live::get).serial);
    live.remove(1);
    assertNull(timers.first(live::get));
  }

  @Test
  void aFarFutureEntry_holdsTheFifoBackOnlyWhileItIsThere() {
    leased(1, 1_000_000); // a long delay
    leased(2, 100); // out of order
    live.remove(1);
    live.remove(2);
    assertNull(timers.first(live::get));
    for (long s = 3; s < 103; s++) {
      leased(s, s * 10);
    }
    assertEquals(100, timers.entries());
    assertEquals(3, timers.first(live::get).serial, "in the FIFO again, in order");
  }

  @Test
  void compact_dropsStaleEntriesOnceTheyOutnumberTheTimedMessages() {
    for (long s = 1; s <= 10_000; s++) {
      leased(s, 1_000 + s);
      if (s % 100 != 0) {
        live.remove(s); // acked within its lease
      }
    }
    timers.compact(100, live::get);
    assertEquals(100, timers.entries());
    assertEquals(100, timers.first(live::get).serial);
    assertTrue(timers.nextDue() >= 1_100);
  }

  /**
   * An index starts with no tree of buckets (a shared empty one); an out-of-order entry makes its
   * own, and a clear gives it back, so one index's buckets are never another's.
   */
  @Test
  void buckets_areMadeByTheFirstOutOfOrderEntry_andNeverShared() {
    DueIndex other = new DueIndex(m -> m.isTimed() ? m.visibleAt : DueIndex.NOT_DUE);
    leased(1, 1_000);
    StoredMessage early = leased(2, 500); // before the FIFO's last: a bucket
    assertSame(early, timers.first(live::get));
    assertEquals(Long.MAX_VALUE, other.nextDue(), "another index has no entry");
    assertNull(other.first(live::get));
    timers.clear();
    assertEquals(Long.MAX_VALUE, timers.nextDue());
    assertNull(timers.first(live::get));
    leased(3, 2_000);
    StoredMessage earlier = leased(4, 100);
    assertEquals(100, timers.nextDue());
    assertSame(earlier, timers.first(live::get));
  }
}
