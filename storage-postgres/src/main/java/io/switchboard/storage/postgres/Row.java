package io.switchboard.storage.postgres;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageView;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** One {@code sb_message} (or {@code sb_history}) row, readable by filters. */
final class Row implements MessageView {

  /**
   * The columns {@link #read} expects, in order, each with what a read of {@code sb_history} takes
   * in its place: {@code null} where {@code sb_history} keeps the column too (the columns {@code
   * Op.remember} stores), a constant where it does not (a kept message is no longer leased or
   * timed). The one list of a message's columns: {@link #COLS}, {@link #HISTORY_COLS} and {@link
   * #KEPT_COLS} are made from it.
   */
  private static final String[][] COLUMNS = {
    {"serial", null},
    {"seq", null},
    {"priority", null},
    {"leased", "false"},
    {"visible_at", "0"},
    {"expires_at", null},
    {"lease_epoch", "0"},
    {"leased_at", "0"},
    {"receive_count", null},
    {"first_received_at", null},
    {"sent_at", null},
    {"group_id", null},
    {"dedup_id", null},
    {"dl_source", null},
    {"body", null},
    {"attrs", null},
    {"arrival", "0"},
  };

  /** How many columns {@link #read} reads; a query may add its own after them. */
  static final int COLUMN_COUNT = COLUMNS.length;

  /** The columns {@link #read} expects, in order, of {@code sb_message}. */
  static final String COLS = columns(false, false);

  /** The columns {@link #read} expects, in order, of {@code sb_history}. */
  static final String HISTORY_COLS = columns(true, false);

  /** The columns {@code sb_history} keeps of a message, in the order of {@link #kept}. */
  static final String KEPT_COLS = columns(false, true);

  private static String columns(boolean history, boolean keptOnly) {
    StringBuilder out = new StringBuilder();
    for (String[] c : COLUMNS) {
      if (keptOnly && c[1] != null) {
        continue;
      }
      if (!out.isEmpty()) {
        out.append(", ");
      }
      out.append(history && c[1] != null ? c[1] : c[0]);
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
    return new @Nullable Object[] {
      serial,
      seq,
      priority,
      expiresAt,
      receiveCount,
      firstReceivedAt,
      sentAt,
      groupId,
      dedupId,
      dlSource,
      body,
      attrBytes,
    };
  }

  static Row read(ResultSet rs) throws SQLException {
    Row r = new Row();
    int i = 1;
    r.serial = rs.getLong(i++);
    r.seq = rs.getLong(i++);
    r.priority = rs.getInt(i++);
    r.leased = rs.getBoolean(i++);
    r.visibleAt = rs.getLong(i++);
    r.expiresAt = rs.getLong(i++);
    r.leaseEpoch = rs.getInt(i++);
    r.leasedAt = rs.getLong(i++);
    r.receiveCount = rs.getInt(i++);
    r.firstReceivedAt = rs.getLong(i++);
    r.sentAt = rs.getLong(i++);
    r.groupId = rs.getString(i++);
    r.dedupId = rs.getString(i++);
    r.dlSource = rs.getString(i++);
    r.body = rs.getBytes(i++);
    r.attrBytes = rs.getBytes(i++);
    r.arrival = rs.getLong(i++);
    return r;
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
