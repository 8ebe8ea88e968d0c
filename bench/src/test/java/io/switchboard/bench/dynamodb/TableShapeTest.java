package io.switchboard.bench.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;

/** Index entries and write units of table and index changes, against hand-worked sizes. */
class TableShapeTest {

  private static final TableShape LIFO =
      new TableShape(
          List.of("taskId"),
          Map.of(
              "status",
              new TableShape.Index(
                  List.of("taskStatus", "taskCreated"), ProjectionType.ALL, Set.of())));

  private static final TableShape SPARSE =
      new TableShape(
          List.of("id"),
          Map.of(
              "queued",
              new TableShape.Index(
                  List.of("queued", "order"), ProjectionType.INCLUDE, Set.of("sys"))));

  private static AttributeValue s(String v) {
    return AttributeValue.fromS(v);
  }

  private static Map<String, AttributeValue> task(String status, int dataBytes) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put("taskId", s("t1")); // 6 + 2
    item.put("taskStatus", s(status)); // 10 + 7 for PENDING
    item.put("taskCreated", AttributeValue.fromN("1700000000000")); // 11 + (2 digits: 1 + 1)
    item.put("taskData", s("x".repeat(dataBytes))); // 8 + dataBytes
    return item;
  }

  @Test
  void anItemEnteringAnAllIndex_costsItsSizeThere() {
    Map<String, AttributeValue> t = task("PENDING", 1000); // 8 + 17 + 13 + 1008 = 1046
    assertEquals(1046, ItemSize.of(t));
    assertEquals(2, LIFO.indexWriteUnits("status", null, t));
    assertEquals(2, TableShape.tableWriteUnits(null, t, false));
  }

  @Test
  void aChangedIndexKey_isADeleteAndAPutInTheIndex() {
    Map<String, AttributeValue> pending = task("PENDING", 100); // 146
    Map<String, AttributeValue> taken = task("TAKEN", 100); // 144
    assertEquals(1 + 1, LIFO.indexWriteUnits("status", pending, taken));
    assertEquals(1, TableShape.tableWriteUnits(pending, taken, false));
  }

  @Test
  void aSparseIndex_costsNothingForItemsOutsideIt_andOneWriteToLeave() {
    Map<String, AttributeValue> record = new HashMap<>();
    record.put("id", s("r1"));
    record.put("data", s("x".repeat(2000)));
    assertNull(SPARSE.entry("queued", record));
    assertEquals(0, SPARSE.indexWriteUnits("queued", null, record));

    Map<String, AttributeValue> queued = new HashMap<>(record);
    queued.put("queued", AttributeValue.fromN("1"));
    queued.put("order", s("9#t"));
    queued.put("sys", AttributeValue.fromM(Map.of("v", AttributeValue.fromN("2"))));
    // entry: id (2 + 2) + queued (6 + 2) + order (5 + 3) + sys (3 + 3 + (1 + 2 + 1)) = 30; data
    // is not projected
    assertEquals(30, ItemSize.of(SPARSE.entry("queued", queued)));
    assertEquals(1, SPARSE.indexWriteUnits("queued", record, queued));
    assertEquals(1, SPARSE.indexWriteUnits("queued", queued, record));

    // only a projected attribute changed: one write
    Map<String, AttributeValue> selected = new HashMap<>(queued);
    selected.put("sys", AttributeValue.fromM(Map.of("v", AttributeValue.fromN("3"))));
    assertEquals(1, SPARSE.indexWriteUnits("queued", queued, selected));
    // only an attribute the index does not project changed: nothing there
    Map<String, AttributeValue> edited = new HashMap<>(queued);
    edited.put("data", s("y"));
    assertEquals(0, SPARSE.indexWriteUnits("queued", queued, edited));
  }

  @Test
  void tableWrites_largerImage_doubledInATransaction_andALostConditionStillCosts() {
    Map<String, AttributeValue> small = Map.of("id", s("x".repeat(898))); // 2 + 898 = 900
    Map<String, AttributeValue> large = Map.of("id", s("x".repeat(1098))); // 1100
    assertEquals(2, TableShape.tableWriteUnits(small, large, false));
    assertEquals(2, TableShape.tableWriteUnits(large, small, false));
    assertEquals(1, TableShape.tableWriteUnits(small, null, false)); // a delete
    assertEquals(4, TableShape.tableWriteUnits(small, large, true));
    // a condition lost on an item that does not exist: one unit; on one that does: its size
    assertEquals(1, TableShape.tableWriteUnits(null, null, false));
    assertEquals(2, TableShape.tableWriteUnits(large, large, false));
  }
}
