package io.switchboard.queue;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An immutable map view over a message's flat attribute array, so handing attributes to a caller
 * copies nothing. The array is never mutated after it is built (updates replace it).
 */
final class AttributeMap extends AbstractMap<String, AttributeValue> {

  private static final Object[] EMPTY = new Object[0];
  private static final AttributeMap NONE = new AttributeMap(EMPTY);

  private final Object[] entries;

  private AttributeMap(Object[] entries) {
    this.entries = entries;
  }

  static Map<String, AttributeValue> of(Object[] entries) {
    return entries.length == 0 ? NONE : new AttributeMap(entries);
  }

  static Object[] empty() {
    return EMPTY;
  }

  /** The flat [name, value, ...] array a message keeps; the shared empty array for none. */
  static Object[] flatten(Map<String, AttributeValue> attributes) {
    if (attributes.isEmpty()) {
      return EMPTY;
    }
    Object[] flat = new Object[attributes.size() * 2];
    int i = 0;
    for (Map.Entry<String, AttributeValue> e : attributes.entrySet()) {
      flat[i++] = e.getKey();
      flat[i++] = e.getValue();
    }
    return flat;
  }

  /**
   * What a message's flat attribute array weighs as {@code maxMessageSize} counts it: each name's
   * length plus its value's size.
   */
  static int bytes(Object[] entries) {
    int size = 0;
    for (int i = 0; i < entries.length; i += 2) {
      size += ((String) entries[i]).length() + ((AttributeValue) entries[i + 1]).sizeInBytes();
    }
    return size;
  }

  /** The same for attributes not yet flattened. */
  static int bytes(Map<String, AttributeValue> attributes) {
    int size = 0;
    for (Map.Entry<String, AttributeValue> e : attributes.entrySet()) {
      size += e.getKey().length() + e.getValue().sizeInBytes();
    }
    return size;
  }

  @Override
  public int size() {
    return entries.length / 2;
  }

  @Override
  public @Nullable AttributeValue get(Object key) {
    for (int i = 0; i < entries.length; i += 2) {
      if (entries[i].equals(key)) {
        return (AttributeValue) entries[i + 1];
      }
    }
    return null;
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  @Override
  public Set<Entry<String, AttributeValue>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return entries.length / 2;
      }

      @Override
      public Iterator<Entry<String, AttributeValue>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < entries.length;
          }

          @Override
          public Entry<String, AttributeValue> next() {
            if (next >= entries.length) {
              throw new NoSuchElementException();
            }
            Entry<String, AttributeValue> e =
                new SimpleImmutableEntry<>(
                    (String) entries[next], (AttributeValue) entries[next + 1]);
            next += 2;
            return e;
          }
        };
      }
    };
  }
}
