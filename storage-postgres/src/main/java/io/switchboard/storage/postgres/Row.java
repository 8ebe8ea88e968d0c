package io.switchboard.storage.postgres;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageView;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Messages;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** One {@code sb_message} (or {@code sb_history}) row, readable by filters. */
final class Row implements MessageView {

  /**
   * The one list of a message's columns, in the order {@link #read} reads them: each column's name,
   * how it is read into its field, and what {@code sb_history} has of it, either the field's value
   * ({@link #kept}, the columns {@code Op.remember} stores) or a constant a history read selects in
   * its place (a kept message is no longer leased or timed). {@link #COLS}, {@link #HISTORY_COLS},
   * {@link #KEPT_COLS}, {@link #read} and {@link #kept} are made from it, so a new column is one
   * line here, its field below, and its place in the schema ({@link Schema}).
   */
  private static final Column[] COLUMNS = {
    kept("serial", (r, rs, i) -> r.serial = rs.getLong(i), r -> r.serial),
    kept("seq", (r, rs, i) -> r.seq = rs.getLong(i), r -> r.seq),
    kept("priority", (r, rs, i) -> r.priority = rs.getInt(i), r -> r.priority),
    notKept("leased", "false", (r, rs, i) -> r.leased = rs.getBoolean(i)),
    notKept("visible_at", "0", (r, rs, i) -> r.visibleAt = rs.getLong(i)),
    kept("expires_at", (r, rs, i) -> r.expiresAt = rs.getLong(i), r -> r.expiresAt),
    notKept("lease_epoch", "0", (r, rs, i) -> r.leaseEpoch = rs.getInt(i)),
    notKept("leased_at", "0", (r, rs, i) -> r.leasedAt = rs.getLong(i)),
    kept("receive_count", (r, rs, i) -> r.receiveCount = rs.getInt(i), r -> r.receiveCount),
    kept(
        "first_received_at",
        (r, rs, i) -> r.firstReceivedAt = rs.getLong(i),
        r -> r.firstReceivedAt),
    kept("sent_at", (r, rs, i) -> r.sentAt = rs.getLong(i), r -> r.sentAt),
    kept("group_id", (r, rs, i) -> r.groupId = rs.getString(i), r -> r.groupId),
    kept("dedup_id", (r, rs, i) -> r.dedupId = rs.getString(i), r -> r.dedupId),
    kept("dl_source", (r, rs, i) -> r.dlSource = rs.getString(i), r -> r.dlSource),
    kept("body", (r, rs, i) -> r.body = rs.getBytes(i), r -> r.body),
    kept("attrs", (r, rs, i) -> r.attrBytes = rs.getBytes(i), r -> r.attrBytes),
    notKept("arrival", "0", (r, rs, i) -> r.arrival = rs.getLong(i)),
  };

  /** Reads a column of the result's current row, at {@code index}, into a row's field. */
  @FunctionalInterface
  private interface Reader {
    void read(Row r, ResultSet rs, int index) throws SQLException;
  }

  /**
   * A column of {@link #COLUMNS}: {@code kept} gives its value as {@code sb_history} stores it, or
   * is null for a column {@code sb_history} does not keep, read there as {@code inHistory}.
   */
  private record Column(
      String name,
      @Nullable String inHistory,
      Reader reader,
      @Nullable Function<Row, @Nullable Object> kept) {}

  private static Column kept(String name, Reader reader, Function<Row, @Nullable Object> kept) {
    return new Column(name, null, reader, kept);
  }

  private static Column notKept(String name, String inHistory, Reader reader) {
    return new Column(name, inHistory, reader, null);
  }

  /** How many columns {@link #read} reads; a query may add its own after them. */
  static final int COLUMN_COUNT = COLUMNS.length;

  /** The columns {@link #read} expects, in order, of {@code sb_message}. */
  static final String COLS = columns(false, false);

  /** The columns {@link #read} expects, in order, of {@code sb_history}. */
  static final String HISTORY_COLS = columns(true, false);

  /** The columns {@code sb_history} keeps of a message, in the order of {@link #kept}. */
  static final String KEPT_COLS = columns(false, true);

  /** How many columns {@code sb_history} keeps of a message. */
  private static final int KEPT_COUNT =
      (int) Arrays.stream(COLUMNS).filter(c -> c.kept() != null).count();

  private static String columns(boolean history, boolean keptOnly) {
    StringBuilder out = new StringBuilder();
    for (Column c : COLUMNS) {
      if (keptOnly && c.kept() == null) {
        continue;
      }
      if (!out.isEmpty()) {
        out.append(", ");
      }
      String inHistory = c.inHistory();
      out.append(history && inHistory != null ? inHistory : c.name());
    }
    return out.toString();
  }

  long serial;
  long seq;
  int priority;
  boolean leased;
  long visibleAt;
  long expiresAt;
  int leaseEpoch;
  long leasedAt;
  int receiveCount;
  long firstReceivedAt;
  long sentAt;
  @Nullable String groupId;
  @Nullable String dedupId;
  @Nullable String dlSource;

  @SuppressWarnings("NullAway.Init") // set by read(), the only maker of a Row (a not-null column)
  byte[] body;

  long arrival;
  private byte @Nullable [] attrBytes;

  private @Nullable Map<String, AttributeValue> attributes;

  private Row() {}

  /** The bytes of body and stored attributes, what an answer carrying this message weighs. */
  int answerBytes() {
    return body.length + (attrBytes == null ? 0 : attrBytes.length);
  }

  /** The values of {@link #KEPT_COLS}, in order: what {@code sb_history} keeps of this row. */
  @Nullable Object[] kept() {
    @Nullable Object[] out = new @Nullable Object[KEPT_COUNT];
    int n = 0;
    for (Column c : COLUMNS) {
      Function<Row, @Nullable Object> kept = c.kept();
      if (kept != null) {
        out[n++] = kept.apply(this);
      }
    }
    return out;
  }

  /** The row whose columns {@link #COLS} (or {@link #HISTORY_COLS}) are the result's first. */
  static Row read(ResultSet rs) throws SQLException {
    Row r = new Row();
    for (int i = 0; i < COLUMNS.length; i++) {
      COLUMNS[i].reader().read(r, rs, i + 1);
    }
    return r;
  }

  /**
   * The part of this message that changes, in the journal's form, for showing it ({@code
   * Messages.view}) as {@code shown}.
   */
  MessageRecord.StateRecord stateRecord(MessageState shown) {
    return new MessageRecord.StateRecord(
        seq,
        priority,
        Messages.storedState(shown),
        receiveCount,
        leaseEpoch,
        visibleAt,
        expiresAt,
        firstReceivedAt,
        leasedAt,
        dlSource);
  }

  private static final java.util.Comparator<Row> FIFO =
      java.util.Comparator.comparingInt((Row r) -> -r.priority).thenComparingLong(r -> r.seq);
  private static final java.util.Comparator<Row> LIFO =
      java.util.Comparator.comparingInt((Row r) -> -r.priority)
          .thenComparing(java.util.Comparator.comparingLong((Row r) -> r.seq).reversed());

  /** Delivery order: priority first (higher first), then seq, ascending for FIFO. */
  static java.util.Comparator<Row> order(boolean fifo) {
    return fifo ? FIFO : LIFO;
  }

  byte @Nullable [] attrBytes() {
    return attrBytes;
  }

  boolean inFlight(long now) {
    return leased && visibleAt > now;
  }

  /** Eligible for a receive now, apart from filters and groups. */
  boolean available(long now) {
    return !leased && visibleAt <= now && expiresAt > now;
  }

  @Override
  public @Nullable AttributeValue attributeOrNull(String name) {
    return attributes().get(name);
  }

  @Override
  public Map<String, AttributeValue> attributes() {
    if (attributes == null) {
      attributes = Codecs.decodeAttributes(attrBytes);
    }
    return attributes;
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public Optional<String> groupId() {
    return Optional.ofNullable(groupId);
  }

  @Override
  public long sentAtMillis() {
    return sentAt;
  }

  @Override
  public int receiveCount() {
    return receiveCount;
  }
}
