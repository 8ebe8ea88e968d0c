package io.switchboard.bench.dynamodb;

import static io.switchboard.bench.dynamodb.Tables.s;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Seed 001's priority queue ("Implementing priority queueing with Amazon DynamoDB"): records keyed
 * by {@code id} with the application's {@code data} map (here the message body), a {@code
 * system_info} map (version, status, queue flags and times) and {@code last_updated_timestamp}; a
 * sparse global secondary index over the top-level {@code queued} attribute that only queued
 * records have, sorted by the post's suggested composite of priority and time (here {@code
 * queue_priority}: the priority inverted, then the time, so an ascending query reads the highest
 * priority first); and the {@code DLQ-last_updated_timestamp-index} for dead letters (never written
 * here). The post does not give the indexes' projections; here they project {@code system_info},
 * what {@code peek()} reads (keys only would force a read of every candidate, all would copy the
 * body into the index: both cost more).
 *
 * <p>Every change is the post's optimistic locking: an {@code UpdateItem} that adds one to {@code
 * system_info.version} on the condition that it is as read, returning the new record. A send is the
 * record's {@code PutItem} (version 1) and {@code enqueue()}; a receive is {@code peek()}: a query
 * of the index ({@code queued = 1}, limit 250, ascending, eventually consistent) for the first
 * record not selected, then its update to selected (a batch takes up to its size from the one
 * query; the post peeks one); the acknowledgement is {@code remove()} with status COMPLETED, which
 * takes {@code queued} off so the record leaves the index and stays in the table.
 */
final class Seed001Priority implements Design {

  static final String INDEX = "queued-priority-index";
  static final String DLQ_INDEX = "DLQ-last_updated_timestamp-index";
  static final int PEEK_LIMIT = 250;

  private static final Map<String, String> NAMES =
      Map.of("#v", "version", "#st", "status", "#sys", "system_info");

  private final DynamoDbClient metered;
  private final DynamoDbClient shadow;
  private final String table;
  private final int bodyBytes;
  private long sequence;

  Seed001Priority(DynamoDbClient metered, DynamoDbClient shadow, String table, int bodyBytes) {
    this.metered = metered;
    this.shadow = shadow;
    this.table = table;
    this.bodyBytes = bodyBytes;
    shadow.createTable(
        b ->
            b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                    a -> a.attributeName("id").attributeType(ScalarAttributeType.S),
                    a -> a.attributeName("queued").attributeType(ScalarAttributeType.N),
                    a -> a.attributeName("queue_priority").attributeType(ScalarAttributeType.S),
                    a -> a.attributeName("DLQ").attributeType(ScalarAttributeType.N),
                    a ->
                        a.attributeName("last_updated_timestamp")
                            .attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .globalSecondaryIndexes(
                    g ->
                        g.indexName(INDEX)
                            .keySchema(
                                k -> k.attributeName("queued").keyType(KeyType.HASH),
                                k -> k.attributeName("queue_priority").keyType(KeyType.RANGE))
                            .projection(
                                p ->
                                    p.projectionType(ProjectionType.INCLUDE)
                                        .nonKeyAttributes("system_info")),
                    g ->
                        g.indexName(DLQ_INDEX)
                            .keySchema(
                                k -> k.attributeName("DLQ").keyType(KeyType.HASH),
                                k ->
                                    k.attributeName("last_updated_timestamp")
                                        .keyType(KeyType.RANGE))
                            .projection(
                                p ->
                                    p.projectionType(ProjectionType.INCLUDE)
                                        .nonKeyAttributes("system_info"))));
  }

  private static String lut() {
    return OffsetDateTime.now(ZoneOffset.UTC).toString();
  }

  private static AttributeValue num(long v) {
    return AttributeValue.fromN(Long.toString(v));
  }

  @Override
  public void send(List<Message> batch) {
    for (Message m : batch) {
      String id = UUID.randomUUID().toString();
      String lut = lut();
      metered.putItem(
          b ->
              b.tableName(table)
                  .item(
                      Map.of(
                          "id", s(id),
                          "data", AttributeValue.fromM(Map.of("body", s(m.body(bodyBytes)))),
                          "system_info",
                              AttributeValue.fromM(
                                  Map.of(
                                      "id", s(id),
                                      "version", num(1),
                                      "status", s("UNDER_CONSTRUCTION"))),
                          "last_updated_timestamp", s(lut))));
      String order = (9 - m.priority()) + "#" + lut + "#" + String.format("%012d", ++sequence);
      Map<String, AttributeValue> values = new HashMap<>();
      values.put(":one", num(1));
      values.put(":false", AttributeValue.fromBool(false));
      values.put(":v", num(1));
      values.put(":st", s("READY_TO_SHIP"));
      values.put(":lut", s(lut));
      values.put(":qp", s(order));
      metered.updateItem(
          b ->
              b.tableName(table)
                  .key(Map.of("id", s(id)))
                  .updateExpression(
                      "ADD #sys.#v :one SET queued = :one, #sys.queued = :one,"
                          + " #sys.queue_selected = :false, last_updated_timestamp = :lut,"
                          + " #sys.last_updated_timestamp = :lut, #sys.queue_added_timestamp = :lut,"
                          + " #sys.#st = :st, queue_priority = :qp")
                  .conditionExpression("#sys.#v = :v")
                  .expressionAttributeNames(NAMES)
                  .expressionAttributeValues(values)
                  .returnValues(ReturnValue.ALL_NEW));
    }
  }

  @Override
  public List<Taken> receive(@Nullable Want want, int max) {
    List<Map<String, AttributeValue>> candidates =
        metered
            .query(
                b ->
                    b.tableName(table)
                        .indexName(INDEX)
                        .keyConditionExpression("queued = :one")
                        .expressionAttributeValues(Map.of(":one", num(1)))
                        .limit(PEEK_LIMIT)
                        .scanIndexForward(true))
            .items();
    List<Taken> out = new ArrayList<>();
    for (Map<String, AttributeValue> c : candidates) {
      if (out.size() == max) {
        break;
      }
      Map<String, AttributeValue> sys = Tables.attr(c, "system_info").m();
      if (Tables.attr(sys, "queue_selected").bool()) {
        continue;
      }
      String id = Tables.attr(c, "id").s();
      long version = Long.parseLong(Tables.attr(sys, "version").n());
      Map<String, AttributeValue> values = new HashMap<>();
      values.put(":one", num(1));
      values.put(":v", num(version));
      values.put(":true", AttributeValue.fromBool(true));
      values.put(":ts", num(System.currentTimeMillis()));
      values.put(":st", s("PROCESSING_SHIPMENT"));
      values.put(":lut", s(lut()));
      try {
        Map<String, AttributeValue> now =
            metered
                .updateItem(
                    b ->
                        b.tableName(table)
                            .key(Map.of("id", s(id)))
                            .updateExpression(
                                "ADD #sys.#v :one SET #sys.queue_selected = :true,"
                                    + " #sys.last_updated_timestamp = :lut,"
                                    + " #sys.queue_peek_timestamp = :lut,"
                                    + " #sys.peek_utc_timestamp = :ts, #sys.#st = :st")
                            .conditionExpression("#sys.#v = :v")
                            .expressionAttributeNames(NAMES)
                            .expressionAttributeValues(values)
                            .returnValues(ReturnValue.ALL_NEW))
                .attributes();
        out.add(
            new Taken(
                Message.idOf(Tables.attr(Tables.attr(now, "data").m(), "body").s()),
                new Handle(
                    id,
                    Long.parseLong(
                        Tables.attr(Tables.attr(now, "system_info").m(), "version").n()))));
      } catch (ConditionalCheckFailedException lost) {
        // another consumer took it: the next candidate
      }
    }
    return out;
  }

  private record Handle(String id, long version) {}

  @Override
  public void ack(List<Taken> taken) {
    for (Taken t : taken) {
      Handle h = (Handle) t.handle();
      Map<String, AttributeValue> values = new HashMap<>();
      values.put(":one", num(1));
      values.put(":zero", num(0));
      values.put(":false", AttributeValue.fromBool(false));
      values.put(":v", num(h.version()));
      values.put(":lut", s(lut()));
      values.put(":st", s("COMPLETED"));
      Map<String, String> names = new HashMap<>(NAMES);
      names.put("#DLQ", "DLQ");
      metered.updateItem(
          b ->
              b.tableName(table)
                  .key(Map.of("id", s(h.id())))
                  .updateExpression(
                      "ADD #sys.#v :one REMOVE #sys.peek_utc_timestamp, queued, #DLQ"
                          + " SET #sys.queued = :zero, #sys.queue_selected = :false,"
                          + " #sys.last_updated_timestamp = :lut, last_updated_timestamp = :lut,"
                          + " #sys.queue_remove_timestamp = :lut, #sys.#st = :st")
                  .conditionExpression("#sys.#v = :v")
                  .expressionAttributeNames(names)
                  .expressionAttributeValues(values)
                  .returnValues(ReturnValue.ALL_NEW));
    }
  }

  @Override
  public long bytesKept() {
    return Tables.bytesKept(shadow, table);
  }

  @Override
  public void close() {}
}
