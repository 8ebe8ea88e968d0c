package io.switchboard.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Pages through a queue in delivery order without leasing: available messages from the ordering
 * (through the attribute index when the filter is a selector it can serve), merged with delayed and
 * in-flight ones when asked. The cursor is the (priority, seq, serial) of the last message shown,
 * so a page starts right after it even if that message is gone.
 *
 * <p>A filtered page tests at most one {@link Scan} budget of messages: when that is spent it ends
 * early, with what it found (perhaps nothing) and a cursor at the last message tested, so a costly
 * filter pages through a deep queue instead of holding its lock.
 *
 * <p>Every source is an ordered set read from the cursor on (the available messages, or the
 * attribute index; with {@code includeInvisible} also the delayed and in-flight ones, merged), so
 * an unfiltered page examines at most {@code limit + 1} messages and a filtered one at most its
 * scan's budget, however deep the queue.
 *
 * <p>A page also ends early, with a cursor, before its messages' bodies and attributes would pass
 * {@code maxAnswerBytes} ({@link QueueLimits#maxAnswerBytes}); it always holds at least one.
 */
final class Browser {

  private Browser() {}

  /**
   * A page; {@code store}, when some messages are only in the store ({@link HotWindow}), gives the
   * available messages after a place from there instead of from the heap; {@code invisible} gives
   * the delayed and in-flight ones after a place (from the store too when some are only there).
   */
  static Page page(
      MessageTable table,
      java.util.function.@Nullable Function<@Nullable StoredMessage, Iterable<StoredMessage>> store,
      java.util.function.Function<@Nullable StoredMessage, Iterable<StoredMessage>> invisible,
      BrowseRequest request,
      long now,
      java.util.function.Function<StoredMessage, Message> view,
      Scan scan,
      long maxAnswerBytes,
      HoldWork work) {
    StoredMessage after = request.cursor().map(Browser::decodeCursor).orElse(null);
    MessageFilter filter = request.filter().orElse(null);
    Iterable<StoredMessage> available =
        store != null ? store.apply(after) : table.ordering().candidates(after, filter);
    Iterable<StoredMessage> candidates =
        request.includeInvisible()
            ? BrowseMerge.merge(available, invisible.apply(after), table.order())
            : available;
    List<Message> items = new ArrayList<>();
    StoredMessage last = null;
    boolean more = false;
    long bytes = 0;
    for (StoredMessage m : candidates) {
      if (filter == null) {
        work.examined(1); // a filtered page's tests are counted by its scan
      }
      boolean matches = filter == null || filter.test(m, now);
      if (matches) {
        long size = m.body.length + AttributeMap.bytes(m.attributes);
        if (items.size() == request.limit()
            || (!items.isEmpty() && bytes + size > maxAnswerBytes)) {
          more = true;
          break;
        }
        bytes += size;
        items.add(view.apply(m));
        last = m;
      }
      if (filter != null && scan.charge(m)) {
        last = m; // the next page resumes after the last message tested
        more = true;
        break;
      }
    }
    return new Page(
        items, more ? Optional.of(encodeCursor(Objects.requireNonNull(last))) : Optional.empty());
  }

  private static String encodeCursor(StoredMessage m) {
    return m.priority + ":" + m.seq + ":" + m.serial;
  }

  private static StoredMessage decodeCursor(String cursor) {
    String[] parts = cursor.split(":", -1);
    try {
      if (parts.length == 3) {
        return StoredMessage.probe(
            Long.parseLong(parts[2]), Long.parseLong(parts[1]), Integer.parseInt(parts[0]));
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw QueueException.invalid(
        "cursor must be one returned by a previous browse, got '" + cursor + "'");
  }
}
