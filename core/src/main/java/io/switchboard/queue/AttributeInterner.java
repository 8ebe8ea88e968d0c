package io.switchboard.queue;

import java.util.HashMap;
import java.util.Map;

/**
 * Shares equal attribute names and small attribute values among the messages of one queue, so a
 * million messages tagged {@code region=eu} hold one {@code "region"} and one {@code "eu"}. Each
 * shared object counts the messages holding it and is forgotten when the last one leaves: a queue
 * that is empty again holds nothing here. At most {@link #LIMIT} distinct objects are shared at a
 * time; past that new values are kept unshared until room frees up (sharing is only a saving, never
 * a change in what a message carries). Not thread-safe: the owning queue holds its lock.
 */
final class AttributeInterner {

  static final int LIMIT = 100_000;
  private static final int MAX_BYTES = 64;

  private static final class Shared {
    final Object value;
    int holders;

    Shared(Object value) {
      this.value = value;
    }
  }

  private final Map<Object, Shared> shared = new HashMap<>();

  /** Replaces each shareable entry of {@code attributes} by the shared equal one, in place. */
  void hold(Object[] attributes) {
    for (int i = 0; i < attributes.length; i++) {
      Object o = attributes[i];
      if (!shareable(o)) {
        continue;
      }
      Shared s = shared.get(o);
      if (s == null) {
        if (shared.size() >= LIMIT) {
          continue;
        }
        s = new Shared(o);
        shared.put(o, s);
      }
      s.holders++;
      attributes[i] = s.value;
    }
  }

  /** Gives up what {@link #hold} counted for {@code attributes}; the message is leaving. */
  void release(Object[] attributes) {
    for (Object o : attributes) {
      if (!shareable(o)) {
        continue;
      }
      Shared s = shared.get(o);
      // The same object, not an equal one: a value kept unshared while the map was full was
      // never counted.
      if (s != null && s.value == o && --s.holders == 0) {
        shared.remove(o);
      }
    }
  }

  /** How many distinct objects are shared now (tests). */
  int size() {
    return shared.size();
  }

  void clear() {
    shared.clear();
  }

  private static boolean shareable(Object o) {
    return !(o instanceof AttributeValue v) || v.sizeInBytes() <= MAX_BYTES;
  }
}
