package io.switchboard.queue.spi;

import io.switchboard.queue.QueueException;
import java.util.Optional;
import java.util.SortedMap;

/**
 * Small records that belong to the server rather than to a queue: access keys, server secrets (the
 * receipt key). Kept in the engine's store, so they survive a restart (durable engines) and are
 * seen at once by every server sharing the store (a PostgreSQL cluster). An in-memory engine keeps
 * them for its lifetime only.
 *
 * <p>Keys are names like {@code server/receipt-key} or {@code key/AKIDEXAMPLE}: 1 to {@value
 * #MAX_KEY_LENGTH} characters, none of them a control character; a prefix (ending in {@code /})
 * groups records of one kind for {@link #list}. Values are opaque bytes, at most {@value
 * #MAX_VALUE_BYTES}. Every method is safe from any number of threads; a method that throws has
 * changed nothing. Arrays passed in and returned are copies: changing one changes nothing stored.
 */
public interface SystemRecords {

  /** The longest key, in characters. */
  int MAX_KEY_LENGTH = 512;

  /** The largest value, in bytes (1 MiB). */
  int MAX_VALUE_BYTES = 1 << 20;

  /** The value stored under {@code key}, if any. */
  Optional<byte[]> get(String key);

  /** Stores {@code value} under {@code key}, replacing any; durable when it returns. */
  void put(String key, byte[] value);

  /**
   * Stores {@code value} under {@code key} unless a value is there already, and returns what is
   * stored now: {@code value}, or the one that was there. Of several callers racing for an absent
   * key (on any number of servers sharing the store), all get the same answer. Durable when it
   * returns.
   */
  byte[] putIfAbsent(String key, byte[] value);

  /** Deletes the record under {@code key}; whether there was one. Durable when it returns. */
  boolean delete(String key);

  /** Every record whose key starts with {@code prefix} ("" for all), sorted by key. */
  SortedMap<String, byte[]> list(String prefix);

  /** Records kept in memory only, for engines that keep nothing across a restart. */
  static SystemRecords inMemory() {
    return new VolatileSystemRecords();
  }

  /** Refuses (INVALID_ARGUMENT) a key that is empty, too long or holds a control character. */
  static String checkKey(String key) {
    if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw QueueException.invalid(
          "a system record key must be 1.."
              + MAX_KEY_LENGTH
              + " characters, got "
              + (key == null ? "null" : key.length() + " characters"));
    }
    for (int i = 0; i < key.length(); i++) {
      if (Character.isISOControl(key.charAt(i))) {
        throw QueueException.invalid(
            "a system record key must not hold control characters, got one at index " + i);
      }
    }
    return key;
  }

  /** Refuses (INVALID_ARGUMENT) a missing value or one over {@link #MAX_VALUE_BYTES}. */
  static byte[] checkValue(byte[] value) {
    if (value == null || value.length > MAX_VALUE_BYTES) {
      throw QueueException.invalid(
          "a system record value must be 0.."
              + MAX_VALUE_BYTES
              + " bytes, got "
              + (value == null ? "null" : value.length + " bytes"));
    }
    return value;
  }

  /** Refuses (INVALID_ARGUMENT) a missing prefix. */
  static String checkPrefix(String prefix) {
    if (prefix == null) {
      throw QueueException.invalid(
          "a system record prefix must be a string (\"\" for all), got null");
    }
    return prefix;
  }
}
