package io.switchboard.queue;

import io.switchboard.queue.spi.QueueRules;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Moves messages out of a dead-letter queue.
 *
 * @param destination where to; absent sends each message back to the queue it was dead-lettered
 *     from
 * @param maxPerSecond rate limit, 1..100000 messages per second; absent moves as fast as possible
 */
public record RedriveRequest(Optional<String> destination, OptionalInt maxPerSecond) {

  public static final int MAX_RATE = 100_000;

  public RedriveRequest {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(maxPerSecond, "maxPerSecond");
    destination.ifPresent(d -> QueueRules.checkName(d, "destination"));
    if (maxPerSecond.isPresent()
        && (maxPerSecond.getAsInt() < 1 || maxPerSecond.getAsInt() > MAX_RATE)) {
      throw QueueException.invalid(
          "maxPerSecond must be 1..100000 messages per second, got " + maxPerSecond.getAsInt());
    }
  }

  /** Every message back to where it came from, unthrottled. */
  public static RedriveRequest toSources() {
    return new RedriveRequest(Optional.empty(), OptionalInt.empty());
  }

  public static RedriveRequest to(String destination) {
    return new RedriveRequest(Optional.of(destination), OptionalInt.empty());
  }

  public RedriveRequest maxPerSecond(int maxPerSecond) {
    return new RedriveRequest(destination, OptionalInt.of(maxPerSecond));
  }
}
