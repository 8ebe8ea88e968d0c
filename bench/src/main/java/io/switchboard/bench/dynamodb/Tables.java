package io.switchboard.bench.dynamodb;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/** Helpers the seeds' designs share: strings as attribute values, and what a table holds. */
final class Tables {

  /** DynamoDB's storage overhead per item, billed as stored bytes ("DynamoDB item sizes"). */
  static final int ITEM_OVERHEAD = 100;

  private Tables() {}

  /** The attribute an item of the design always has. */
  static AttributeValue attr(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    if (v == null) {
      throw new IllegalStateException("an item without its '" + name + "': " + item.keySet());
    }
    return v;
  }

  static AttributeValue s(String v) {
    return AttributeValue.fromS(v);
  }

  static AttributeValue n(long v) {
    return AttributeValue.fromN(Long.toString(v));
  }

  /**
   * The stored bytes DynamoDB bills for a table: each item's size and 100 bytes, and the same for
   * its entry in each global secondary index that holds it, by a scan through {@code client}.
   */
  static long bytesKept(DynamoDbClient client, String table) {
    TableShape shape = TableShape.of(client.describeTable(b -> b.tableName(table)).table());
    long bytes = 0;
    Map<String, AttributeValue> start = null;
    do {
      Map<String, AttributeValue> from = start;
      ScanResponse r =
          client.scan(
              b -> {
                b.tableName(table);
                if (from != null) {
                  b.exclusiveStartKey(from);
                }
              });
      for (Map<String, AttributeValue> item : r.items()) {
        bytes += ItemSize.of(item) + ITEM_OVERHEAD;
        for (String index : shape.indexes().keySet()) {
          Map<String, AttributeValue> entry = shape.entry(index, item);
          bytes += entry == null ? 0 : ItemSize.of(entry) + ITEM_OVERHEAD;
        }
      }
      start =
          r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (start != null);
    return bytes;
  }
}
