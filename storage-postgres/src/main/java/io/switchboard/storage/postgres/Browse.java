package io.switchboard.storage.postgres;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.Order;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueStats;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Reads without leasing: browse pages, history by id, and stats. */
final class Browse {

  private static final int CHUNK = 256;

  private Browse() {}

  /**
   * A page in delivery order. The cursor is the (priority, seq, serial) of the last message shown,
   * so a page starts right after it even if that message is gone. A page also ends, with a cursor,
   * before its bodies and attributes would pass {@code maxAnswerBytes} (it holds at least one).
   */
  static Page page(Op op, BrowseRequest request, long maxAnswerBytes) throws SQLException {
    long[] after = request.cursor().map(Browse::decodeCursor).orElse(null);
    MessageFilter filter = request.filter().orElse(null);
    boolean fifo = op.q.grouped() || op.q.config().order() == Order.FIFO;
    String visible =
        request.includeInvisible() ? "" : " and not leased and visible_at <= ? and expires_at > ?";
    Pushdown.Condition pushed = Pushdown.condition(filter, op.q.config().indexedAttributes());
    List<Message> items = new ArrayList<>();
    Row last = null;
    boolean more = false;
    long bytes = 0;
    while (!more) {
      String keyset =
          after == null
              ? ""
              : " and (priority < ? or (priority = ? and seq "
                  + (fifo ? ">" : "<")
                  + " ?) or (priority = ? and seq = ? and serial > ?))";
      List<Row> chunk = new ArrayList<>();
      try (PreparedStatement ps =
          op.c.prepareStatement(
              "select "
                  + Row.COLS
                  + " from sb_message where "
                  + op.q.ofQueue()
                  + visible
                  + keyset
                  + (pushed == null ? "" : " and " + pushed.sql())
                  + " order by "
                  + op.q.orderBy()
                  + ", serial limit "
                  + CHUNK)) {
        int i = 1;
        ps.setLong(i++, op.q.id());
        if (!request.includeInvisible()) {
          ps.setLong(i++, op.now);
          ps.setLong(i++, op.now);
        }
        if (after != null) {
          ps.setInt(i++, (int) after[0]);
          ps.setInt(i++, (int) after[0]);
          ps.setLong(i++, after[1]);
          ps.setInt(i++, (int) after[0]);
          ps.setLong(i++, after[1]);
          ps.setLong(i++, after[2]);
        }
        if (pushed != null) {
          for (String[] p : pushed.params()) {
            ps.setArray(i++, op.c.createArrayOf("text", p));
          }
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            chunk.add(Row.read(rs));
          }
        }
      }
      for (Row r : chunk) {
        if (filter != null && !filter.test(r, op.now)) {
          continue;
        }
        int size = r.answerBytes();
        if (items.size() == request.limit()
            || (!items.isEmpty() && bytes + size > maxAnswerBytes)) {
          more = true;
          break;
        }
        bytes += size;
        items.add(op.view(r, null));
        last = r;
      }
      if (chunk.size() < CHUNK) {
        break;
      }
      Row end = chunk.get(chunk.size() - 1);
      after = new long[] {end.priority, end.seq, end.serial};
    }
    if (!more) {
      return new Page(items, Optional.empty());
    }
    Row end = Objects.requireNonNull(last, "a page with more holds an item"); // limit >= 1
    return new Page(items, Optional.of(end.priority + ":" + end.seq + ":" + end.serial));
  }

  private static long[] decodeCursor(String cursor) {
    String[] parts = cursor.split(":", -1);
    try {
      if (parts.length == 3) {
        return new long[] {
          Integer.parseInt(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])
        };
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw QueueException.invalid(
        "cursor must be one returned by a previous browse, got '" + cursor + "'");
  }

  /** A message kept after it left the queue, or null. */
  static @Nullable Message history(Op op, long serial) throws SQLException {
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select "
                + Row.HISTORY_COLS
                + ", state from sb_history where qid = ? and serial = ? and until > ?",
            op.q.id(),
            serial,
            op.now)) {
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Row r = Row.read(rs);
        return op.view(r, null, MessageState.valueOf(rs.getString(Row.COLUMN_COUNT + 1)));
      }
    }
  }

  /** Stats of the queue; {@code pending} are counter changes this server holds in memory. */
  static QueueStats stats(Op op, int waiters, long[] pending) throws SQLException {
    long available = 0;
    long delayed = 0;
    long inFlight = 0;
    long oldest = -1;
    Map<Integer, Long> byPriority = new LinkedHashMap<>();
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select priority, count(*) filter (where visible_at <= ?),"
                + " count(*) filter (where visible_at > ? and not leased),"
                + " count(*) filter (where visible_at > ? and leased), min(sent_at)"
                + " from sb_message where qid = ? group by priority order by priority desc",
            op.now,
            op.now,
            op.now,
            op.q.id())) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long a = rs.getLong(2);
          long d = rs.getLong(3);
          long f = rs.getLong(4);
          available += a;
          delayed += d;
          inFlight += f;
          byPriority.put(rs.getInt(1), a + d + f);
          long sent = rs.getLong(5);
          oldest = oldest < 0 ? sent : Math.min(oldest, sent);
        }
      }
    }
    return new QueueStats(
        available,
        delayed,
        inFlight,
        oldest < 0
            ? Optional.empty()
            : Optional.of(Duration.ofMillis(Math.max(0, op.now - oldest))),
        byPriority,
        waiters,
        op.flushedCounters(pending));
  }
}
