package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * What the DynamoDB store relies on from the emulator the tests run it on: a conditional write is
 * exclusive. Consumers racing to claim the same items (as receives will) each win an item at most
 * once in total, whatever the interleaving; stock moto_server, which serves requests on many
 * threads without a lock, can let two claims of one item both pass their condition.
 */
@ExtendWith(Moto.class)
class MotoSerialTest {

  private static final int ITEMS = 40;
  private static final int CLAIMERS = 4;

  @Test
  void racingConditionalClaims_eachItemIsClaimedExactlyOnce() throws Exception {
    StoreTable table = new StoreTable(Moto.prefix());
    try (DynamoDbClient dynamo = Moto.client()) {
      table.ensure(dynamo);
      for (int i = 0; i < ITEMS; i++) {
        Map<String, AttributeValue> item = key(i);
        dynamo.putItem(b -> b.tableName(table.name()).item(item));
      }
      ExecutorService pool = Executors.newFixedThreadPool(CLAIMERS);
      try {
        List<Future<List<Integer>>> claimers = new ArrayList<>();
        for (int c = 0; c < CLAIMERS; c++) {
          String me = "claimer-" + c;
          claimers.add(pool.submit(() -> claimAll(dynamo, table, me)));
        }
        Map<Integer, Integer> wins = new HashMap<>();
        for (Future<List<Integer>> f : claimers) {
          f.get().forEach(i -> wins.merge(i, 1, Integer::sum));
        }

        assertEquals(ITEMS, wins.size(), "every item claimed");
        assertEquals(
            Map.of(), Map.copyOf(filterAbove1(wins)), "items two claimers both think they won");
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static List<Integer> claimAll(DynamoDbClient dynamo, StoreTable table, String me) {
    List<Integer> won = new ArrayList<>();
    for (int i = 0; i < ITEMS; i++) {
      int item = i;
      try {
        dynamo.updateItem(
            b ->
                b.tableName(table.name())
                    .key(key(item))
                    .updateExpression("SET claimedBy = :me")
                    .conditionExpression("attribute_not_exists(claimedBy)")
                    .expressionAttributeValues(Map.of(":me", AttributeValue.fromS(me))));
        won.add(item);
      } catch (ConditionalCheckFailedException lost) {
        // another claimer has it
      }
    }
    return won;
  }

  private static Map<Integer, Integer> filterAbove1(Map<Integer, Integer> wins) {
    Map<Integer, Integer> twice = new HashMap<>();
    wins.forEach(
        (item, n) -> {
          if (n > 1) {
            twice.put(item, n);
          }
        });
    return twice;
  }

  private static Map<String, AttributeValue> key(int i) {
    return Map.of(
        StoreTable.PARTITION_KEY, AttributeValue.fromS("m#race"),
        StoreTable.SORT_KEY, AttributeValue.fromS(String.format("%04d", i)));
  }
}
