package io.switchboard.storage.dynamodb;

import io.switchboard.queue.spi.SystemRecords;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * System records as items of one partition ({@code sys#records}, the record's key as the sort key,
 * its bytes in {@code v}): read strongly consistent, so every server sees a record once it is
 * written; {@link #putIfAbsent} is a conditional put, so of servers racing to store a first value
 * all keep the one stored first.
 */
final class DynamoSystemRecords implements SystemRecords {

  static final String PARTITION = "sys#records";

  private final Store store;

  DynamoSystemRecords(Store store) {
    this.store = store;
  }

  @Override
  public Optional<byte[]> get(String key) {
    SystemRecords.checkKey(key);
    Map<String, AttributeValue> item = store.get(PARTITION, key);
    return item == null ? Optional.empty() : Optional.of(Store.bytes(item, "v"));
  }

  @Override
  public SortedMap<String, byte[]> list(String prefix) {
    SystemRecords.checkPrefix(prefix);
    SortedMap<String, byte[]> out = new TreeMap<>();
    @Nullable Map<String, AttributeValue> start = null;
    do {
      Map<String, AttributeValue> from = start;
      QueryResponse r =
          store.call(
              d ->
                  d.query(
                      b -> {
                        b.tableName(store.table()).consistentRead(true);
                        if (prefix.isEmpty()) {
                          b.keyConditionExpression("pk = :p")
                              .expressionAttributeValues(Map.of(":p", Store.s(PARTITION)));
                        } else {
                          b.keyConditionExpression("pk = :p AND begins_with(sk, :s)")
                              .expressionAttributeValues(
                                  Map.of(":p", Store.s(PARTITION), ":s", Store.s(prefix)));
                        }
                        if (from != null) {
                          b.exclusiveStartKey(from);
                        }
                      }));
      for (Map<String, AttributeValue> item : r.items()) {
        out.put(Store.text(item, "sk"), Store.bytes(item, "v"));
      }
      start =
          r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (start != null);
    return out;
  }

  @Override
  public void put(String key, byte[] value) {
    SystemRecords.checkKey(key);
    SystemRecords.checkValue(value);
    store.call(d -> d.putItem(b -> b.tableName(store.table()).item(item(key, value))));
  }

  @Override
  public byte[] putIfAbsent(String key, byte[] value) {
    SystemRecords.checkKey(key);
    SystemRecords.checkValue(value);
    try {
      store.call(
          d ->
              d.putItem(
                  b ->
                      b.tableName(store.table())
                          .item(item(key, value))
                          .conditionExpression("attribute_not_exists(pk)")));
      return value.clone();
    } catch (ConditionalCheckFailedException taken) {
      return get(key).orElseThrow(() -> new IllegalStateException("record " + key + " vanished"));
    }
  }

  @Override
  public boolean delete(String key) {
    SystemRecords.checkKey(key);
    Map<String, AttributeValue> old =
        store
            .call(
                d ->
                    d.deleteItem(
                        b ->
                            b.tableName(store.table())
                                .key(Store.key(PARTITION, key))
                                .returnValues(
                                    software.amazon.awssdk.services.dynamodb.model.ReturnValue
                                        .ALL_OLD)))
            .attributes();
    return old != null && !old.isEmpty();
  }

  private static Map<String, AttributeValue> item(String key, byte[] value) {
    return Map.of(
        "pk",
        Store.s(PARTITION),
        "sk",
        Store.s(key),
        "v",
        AttributeValue.fromB(SdkBytes.fromByteArray(value)));
  }
}
