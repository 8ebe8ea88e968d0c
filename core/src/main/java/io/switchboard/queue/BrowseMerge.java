package io.switchboard.queue;

import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Merges two iterables that are each sorted by the same order into one sorted, lazy iterable. */
final class BrowseMerge {

  private BrowseMerge() {}

  static Iterable<StoredMessage> merge(
      Iterable<StoredMessage> a, Iterable<StoredMessage> b, Comparator<StoredMessage> order) {
    return () ->
        new Iterator<>() {
          private final Iterator<StoredMessage> left = a.iterator();
          private final Iterator<StoredMessage> right = b.iterator();
          private @Nullable StoredMessage l = advance(left);
          private @Nullable StoredMessage r = advance(right);

          @Override
          public boolean hasNext() {
            return l != null || r != null;
          }

          @Override
          public StoredMessage next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            StoredMessage out;
            if (r == null || (l != null && order.compare(l, r) <= 0)) {
              out = l;
              l = advance(left);
            } else {
              out = r;
              r = advance(right);
            }
            return Objects.requireNonNull(out);
          }
        };
  }

  private static @Nullable StoredMessage advance(Iterator<StoredMessage> it) {
    return it.hasNext() ? it.next() : null;
  }
}
