package io.switchboard.queue;

import io.switchboard.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * One filtered scan through a queue (a receive, a long poll's retry, a browse page) and the budget
 * it may spend in one hold of the queue's lock (DESIGN.md, "Bounded work per request").
 *
 * <p>The budget counts messages tested, the characters of their string attributes (what a
 * selector's cost grows with: LIKE and equality read them), and nanoseconds of the engine's {@link
 * TimeSource#nanoTime} (read only after the first 256 messages of a hold, so that small pages and
 * batches come out whole however busy the machine). Whichever runs out first ends the hold: the
 * scan then answers with what it found or, having found nothing, remembers where it stopped ({@link
 * #after}, a copy of the last message tested, so a message moved or gone meanwhile does not lose
 * the place) and continues there in a new hold, after the threads queued for the lock have had
 * their turn. A scan never tests more messages in all than the queue held eligible when it began
 * ({@link #cap}), so a queue that grows as fast as it is read cannot keep a receive forever.
 */
final class Scan {

  /** What one lock hold may spend; every limit at least 1. */
  record Limits(int messages, long characters, long nanos) {

    /** A few milliseconds at most: 16,384 messages, 1 Mi characters, 2 ms. */
    static final Limits DEFAULT = new Limits(16_384, 1L << 20, 2_000_000L);

    Limits {
      if (messages < 1 || characters < 1 || nanos < 1) {
        throw new IllegalArgumentException("scan limits must be positive");
      }
    }
  }

  /** How often (in messages tested) the clock is read when no message was large. */
  private static final int CLOCK_EVERY = 32;

  /**
   * Messages a hold may always test before the clock can end it, so that on a busy machine a small
   * page or batch is not cut short by a descheduled thread; the character limit still applies.
   */
  private static final int CLOCK_AFTER = 256;

  private static final int LARGE_CHARACTERS = 4096;

  private final Limits limits;
  private final TimeSource clock;

  /** A copy of the position of the last message tested, or null before the first hold. */
  @Nullable StoredMessage after;

  /** Grouped queues walked by ready group: a copy of the last group's position, or null. */
  GroupedOrdering.@Nullable Group afterGroup;

  /** The scan reached the end of the candidates (or filled its batch): nothing left to test. */
  boolean complete;

  private HoldWork work = new HoldWork();
  private long cap = -1;
  private long testedInAll;
  private int tested;
  private long characters;
  private long startedAt;
  private boolean spent;

  Scan(Limits limits, TimeSource clock) {
    this.limits = limits;
    this.clock = clock;
  }

  /**
   * Starts a lock hold with a fresh budget; {@code eligible} is the queue's eligible count, {@code
   * work} the hold's count of entries examined, which each test adds to.
   */
  void startHold(long eligible, HoldWork work) {
    this.work = work;
    if (cap < 0) {
      cap = eligible;
    }
    tested = 0;
    characters = 0;
    spent = false;
    startedAt = clock.nanoTime();
  }

  /** Charges the test of {@code m}; true when this hold's budget is spent. */
  boolean charge(StoredMessage m) {
    tested++;
    testedInAll++;
    work.examined(1);
    long size = stringCharacters(m.attributes);
    characters += size;
    if (tested >= limits.messages() || characters >= limits.characters()) {
      spent = true;
    } else if (tested >= CLOCK_AFTER
        && (size >= LARGE_CHARACTERS || tested % CLOCK_EVERY == 0)
        && clock.nanoTime() - startedAt >= limits.nanos()) {
      spent = true;
    }
    if (spent) {
      after = positionOf(m);
    }
    return spent;
  }

  /** Whether the last hold ended because the budget was spent. */
  boolean spent() {
    return spent;
  }

  /** Whether the scan may go on in another hold: it stopped early and has not read its cap. */
  boolean resumable() {
    return spent && !complete && testedInAll < cap;
  }

  /** Starts over from the first candidate, keeping what this hold has spent (a handover). */
  void restart() {
    after = null;
    afterGroup = null;
    complete = false;
  }

  /** Marks the scan finished: the candidates ran out or the batch is full. */
  void finish() {
    complete = true;
  }

  /**
   * A copy of {@code m}'s place in delivery order (priority, seq, serial; and, for a grouped
   * queue's heads, send time, receive count and lease start).
   */
  static StoredMessage positionOf(StoredMessage m) {
    return StoredMessage.probe(m);
  }

  private static long stringCharacters(Object[] attributes) {
    long n = 0;
    for (int i = 1; i < attributes.length; i += 2) {
      switch (attributes[i]) {
        case AttributeValue.StringValue s -> n += s.value().length();
        case AttributeValue.StringListValue l -> {
          for (String e : l.value()) {
            n += e.length();
          }
        }
        default -> {}
      }
    }
    return n;
  }
}
