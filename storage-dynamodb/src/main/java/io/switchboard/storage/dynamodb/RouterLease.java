package io.switchboard.storage.dynamodb;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The requests on the routing leader's lease, the one item {@code rt#lease}/{@code lease} ({@code
 * docs/design.md}, "Routing on DynamoDB"). DynamoDB has no clock a condition could read, so the
 * lease carries no expiry time: the holder changes the item's record version ({@code rvn}, a random
 * value) at each renewal, and another server judges the lease run out when it has seen the same
 * version for a whole lease by its own clock. Taking the lease raises the epoch, conditional on the
 * version the taker saw; every write of the router is a transaction whose condition check on this
 * item requires its epoch ({@link #fence}), which is what keeps a deposed leader from writing,
 * whatever it believes.
 */
final class RouterLease {

  static final String PK = "rt#lease";
  static final String SK = "lease";

  /**
   * The lease item as read.
   *
   * @param epoch raised by every takeover
   * @param holder the server that took it at this epoch
   * @param url where the holder takes routing calls
   * @param rvn the record version, new at every renewal
   * @param released the holder gave it up (a graceful stop): anyone may take it at once
   */
  record Row(long epoch, String holder, String url, String rvn, boolean released) {}

  private final Store store;

  RouterLease(Store store) {
    this.store = store;
  }

  /** The lease item, read strongly consistent; null before any server took the lease. */
  @Nullable Row read() {
    Map<String, AttributeValue> item = store.get(PK, SK);
    if (item == null) {
      return null;
    }
    AttributeValue released = item.get("released");
    return new Row(
        Store.num(item, "epoch"),
        Store.text(item, "holder"),
        Store.text(item, "url"),
        Store.text(item, "rvn"),
        released != null && Boolean.TRUE.equals(released.bool()));
  }

  /**
   * Takes the lease as {@code me}: the first ever if {@code seen} is null, else the one read as
   * {@code seen}, provided nobody renewed or took it since (its version unchanged). Returns the new
   * epoch, or nothing if the item changed meanwhile.
   */
  OptionalLong acquire(@Nullable Row seen, String me, String url) {
    long next = seen == null ? 1 : seen.epoch() + 1;
    Map<String, AttributeValue> item = new HashMap<>(Store.key(PK, SK));
    item.put("epoch", Store.n(next));
    item.put("holder", Store.s(me));
    item.put("url", Store.s(url));
    item.put("rvn", Store.s(version()));
    item.put("released", AttributeValue.fromBool(false));
    boolean won =
        seen == null
            ? store.putIf(item, "attribute_not_exists(pk)", Map.of())
            : store.putIf(
                item,
                "epoch = :e AND rvn = :v",
                Map.of(":e", Store.n(seen.epoch()), ":v", Store.s(seen.rvn())));
    return won ? OptionalLong.of(next) : OptionalLong.empty();
  }

  /** Renews the lease held at {@code epoch} (a new version); false if another server took it. */
  boolean renew(long epoch) {
    return store.updateIf(
        Store.key(PK, SK),
        "SET rvn = :v",
        "epoch = :e AND released = :f",
        Map.of(
            ":v", Store.s(version()), ":e", Store.n(epoch), ":f", AttributeValue.fromBool(false)));
  }

  /**
   * Gives up the lease held at {@code epoch}, so the next server to try takes it without waiting a
   * lease. The holder stays recorded, as the last one; writes at this epoch still pass the fence
   * until someone takes the lease (the journals are closed before the release).
   */
  void release(long epoch) {
    // false when someone took it already: nothing to give up
    store.updateIf(
        Store.key(PK, SK),
        "SET released = :t, rvn = :v",
        "epoch = :e",
        Map.of(
            ":t", AttributeValue.fromBool(true), ":v", Store.s(version()), ":e", Store.n(epoch)));
  }

  /** The condition check that makes a transaction write only while {@code epoch} holds. */
  TransactWriteItem fence(long epoch) {
    return TransactWriteItem.builder()
        .conditionCheck(
            c ->
                c.tableName(store.table())
                    .key(Store.key(PK, SK))
                    .conditionExpression("epoch = :e")
                    .expressionAttributeValues(Map.of(":e", Store.n(epoch))))
        .build();
  }

  /** Why a write at {@code epoch} was refused, as the lease now reads. */
  String fencedMessage(long epoch) {
    Row row;
    try {
      row = read();
    } catch (RuntimeException e) {
      row = null;
    }
    return fencedMessage(epoch, row);
  }

  static String fencedMessage(long epoch, @Nullable Row row) {
    return "this server no longer holds the routing lease (it held epoch "
        + epoch
        + (row == null ? "" : "; epoch " + row.epoch() + " is held by " + row.holder())
        + "), so it stores nothing more";
  }

  private static String version() {
    return UUID.randomUUID().toString();
  }
}
