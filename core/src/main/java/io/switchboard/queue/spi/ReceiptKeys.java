package io.switchboard.queue.spi;

import java.security.SecureRandom;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's receipt key: 256 random bits, made on the first start of a store and kept in its
 * {@link SystemRecords} under {@value #RECORD}, so handles stay valid across restarts and every
 * server sharing the store (a PostgreSQL cluster) issues and accepts the same ones. Gives each
 * queue its {@link ReceiptKey}, derived once and kept (engines that look a queue up by name on
 * every call use {@link #forQueue}; the cache holds one entry per queue name).
 */
public final class ReceiptKeys {

  /** The system record that holds the server's receipt key. */
  public static final String RECORD = "server/receipt-key";

  /** The key's length in bytes (256 bits). */
  public static final int KEY_BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] serverKey;
  private final ConcurrentHashMap<String, Entry> byQueue = new ConcurrentHashMap<>();

  private record Entry(long seed, ReceiptKey key) {}

  private ReceiptKeys(byte[] serverKey) {
    this.serverKey = serverKey.clone();
  }

  /**
   * The key stored in {@code records}, made and stored first if there is none (the first start of a
   * store; of servers starting together, all end up with the one stored first).
   *
   * @throws IllegalStateException when the stored record is not a key (the store is damaged)
   */
  public static ReceiptKeys load(SystemRecords records) {
    byte[] fresh = new byte[KEY_BYTES];
    RANDOM.nextBytes(fresh);
    byte[] stored = records.putIfAbsent(RECORD, fresh);
    if (stored.length != KEY_BYTES) {
      throw new IllegalStateException(
          "the system record "
              + RECORD
              + " holds "
              + stored.length
              + " bytes, not a "
              + KEY_BYTES
              + "-byte key: the store is damaged; delete the record to make a new key (every"
              + " receipt handle issued so far then becomes invalid)");
    }
    return new ReceiptKeys(stored);
  }

  /** Keys under a given server key (tests). */
  public static ReceiptKeys of(byte[] serverKey) {
    if (Objects.requireNonNull(serverKey, "serverKey").length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "a receipt key must be " + KEY_BYTES + " bytes, got " + serverKey.length);
    }
    return new ReceiptKeys(serverKey);
  }

  /** The key of queue {@code queue} created with {@code seed}, derived now (not cached). */
  public ReceiptKey derive(String queue, long seed) {
    return ReceiptKey.derive(serverKey, queue, seed);
  }

  /** As {@link #derive}, from the cache when this queue's key was derived before. */
  public ReceiptKey forQueue(String queue, long seed) {
    Entry e = byQueue.get(queue);
    if (e == null || e.seed() != seed) {
      e = new Entry(seed, derive(queue, seed));
      byQueue.put(queue, e);
    }
    return e.key();
  }

  @Override
  public String toString() {
    return "ReceiptKeys[hidden]";
  }
}
