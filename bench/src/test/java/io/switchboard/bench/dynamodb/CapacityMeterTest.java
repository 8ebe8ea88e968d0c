package io.switchboard.bench.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.storage.dynamodb.MotoProcess;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The meter on moto: each kind of request billed as worked out by hand from the item sizes
 * (ItemSizeTest, TableShapeTest). Skipped, loudly, where Python 3 cannot import moto.
 */
class CapacityMeterTest {

  private static MotoProcess moto;
  private static DynamoDbClient shadow;
  private static CapacityMeter meter;
  private static DynamoDbClient client;

  @BeforeAll
  static void start() throws Exception {
    String why = MotoProcess.unavailable();
    if (why != null) {
      System.err.println("!!!!! " + why + ": CapacityMeterTest SKIPPED !!!!!");
    }
    Assumptions.assumeTrue(why == null, why);
    moto = MotoProcess.start();
    shadow = moto.client();
    meter = new CapacityMeter(shadow, true);
    client = moto.client(meter);
  }

  @AfterAll
  static void stop() throws Exception {
    if (moto != null) {
      client.close();
      shadow.close();
      moto.close();
    }
  }

  private static AttributeValue s(String v) {
    return AttributeValue.fromS(v);
  }

  /** A task of seed 002's table: 8 + 10 + status + 13 + 8 + data bytes. */
  private static Map<String, AttributeValue> task(String id, String status, int dataBytes) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put("taskId", s(id));
    item.put("taskStatus", s(status));
    item.put("taskCreated", AttributeValue.fromN("1700000000000"));
    item.put("taskData", s("x".repeat(dataBytes)));
    return item;
  }

  private static Capacity.Op measure(String op, Runnable request) {
    Capacity before = meter.snapshot();
    request.run();
    Capacity.Op got = meter.snapshot().minus(before).ops().get(op);
    assertEquals(1, got.requests(), op);
    return got;
  }

  @Test
  void writesOnATableWithAnAllIndex() {
    String table = "meter_tasks";
    Seed002Lifo.createTable(shadow, table); // its status index projects ALL
    // 8 + 17 + 13 + 1008 = 1046 bytes: 2 units in the table, 2 in the index
    Capacity.Op put =
        measure(
            "PutItem",
            () -> client.putItem(b -> b.tableName(table).item(task("t1", "PENDING", 1000))));
    assertEquals(2, put.tableWrites());
    assertEquals(2, put.indexWrites());

    // PENDING (1046) to TAKEN (1044): the larger, 2; the index key changed: 2 + 2
    Runnable take =
        () ->
            client.updateItem(
                b ->
                    b.tableName(table)
                        .key(Map.of("taskId", s("t1")))
                        .updateExpression("SET taskStatus = :to")
                        .conditionExpression("taskStatus = :from")
                        .expressionAttributeValues(
                            Map.of(":to", s("TAKEN"), ":from", s("PENDING"))));
    Capacity.Op update = measure("UpdateItem", take);
    assertEquals(2, update.tableWrites());
    assertEquals(4, update.indexWrites());

    // the same again loses its condition: billed the existing item, nothing in the index
    Capacity before = meter.snapshot();
    assertThrows(ConditionalCheckFailedException.class, take::run);
    Capacity.Op lost = meter.snapshot().minus(before).ops().get("UpdateItem");
    assertEquals(2, lost.tableWrites());
    assertEquals(0, lost.indexWrites());
    assertEquals(1, lost.lostConditions());

    // reads: 1044 bytes, one unit strongly consistent, half eventually; a projection reads it all
    assertEquals(
        1.0,
        measure(
                "GetItem",
                () ->
                    client.getItem(
                        b ->
                            b.tableName(table).key(Map.of("taskId", s("t1"))).consistentRead(true)))
            .reads());
    assertEquals(
        0.5,
        measure(
                "GetItem",
                () ->
                    client.getItem(
                        b ->
                            b.tableName(table)
                                .key(Map.of("taskId", s("t1")))
                                .projectionExpression("taskId")))
            .reads());
    // the index, eventually consistent: one entry of 1044 bytes
    assertEquals(
        0.5,
        measure(
                "Query",
                () ->
                    client.query(
                        b ->
                            b.tableName(table)
                                .indexName(Seed002Lifo.INDEX)
                                .keyConditionExpression("taskStatus = :s")
                                .expressionAttributeValues(Map.of(":s", s("TAKEN")))))
            .reads());

    // a delete: the item's size; it leaves the index: its entry's
    Capacity.Op delete =
        measure(
            "DeleteItem",
            () -> client.deleteItem(b -> b.tableName(table).key(Map.of("taskId", s("t1")))));
    assertEquals(2, delete.tableWrites());
    assertEquals(2, delete.indexWrites());
  }

  @Test
  void queriesAreBilledOnEverythingRead_andTransactionsTwice() {
    String table = "meter_pairs";
    Seed000FilteredFifo.createTable(shadow, table); // string keys pk and sk, no index
    // five items of 2 + 1 + 2 + 1 + 1 + 1018 = 1025 bytes each
    for (int i = 0; i < 5; i++) {
      String sk = Integer.toString(i);
      shadow.putItem(
          b ->
              b.tableName(table).item(Map.of("pk", s("p"), "sk", s(sk), "v", s("x".repeat(1018)))));
    }
    // all five, 5,125 bytes: 2 units; the same with a filter that sends none back: still 2
    assertEquals(
        2.0,
        measure(
                "Query",
                () ->
                    client.query(
                        b ->
                            b.tableName(table)
                                .consistentRead(true)
                                .keyConditionExpression("pk = :p")
                                .expressionAttributeValues(Map.of(":p", s("p")))))
            .reads());
    assertEquals(
        2.0,
        measure(
                "Query",
                () ->
                    client.query(
                        b ->
                            b.tableName(table)
                                .consistentRead(true)
                                .keyConditionExpression("pk = :p")
                                .filterExpression("sk = :none")
                                .expressionAttributeValues(Map.of(":p", s("p"), ":none", s("z")))))
            .reads());
    // three of them (3,075 bytes), counted only: 1 unit; a partition with nothing: still 1
    assertEquals(
        1.0,
        measure(
                "Query",
                () ->
                    client.query(
                        b ->
                            b.tableName(table)
                                .consistentRead(true)
                                .select(Select.COUNT)
                                .limit(3)
                                .keyConditionExpression("pk = :p")
                                .expressionAttributeValues(Map.of(":p", s("p")))))
            .reads());
    assertEquals(
        1.0,
        measure(
                "Query",
                () ->
                    client.query(
                        b ->
                            b.tableName(table)
                                .consistentRead(true)
                                .keyConditionExpression("pk = :p")
                                .expressionAttributeValues(Map.of(":p", s("empty")))))
            .reads());

    // a transaction: a put of 2 + 1 + 2 + 1 + 1 + 500 = 507 bytes (1 unit) and an update of a
    // 1,025-byte item (2 units), each doubled
    List<TransactWriteItem> items =
        List.of(
            TransactWriteItem.builder()
                .put(
                    p ->
                        p.tableName(table)
                            .item(Map.of("pk", s("q"), "sk", s("1"), "v", s("y".repeat(500)))))
                .build(),
            TransactWriteItem.builder()
                .update(
                    u ->
                        u.tableName(table)
                            .key(Map.of("pk", s("p"), "sk", s("0")))
                            .updateExpression("SET w = :w")
                            .expressionAttributeValues(Map.of(":w", s("z"))))
                .build());
    Capacity.Op tx =
        measure("TransactWriteItems", () -> client.transactWriteItems(b -> b.transactItems(items)));
    assertEquals(2 * 1 + 2 * 2, tx.tableWrites());
  }
}
