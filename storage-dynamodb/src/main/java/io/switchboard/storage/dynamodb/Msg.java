package io.switchboard.storage.dynamodb;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageView;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Messages;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;

/**
 * One message item as read ({@code docs/design.md}, "Amazon DynamoDB as a store"): its key, and the
 * attributes the engine judges it by. Times are epoch milliseconds. {@code vis} is when it is
 * visible (its delay's or its lease's end), {@code leased} whether that time is a lease's end;
 * {@code epoch} goes up by one at every receive and is what every conditional write on the item
 * names, so a write based on an older read fails its condition.
 */
final class Msg implements MessageView {

  /** The body as sent; {@link Bodies#DEFLATED} instead when it is stored compressed. */
  static final String BODY = "b";

  static final String ATTRIBUTES = "a";
  static final String GROUP = "g";
  static final String DEDUP = "dd";
  static final String SENT = "st";
  static final String FIRST = "fr";
  static final String RECEIVES = "rc";
  static final String VISIBLE = "vis";
  static final String LEASED = "ls";
  static final String LEASED_AT = "la";
  static final String EXPIRES = "ex";
  static final String EPOCH = "ep";
  static final String DEAD_LETTER_SOURCE = "dls";
  static final String PRIORITY = "pr";
  static final String ID = "id";
  static final String DONE = "dn";
  static final String KEEP = "kp";

  /** On a pointer item: the order serial its message sits at now. */
  static final String TO = "to";

  final String pk;

  /** The order serial: the sort key; what a touch or a release to the back changes. */
  final long serial;

  /** The serial the message's id carries; fixed for its life. */
  final long id;

  /** What the message became, kept as history: 'c' completed, 'f' failed, 'd' dead-lettered. */
  final @Nullable String done;

  final long keep;
  final int priority;
  final byte[] body;
  final Map<String, AttributeValue> attributes;
  final @Nullable String group;
  final @Nullable String dedup;
  final long sent;
  final long first;
  final int receives;
  final long vis;
  final boolean leased;
  final long leasedAt;
  final long expires;
  final long epoch;
  final @Nullable String deadLetterSource;

  Msg(Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> item) {
    this.pk = Store.text(item, "pk");
    this.serial = Long.parseLong(Store.text(item, "sk"));
    long id = Store.num(item, ID);
    this.id = id == 0 ? serial : id;
    this.done = Store.str(item, DONE);
    this.keep = Store.num(item, KEEP);
    this.priority = (int) Store.num(item, PRIORITY);
    this.body = Bodies.of(item);
    software.amazon.awssdk.services.dynamodb.model.AttributeValue a = item.get(ATTRIBUTES);
    this.attributes = Codecs.decodeAttributes(a == null ? null : a.b().asByteArray());
    this.group = Store.str(item, GROUP);
    this.dedup = Store.str(item, DEDUP);
    this.sent = Store.num(item, SENT);
    this.first = Store.num(item, FIRST);
    this.receives = (int) Store.num(item, RECEIVES);
    this.vis = Store.num(item, VISIBLE);
    this.leased = Store.num(item, LEASED) == 1;
    this.leasedAt = Store.num(item, LEASED_AT);
    this.expires = Store.num(item, EXPIRES);
    this.epoch = Store.num(item, EPOCH);
    this.deadLetterSource = Store.str(item, DEAD_LETTER_SOURCE);
  }

  /** The sort key of a serial: 19 digits, so the keys sort as the numbers do. */
  static String sk(long serial) {
    return String.format("%019d", serial);
  }

  String sk() {
    return sk(serial);
  }

  boolean expired(long now) {
    return expires <= now;
  }

  /** Whether the item is a pointer from a message's id to where it sits now. */
  static boolean pointer(
      Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> item) {
    return item.containsKey(TO);
  }

  /** Whether a pointer at the id's sort key leads here (the message moved since it was sent). */
  boolean moved() {
    return id != serial;
  }

  MessageState state(long now) {
    if (done != null) {
      return switch (done) {
        case "c" -> MessageState.COMPLETED;
        case "f" -> MessageState.FAILED;
        default -> MessageState.DEAD_LETTERED;
      };
    }
    if (vis > now) {
      return leased ? MessageState.IN_FLIGHT : MessageState.DELAYED;
    }
    return MessageState.AVAILABLE;
  }

  /** Whether a lease of this message ran out (and nobody received it since). */
  boolean leaseEnded(long now) {
    return leased && vis <= now;
  }

  Message view(String shownId, long now, @Nullable String receipt) {
    return view(shownId, state(now), receipt);
  }

  Message view(String shownId, MessageState state, @Nullable String receipt) {
    return Messages.view(
        shownId,
        body,
        attributes,
        group,
        dedup,
        sent,
        new MessageRecord.StateRecord(
            serial,
            priority,
            Messages.storedState(state),
            receives,
            (int) epoch,
            vis,
            expires,
            first,
            leasedAt,
            deadLetterSource),
        state,
        receipt);
  }

  /** The whole item again, for a move (to another partition or sort key). */
  Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> item(
      String newPk, long newSerial, int newPriority) {
    Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> m = new HashMap<>();
    m.put("pk", Store.s(newPk));
    m.put("sk", Store.s(sk(newSerial)));
    m.put(PRIORITY, Store.n(newPriority));
    m.put(ID, Store.n(id));
    Bodies.put(m, body);
    byte[] a = Codecs.encodeAttributes(attributes);
    if (a != null) {
      m.put(
          ATTRIBUTES,
          software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromB(
              SdkBytes.fromByteArray(a)));
    }
    if (group != null) {
      m.put(GROUP, Store.s(group));
    }
    if (dedup != null) {
      m.put(DEDUP, Store.s(dedup));
    }
    m.put(SENT, Store.n(sent));
    if (first != 0) {
      m.put(FIRST, Store.n(first));
    }
    m.put(RECEIVES, Store.n(receives));
    m.put(VISIBLE, Store.n(vis));
    m.put(LEASED, Store.n(leased ? 1 : 0));
    m.put(LEASED_AT, Store.n(leasedAt));
    m.put(EXPIRES, Store.n(expires));
    m.put(EPOCH, Store.n(epoch));
    if (deadLetterSource != null) {
      m.put(DEAD_LETTER_SOURCE, Store.s(deadLetterSource));
    }
    m.put(StoreTable.TTL_ATTRIBUTE, Store.n(expires / 1000 + 1));
    return m;
  }

  @Override
  public @Nullable AttributeValue attributeOrNull(String name) {
    return attributes.get(name);
  }

  @Override
  public Map<String, AttributeValue> attributes() {
    return attributes;
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public Optional<String> groupId() {
    return Optional.ofNullable(group);
  }

  @Override
  public long sentAtMillis() {
    return sent;
  }

  @Override
  public int receiveCount() {
    return receives;
  }
}
