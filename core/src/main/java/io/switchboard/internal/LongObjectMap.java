package io.switchboard.internal;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * An open-addressing hash map from {@code long} to objects: linear probing, backward-shift deletion
 * (no tombstones), power-of-two capacity at most 2/3 full. About 18 bytes per entry where a {@code
 * HashMap<Long, V>} spends about 70, and a lookup neither boxes its key nor hashes a string. Used
 * by the queue engine (messages by id) and the router (waiting groups and reservations by key). Not
 * thread-safe; callers hold their lock. Key 0 is reserved as the empty marker, so keys must be
 * non-zero.
 *
 * <p>Internal to Switchboard: public only so that core's packages can share it; not an API.
 */
public final class LongObjectMap<V> {

  private static final int MIN_CAPACITY = 16;

  /**
   * What an empty map points at until its first put (shared, never written: a put on it resizes
   * first), so an empty map, one per idle queue, costs its header and no arrays. One zero slot and
   * mask 0: a lookup reads slot 0, finds the empty marker and stops.
   */
  private static final long[] NO_KEYS = new long[1];

  private static final @Nullable Object[] NO_VALUES = new Object[1];

  private long[] keys;
  private @Nullable Object[] values;
  private int size;
  private int mask;

  /** An empty map (no arrays until its first put). */
  public LongObjectMap() {
    empty();
  }

  private void empty() {
    keys = NO_KEYS;
    values = NO_VALUES;
    mask = 0;
  }

  private void allocate(int capacity) {
    keys = new long[capacity];
    values = new Object[capacity];
    mask = capacity - 1;
  }

  private static int hash(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  public int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  public @Nullable V get(long key) {
    for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
      long k = keys[i];
      if (k == key) {
        return (V) values[i];
      }
      if (k == 0) {
        return null;
      }
    }
  }

  public void put(long key, V value) {
    if (key == 0) {
      throw new IllegalArgumentException("key 0 is reserved");
    }
    if ((size + 1) * 3L > keys.length * 2L) {
      resize(keys.length * 2);
    }
    for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
      long k = keys[i];
      if (k == 0) {
        keys[i] = key;
        values[i] = value;
        size++;
        return;
      }
      if (k == key) {
        values[i] = value;
        return;
      }
    }
  }

  @SuppressWarnings("unchecked")
  public @Nullable V remove(long key) {
    for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
      long k = keys[i];
      if (k == 0) {
        return null;
      }
      if (k == key) {
        V old = (V) values[i];
        shiftBack(i);
        size--;
        if (keys.length > MIN_CAPACITY && size * 8L < keys.length) {
          resize(keys.length / 2);
        }
        return old;
      }
    }
  }

  /** Backward-shift deletion: pull later entries of the probe run into the hole. */
  private void shiftBack(int hole) {
    int i = hole;
    while (true) {
      i = (i + 1) & mask;
      long k = keys[i];
      if (k == 0) {
        break;
      }
      int home = hash(k) & mask;
      // Move k into the hole when its home is not in (hole, i] cyclically.
      boolean between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
      if (!between) {
        keys[hole] = k;
        values[hole] = values[i];
        hole = i;
      }
    }
    keys[hole] = 0;
    values[hole] = null;
  }

  private void resize(int capacity) {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    allocate(Math.max(MIN_CAPACITY, capacity));
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        insertFresh(oldKeys[i], oldValues[i]);
      }
    }
  }

  private void insertFresh(long key, Object value) {
    int i = hash(key) & mask;
    while (keys[i] != 0) {
      i = (i + 1) & mask;
    }
    keys[i] = key;
    values[i] = value;
    size++;
  }

  @SuppressWarnings("unchecked")
  public void forEachValue(Consumer<? super V> action) {
    Object[] snapshot = values;
    for (Object v : snapshot) {
      if (v != null) {
        action.accept((V) v);
      }
    }
  }

  public void clear() {
    empty();
    size = 0;
  }

  @Override
  public String toString() {
    return "LongObjectMap[size=" + size + ", capacity=" + keys.length + "]";
  }
}
