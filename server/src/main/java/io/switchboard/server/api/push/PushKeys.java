package io.switchboard.server.api.push;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageView;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A push subscription's limits per key (docs/design.md, "Push delivery", "Limits per key"): the
 * value of one message attribute (a tenant, say) may have at most {@code maxConcurrent} messages in
 * flight and start at most {@code maxPerSecond} per second (a token bucket of one). It is part of
 * the subscription's receive filter ({@link #admits}), so a receive skips the messages of a key at
 * its limit and takes those behind them: one busy key never holds up the others.
 *
 * <p>Only keys with something in flight, or whose bucket is still refilling, are remembered; the
 * rest are forgotten, so memory follows what is in flight, not how many keys there ever were.
 *
 * <p>The filter runs under the queue's lock, on the receiving thread or on a sender's (a handover
 * to a waiting receive), and may be asked about a message more than once: what it admits during a
 * receive is reserved until the receive has ended ({@link #taken}), so one receive never takes more
 * of a key than its limits allow. Its lock is a leaf: nothing is called while it is held.
 */
final class PushKeys {

  /** How long a receive waits at most while some key is at its limit: a freed key's latency. */
  static final long BLOCKED_WAIT_MILLIS = 100;

  private final io.switchboard.time.Clock clock;
  private final String attribute;
  private final OptionalInt maxConcurrent;
  private final OptionalDouble maxPerSecond;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Key> keys = new HashMap<>();
  private int sweptAt;

  private static final class Key {
    int inFlight;
    int reserved;
    double tokens = 1;
    long refilledAt;
  }

  PushKeys(io.switchboard.time.Clock clock, PushSpec.KeyLimit limit) {
    this.clock = clock;
    this.attribute = limit.attribute();
    this.maxConcurrent = limit.maxConcurrent();
    this.maxPerSecond = limit.maxPerSecond();
  }

  /** The key of a message: its attribute's value when a string or a number, else none. */
  @Nullable String keyOf(MessageView m) {
    return keyOf(m.attributeOrNull(attribute));
  }

  @Nullable String keyOf(Message m) {
    return keyOf(m.attributes().get(attribute));
  }

  private static @Nullable String keyOf(@Nullable AttributeValue v) {
    if (v instanceof AttributeValue.StringValue s) {
      return s.value();
    }
    if (v instanceof AttributeValue.NumberValue n) {
      return n.value();
    }
    return null;
  }

  /** The filter's part: whether {@code m}'s key may have one more message in flight now. */
  MessageFilter filter(Optional<MessageFilter> selector) {
    return new MessageFilter() {
      @Override
      public boolean test(MessageView message) {
        return test(message, clock.millis());
      }

      @Override
      public boolean test(MessageView message, long now) {
        if (selector.isPresent() && !selector.get().test(message, now)) {
          return false;
        }
        return admits(message, now);
      }
    };
  }

  boolean admits(MessageView m, long now) {
    String k = keyOf(m);
    if (k == null) {
      return true;
    }
    lock.lock();
    try {
      Key key = keys.get(k);
      if (key == null) {
        key = new Key();
        key.refilledAt = now;
        keys.put(k, key);
      }
      refill(key, now);
      if (maxConcurrent.isPresent() && key.inFlight + key.reserved >= maxConcurrent.getAsInt()) {
        return false;
      }
      if (maxPerSecond.isPresent() && key.tokens - key.reserved < 1) {
        return false;
      }
      key.reserved++;
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void refill(Key key, long now) {
    if (maxPerSecond.isPresent() && now > key.refilledAt) {
      key.tokens =
          Math.min(1, key.tokens + (now - key.refilledAt) * maxPerSecond.getAsDouble() / 1000.0);
    }
    key.refilledAt = Math.max(key.refilledAt, now);
  }

  /**
   * A receive ended and took {@code got}: each message counts against its key (one in flight, one
   * token), and what the filter reserved is dropped.
   */
  void taken(List<Message> got, long now) {
    lock.lock();
    try {
      for (Key key : keys.values()) {
        key.reserved = 0;
      }
      for (Message m : got) {
        String k = keyOf(m);
        if (k == null) {
          continue;
        }
        Key key = keys.computeIfAbsent(k, x -> new Key());
        refill(key, now);
        key.inFlight++;
        if (maxPerSecond.isPresent()) {
          key.tokens -= 1;
        }
      }
      if (keys.size() > 2 * sweptAt + 64) {
        sweep(now);
      }
    } finally {
      lock.unlock();
    }
  }

  /** A delivery of {@code messages} ended (however): their keys have that much less in flight. */
  void ended(List<Message> messages, long now) {
    lock.lock();
    try {
      for (Message m : messages) {
        String k = keyOf(m);
        Key key = k == null ? null : keys.get(k);
        if (key == null) {
          continue;
        }
        key.inFlight = Math.max(0, key.inFlight - 1);
        refill(key, now);
        if (idle(key)) {
          keys.remove(k);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private boolean idle(Key key) {
    return key.inFlight == 0 && key.reserved == 0 && (maxPerSecond.isEmpty() || key.tokens >= 1);
  }

  private void sweep(long now) {
    for (Iterator<Key> it = keys.values().iterator(); it.hasNext(); ) {
      Key key = it.next();
      refill(key, now);
      if (idle(key)) {
        it.remove();
      }
    }
    sweptAt = keys.size();
  }

  /**
   * Whether some key is at a limit now (so a message of it may wait while the receive does): the
   * receive then waits at most {@link #BLOCKED_WAIT_MILLIS}, and looks again.
   */
  boolean anyAtLimit(long now) {
    lock.lock();
    try {
      sweep(now);
      for (Key key : keys.values()) {
        if (maxConcurrent.isPresent() && key.inFlight >= maxConcurrent.getAsInt()) {
          return true;
        }
        if (maxPerSecond.isPresent() && key.tokens < 1) {
          return true;
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Keys remembered now: for tests, which check that idle keys are forgotten. */
  int remembered() {
    lock.lock();
    try {
      return keys.size();
    } finally {
      lock.unlock();
    }
  }

  /** In flight for {@code key} now: for tests. */
  int inFlight(String key) {
    lock.lock();
    try {
      Key k = keys.get(key);
      return k == null ? 0 : k.inFlight;
    } finally {
      lock.unlock();
    }
  }
}
