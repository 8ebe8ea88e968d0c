package io.switchboard.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code n} items of largest weight among any number offered, in memory of a fixed size: a
 * binary min-heap of {@code n} slots (weights in a {@code long[]}, items in an {@code Object[]}),
 * so offering an item allocates nothing and costs O(log n); an item heavier than the lightest kept
 * replaces it at the root. Among items of equal weight the first offered are kept. Not thread-safe.
 *
 * @param <T> the items
 */
public final class LargestN<T> {
  private final long[] weights;
  private final Object[] items;
  private int kept;

  /** Keeps at most {@code n} (0..) items. */
  public LargestN(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be 0 or more, got " + n);
    }
    weights = new long[n];
    items = new Object[n];
  }

  /** Offers {@code item} of {@code weight}: kept if fewer than n are, or it outweighs one. */
  public void offer(T item, long weight) {
    if (kept < weights.length) {
      int i = kept++;
      while (i > 0 && weights[(i - 1) / 2] > weight) {
        int parent = (i - 1) / 2;
        weights[i] = weights[parent];
        items[i] = items[parent];
        i = parent;
      }
      weights[i] = weight;
      items[i] = item;
    } else if (kept > 0 && weight > weights[0]) {
      int i = 0;
      while (true) {
        int child = 2 * i + 1;
        if (child >= kept) {
          break;
        }
        if (child + 1 < kept && weights[child + 1] < weights[child]) {
          child++;
        }
        if (weights[child] >= weight) {
          break;
        }
        weights[i] = weights[child];
        items[i] = items[child];
        i = child;
      }
      weights[i] = weight;
      items[i] = item;
    }
  }

  /** How many more items would be kept whatever their weight. */
  public int room() {
    return weights.length - kept;
  }

  /** The items kept, heaviest first. */
  @SuppressWarnings("unchecked")
  public List<T> heaviestFirst() {
    Integer[] order = new Integer[kept];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, (a, b) -> Long.compare(weights[b], weights[a]));
    List<T> out = new ArrayList<>(kept);
    for (int i : order) {
      out.add((T) items[i]);
    }
    return out;
  }
}
