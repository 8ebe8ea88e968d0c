package io.switchboard.server.http;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Request ids: random version-4 UUIDs drawn from {@link ThreadLocalRandom}. A request id must be
 * unique, not unpredictable (it grants nothing), so it does not pay for {@link UUID#randomUUID()}'s
 * {@code SecureRandom}, which serialises every request on one lock and reads the system's entropy.
 */
public final class RequestIds {

  private RequestIds() {}

  public static String next() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long hi = (r.nextLong() & ~0xF000L) | 0x4000L; // version 4
    long lo = (r.nextLong() & ~(0xC000L << 48)) | (0x8000L << 48); // IETF variant
    return new UUID(hi, lo).toString();
  }
}
