package io.switchboard.routing;

/**
 * An open-addressing hash map from {@code long} to objects (linear probing, backward-shift
 * deletion, power-of-two capacity at most 2/3 full), so that {@link WaitingLine}'s many lookups per
 * freed agent neither box a key nor hash a string. The same structure as the queue package's map of
 * message ids, kept separate because the packages share no internals. Not thread-safe: the router's
 * lock guards it. Key 0 is the empty marker, so keys must be non-zero.
 */
final class LongMap<V> {

  private static final int MIN_CAPACITY = 16;

  private long[] keys;
  private Object[] values;
  private int size;
  private int mask;

  LongMap() {
    allocate(MIN_CAPACITY);
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

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  V get(long key) {
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

  void put(long key, V value) {
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
  V remove(long key) {
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
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        int j = hash(oldKeys[i]) & mask;
        while (keys[j] != 0) {
          j = (j + 1) & mask;
        }
        keys[j] = oldKeys[i];
        values[j] = oldValues[i];
      }
    }
  }
}
