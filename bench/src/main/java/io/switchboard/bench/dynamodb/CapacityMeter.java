package io.switchboard.bench.dynamodb;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Counts every request a DynamoDB client sends, by operation, and the capacity units AWS would bill
 * for it (on-demand: one write request unit per started 1 KB written, one read request unit per
 * started 4 KB read strongly consistent, half that eventually consistent; {@link ItemSize}, {@link
 * TableShape}).
 *
 * <p>A request does not show the sizes it is billed on (an update's item before and after, the
 * items a filtered query read but did not send back), so the meter reads them itself through a
 * second client of its own, which it does not count: before a write, the items it names; after it,
 * the same items again; after a query with a filter, a projection or {@code Select=COUNT}, the same
 * key range without them, as many items as the query scanned. That is exact only while nothing else
 * writes the table between the two reads, so the benchmark runs one request at a time on one
 * thread.
 *
 * <p>The rules applied, per request: {@code PutItem}, {@code UpdateItem}, {@code DeleteItem} the
 * larger of the item before and after; a lost condition the existing item (one unit when there is
 * none), since DynamoDB bills failed conditional writes; {@code TransactWriteItems} twice that per
 * item, condition checks included, also when the transaction is cancelled; {@code BatchWriteItem}
 * each item on its own; a global secondary index one write of its entry when the item enters,
 * leaves or changes projected attributes there, two when its index key changed ({@link
 * TableShape#indexWriteUnits}); {@code GetItem} the whole item (a projection reads it whole), at
 * least one unit; {@code Query} and {@code Scan} the sizes of every item read, summed, then rounded
 * up, at least one unit, on an index the sizes of its entries; {@code TransactGetItems} two units
 * per started 4 KB per item; {@code BatchGetItem} each item on its own. Table management requests
 * are counted and cost no units.
 *
 * <p>With {@code crossCheck}, every request asks for {@code ReturnConsumedCapacity=TOTAL} and the
 * units the service reports are summed beside the meter's ({@link Capacity.Op#motoUnits}).
 */
public final class CapacityMeter implements ExecutionInterceptor {

  private static final ExecutionAttribute<List<Write>> WRITES =
      new ExecutionAttribute<>("io.switchboard.bench.dynamodb.CapacityMeter.writes");

  private static final Pattern NAME_OR_VALUE = Pattern.compile("[#:][A-Za-z0-9_]+");

  /** One item a write request names, with its image before the request. */
  private record Write(
      String table,
      Map<String, AttributeValue> key,
      boolean transactional,
      @Nullable Map<String, AttributeValue> before) {}

  private final DynamoDbClient shadow;
  private final boolean crossCheck;
  private final Map<String, TableShape> shapes = new ConcurrentHashMap<>();
  private Capacity counted = Capacity.NONE;
  private final Map<String, Long> unitsByKey = new ConcurrentHashMap<>();

  /**
   * A meter that reads sizes through {@code shadow}, a client of the same DynamoDB without this
   * meter.
   */
  public CapacityMeter(DynamoDbClient shadow, boolean crossCheck) {
    this.shadow = Objects.requireNonNull(shadow, "shadow");
    this.crossCheck = crossCheck;
  }

  /** Everything counted so far. */
  public synchronized Capacity snapshot() {
    return counted;
  }

  /**
   * The table write units counted so far by partition key ({@code "<table> <key value>"}): how a
   * design spreads its writes over keys, each of which DynamoDB serves at up to 1,000 a second.
   */
  public Map<String, Long> writeUnitsByKey() {
    return Map.copyOf(unitsByKey);
  }

  private synchronized void add(String op, Capacity.Op o) {
    counted = counted.plus(op, o);
  }

  private static String op(SdkRequest request) {
    String name = request.getClass().getSimpleName();
    return name.endsWith("Request") ? name.substring(0, name.length() - "Request".length()) : name;
  }

  @Override
  public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
    SdkRequest r = context.request();
    if (!crossCheck) {
      return r;
    }
    ReturnConsumedCapacity total = ReturnConsumedCapacity.TOTAL;
    return switch (r) {
      case PutItemRequest p -> p.toBuilder().returnConsumedCapacity(total).build();
      case UpdateItemRequest u -> u.toBuilder().returnConsumedCapacity(total).build();
      case DeleteItemRequest d -> d.toBuilder().returnConsumedCapacity(total).build();
      case GetItemRequest g -> g.toBuilder().returnConsumedCapacity(total).build();
      case QueryRequest q -> q.toBuilder().returnConsumedCapacity(total).build();
      case TransactWriteItemsRequest t -> t.toBuilder().returnConsumedCapacity(total).build();
      case TransactGetItemsRequest t -> t.toBuilder().returnConsumedCapacity(total).build();
      case BatchWriteItemRequest b -> b.toBuilder().returnConsumedCapacity(total).build();
      case BatchGetItemRequest b -> b.toBuilder().returnConsumedCapacity(total).build();
      default -> r;
    };
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    List<Write> writes = new ArrayList<>();
    switch (context.request()) {
      case PutItemRequest p ->
          writes.add(write(p.tableName(), shape(p.tableName()).keyOf(p.item()), false));
      case UpdateItemRequest u -> writes.add(write(u.tableName(), u.key(), false));
      case DeleteItemRequest d -> writes.add(write(d.tableName(), d.key(), false));
      case TransactWriteItemsRequest t -> {
        for (TransactWriteItem i : t.transactItems()) {
          if (i.put() != null) {
            writes.add(
                write(i.put().tableName(), shape(i.put().tableName()).keyOf(i.put().item()), true));
          } else if (i.update() != null) {
            writes.add(write(i.update().tableName(), i.update().key(), true));
          } else if (i.delete() != null) {
            writes.add(write(i.delete().tableName(), i.delete().key(), true));
          } else if (i.conditionCheck() != null) {
            writes.add(write(i.conditionCheck().tableName(), i.conditionCheck().key(), true));
          }
        }
      }
      case BatchWriteItemRequest b ->
          b.requestItems()
              .forEach(
                  (table, requests) -> {
                    for (WriteRequest w : requests) {
                      Map<String, AttributeValue> key =
                          w.putRequest() != null
                              ? shape(table).keyOf(w.putRequest().item())
                              : w.deleteRequest().key();
                      writes.add(write(table, key, false));
                    }
                  });
      default -> {}
    }
    attributes.putAttribute(WRITES, writes);
  }

  private Write write(String table, Map<String, AttributeValue> key, boolean transactional) {
    return new Write(table, Map.copyOf(key), transactional, read(table, key));
  }

  private @Nullable Map<String, AttributeValue> read(
      String table, Map<String, AttributeValue> key) {
    GetItemResponse r = shadow.getItem(b -> b.tableName(table).key(key).consistentRead(true));
    return r.hasItem() && !r.item().isEmpty() ? r.item() : null;
  }

  private TableShape shape(String table) {
    return shapes.computeIfAbsent(
        table, t -> TableShape.of(shadow.describeTable(b -> b.tableName(t)).table()));
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    SdkRequest request = context.request();
    SdkResponse response = context.response();
    String op = op(request);
    List<Write> writes = attributes.getAttribute(WRITES);
    long[] w = bill(writes == null ? List.of() : writes);
    double reads =
        switch (request) {
          case GetItemRequest g -> getUnits(g, (GetItemResponse) response);
          case QueryRequest q -> queryUnits(q, (QueryResponse) response);
          case TransactGetItemsRequest t -> transactGetUnits(t);
          case BatchGetItemRequest b -> batchGetUnits(b);
          default -> 0;
        };
    add(op, new Capacity.Op(1, w[0], w[1], reads, 0, reported(response)));
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    String op = op(context.request());
    Throwable cause = context.exception();
    boolean lost =
        cause instanceof ConditionalCheckFailedException
            || cause instanceof TransactionCanceledException;
    List<Write> writes = attributes.getAttribute(WRITES);
    long[] w = lost && writes != null ? bill(writes) : new long[2];
    add(op, new Capacity.Op(1, w[0], w[1], 0, lost ? 1 : 0, 0));
  }

  /** The table's and the indexes' write units of the items a write named, read again now. */
  private long[] bill(List<Write> writes) {
    long table = 0;
    long index = 0;
    for (Write w : writes) {
      Map<String, AttributeValue> after = read(w.table(), w.key());
      long units = TableShape.tableWriteUnits(w.before(), after, w.transactional());
      table += units;
      TableShape shape = shape(w.table());
      AttributeValue pk = w.key().get(shape.key().get(0));
      String value = pk == null ? "?" : pk.s() != null ? pk.s() : String.valueOf(pk.n());
      unitsByKey.merge(w.table() + " " + value, units, Long::sum);
      for (String ix : shape.indexes().keySet()) {
        index += shape.indexWriteUnits(ix, w.before(), after);
      }
    }
    return new long[] {table, index};
  }

  private double getUnits(GetItemRequest g, GetItemResponse r) {
    boolean consistent = Boolean.TRUE.equals(g.consistentRead());
    boolean whole = g.projectionExpression() == null && !g.hasAttributesToGet();
    Map<String, AttributeValue> item =
        whole ? (r.hasItem() ? r.item() : null) : read(g.tableName(), g.key());
    return ItemSize.readUnits(ItemSize.of(item), consistent);
  }

  private double queryUnits(QueryRequest q, QueryResponse r) {
    boolean consistent = Boolean.TRUE.equals(q.consistentRead());
    boolean asSent =
        q.filterExpression() == null
            && q.projectionExpression() == null
            && !q.hasAttributesToGet()
            && (q.select() == null
                || q.select()
                    == software.amazon.awssdk.services.dynamodb.model.Select.ALL_ATTRIBUTES
                || q.select()
                    == software.amazon.awssdk.services.dynamodb.model.Select
                        .ALL_PROJECTED_ATTRIBUTES);
    long bytes = 0;
    if (asSent) {
      for (Map<String, AttributeValue> item : r.items()) {
        bytes += ItemSize.of(item);
      }
    } else if (r.scannedCount() != null && r.scannedCount() > 0) {
      for (Map<String, AttributeValue> item : scanned(q, r.scannedCount())) {
        bytes += ItemSize.of(item);
      }
    }
    return ItemSize.readUnits(bytes, consistent);
  }

  /** The items a query read: its key range again, without filter or projection. */
  private List<Map<String, AttributeValue>> scanned(QueryRequest q, int count) {
    Set<String> used = used(q.keyConditionExpression());
    Map<String, String> names = new LinkedHashMap<>();
    if (q.hasExpressionAttributeNames()) {
      q.expressionAttributeNames()
          .forEach(
              (k, v) -> {
                if (used.contains(k)) {
                  names.put(k, v);
                }
              });
    }
    Map<String, AttributeValue> values = new LinkedHashMap<>();
    if (q.hasExpressionAttributeValues()) {
      q.expressionAttributeValues()
          .forEach(
              (k, v) -> {
                if (used.contains(k)) {
                  values.put(k, v);
                }
              });
    }
    QueryRequest plain =
        QueryRequest.builder()
            .tableName(q.tableName())
            .indexName(q.indexName())
            .keyConditionExpression(q.keyConditionExpression())
            .expressionAttributeNames(names.isEmpty() ? null : names)
            .expressionAttributeValues(values)
            .scanIndexForward(q.scanIndexForward())
            .consistentRead(q.consistentRead())
            .exclusiveStartKey(q.hasExclusiveStartKey() ? q.exclusiveStartKey() : null)
            .limit(count)
            .build();
    return shadow.query(plain).items();
  }

  private static Set<String> used(@Nullable String expression) {
    Set<String> out = new java.util.HashSet<>();
    if (expression != null) {
      Matcher m = NAME_OR_VALUE.matcher(expression);
      while (m.find()) {
        out.add(m.group());
      }
    }
    return out;
  }

  private double transactGetUnits(TransactGetItemsRequest t) {
    double units = 0;
    for (TransactGetItem i : t.transactItems()) {
      units += 2 * ItemSize.readUnits(ItemSize.of(read(i.get().tableName(), i.get().key())), true);
    }
    return units;
  }

  private double batchGetUnits(BatchGetItemRequest b) {
    double units = 0;
    for (Map.Entry<String, KeysAndAttributes> e : b.requestItems().entrySet()) {
      boolean consistent = Boolean.TRUE.equals(e.getValue().consistentRead());
      for (Map<String, AttributeValue> key : e.getValue().keys()) {
        units += ItemSize.readUnits(ItemSize.of(read(e.getKey(), key)), consistent);
      }
    }
    return units;
  }

  /** The units the service reported in its response, when asked. */
  private static double reported(SdkResponse response) {
    List<ConsumedCapacity> said =
        switch (response) {
          case PutItemResponse p -> one(p.consumedCapacity());
          case UpdateItemResponse u -> one(u.consumedCapacity());
          case DeleteItemResponse d -> one(d.consumedCapacity());
          case GetItemResponse g -> one(g.consumedCapacity());
          case QueryResponse q -> one(q.consumedCapacity());
          case TransactWriteItemsResponse t ->
              t.hasConsumedCapacity() ? t.consumedCapacity() : List.of();
          case TransactGetItemsResponse t ->
              t.hasConsumedCapacity() ? t.consumedCapacity() : List.of();
          case BatchWriteItemResponse b ->
              b.hasConsumedCapacity() ? b.consumedCapacity() : List.of();
          case BatchGetItemResponse b -> b.hasConsumedCapacity() ? b.consumedCapacity() : List.of();
          default -> List.of();
        };
    return said.stream().mapToDouble(c -> c.capacityUnits() == null ? 0 : c.capacityUnits()).sum();
  }

  private static List<ConsumedCapacity> one(@Nullable ConsumedCapacity c) {
    return c == null ? List.of() : List.of(c);
  }
}
