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

  /** The columns {@link #read} expects, in order. */
  static final String COLS =
      "serial, seq, priority, leased, visible_at, expires_at, lease_epoch, leased_at,"
          + " receive_count, first_received_at, sent_at, group_id, dedup_id, dl_source, body,"
          + " attrs, arrival";

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

  static Row read(ResultSet rs) throws SQLException {
    Row r = new Row();
    r.serial = rs.getLong(1);
    r.seq = rs.getLong(2);
    r.priority = rs.getInt(3);
    r.leased = rs.getBoolean(4);
    r.visibleAt = rs.getLong(5);
    r.expiresAt = rs.getLong(6);
    r.leaseEpoch = rs.getInt(7);
    r.leasedAt = rs.getLong(8);
    r.receiveCount = rs.getInt(9);
    r.firstReceivedAt = rs.getLong(10);
    r.sentAt = rs.getLong(11);
    r.groupId = rs.getString(12);
    r.dedupId = rs.getString(13);
    r.dlSource = rs.getString(14);
    r.body = rs.getBytes(15);
    r.attrBytes = rs.getBytes(16);
    r.arrival = rs.getLong(17);
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
