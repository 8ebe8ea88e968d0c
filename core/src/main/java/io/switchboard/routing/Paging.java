package io.switchboard.routing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Function;

/**
 * The pages of the routing lists ({@link ListRequest}): the first entries after a cursor, picked in
 * one pass under the router's lock (a bounded heap of {@code limit + 1}, never a sort of the whole
 * list), and the opaque cursors, which name the list they belong to and the last entry's key.
 */
final class Paging {

  private Paging() {}

  /** Collects the first {@code limit + 1} entries offered, in {@code order}. */
  static final class Picker<R> {
    private final Comparator<R> order;
    private final int keep;
    private final PriorityQueue<R> kept;

    Picker(Comparator<R> order, int limit) {
      this.order = order;
      this.keep = limit + 1;
      this.kept = new PriorityQueue<>(Math.min(keep, 64), order.reversed());
    }

    void offer(R entry) {
      if (kept.size() < keep) {
        kept.add(entry);
      } else if (order.compare(entry, kept.peek()) < 0) {
        kept.poll();
        kept.add(entry);
      }
    }

    /** The page: up to {@code limit} entries, with a cursor when one more was found. */
    <T> ListPage<T> page(String list, Function<R, String> key, Function<R, T> view) {
      List<R> first = new ArrayList<>(kept);
      first.sort(order);
      if (first.size() < keep) {
        return new ListPage<>(first.stream().map(view).toList(), java.util.Optional.empty());
      }
      List<R> shown = first.subList(0, keep - 1);
      String next = cursor(list, key.apply(shown.get(shown.size() - 1)));
      return new ListPage<>(shown.stream().map(view).toList(), java.util.Optional.of(next));
    }
  }

  static String cursor(String list, String key) {
    byte[] text = (list + ":" + key).getBytes(StandardCharsets.UTF_8);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text);
  }

  /** The key a cursor of {@code list} holds; a cursor of another list, or none, is refused. */
  static String key(String list, String cursor) {
    String text;
    try {
      text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw badCursor(list, cursor);
    }
    if (!text.startsWith(list + ":")) {
      throw badCursor(list, cursor);
    }
    return text.substring(list.length() + 1);
  }

  static RoutingException badCursor(String list, String cursor) {
    String shown = cursor.length() > 64 ? cursor.substring(0, 64) + "..." : cursor;
    return RoutingException.invalid(
        "cursor must be the nextCursor of an earlier page of the "
            + list
            + " list, got '"
            + shown
            + "'");
  }
}
