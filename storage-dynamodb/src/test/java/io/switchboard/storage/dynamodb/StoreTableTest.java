package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/** The store's one table: made when missing, checked when present, never written into blind. */
@ExtendWith(Moto.class)
class StoreTableTest {

  @Test
  void ensure_createsTheTableWithItsKeysAndTimeToLive_andASecondServerFindsItReady() {
    try (DynamoDbClient dynamo = Moto.client()) {
      StoreTable table = new StoreTable(Moto.prefix());
      table.ensure(dynamo);
      table.ensure(dynamo); // a second server starting on the same store

      TableDescription made = dynamo.describeTable(b -> b.tableName(table.name())).table();
      assertEquals(
          List.of(StoreTable.PARTITION_KEY, StoreTable.SORT_KEY),
          made.keySchema().stream().map(k -> k.attributeName()).toList());
      assertEquals(
          List.of(KeyType.HASH, KeyType.RANGE),
          made.keySchema().stream().map(k -> k.keyType()).toList());
      assertTrue(
          made.attributeDefinitions().stream()
              .allMatch(d -> d.attributeType() == ScalarAttributeType.S));
      assertEquals(
          TimeToLiveStatus.ENABLED,
          dynamo
              .describeTimeToLive(b -> b.tableName(table.name()))
              .timeToLiveDescription()
              .timeToLiveStatus());
      assertEquals(
          StoreTable.TTL_ATTRIBUTE,
          dynamo
              .describeTimeToLive(b -> b.tableName(table.name()))
              .timeToLiveDescription()
              .attributeName());
    }
  }

  @Test
  void aTableOfTheSameNameWithOtherKeys_isRefusedNamingThem_andLeftAlone() {
    try (DynamoDbClient dynamo = Moto.client()) {
      StoreTable table = new StoreTable(Moto.prefix());
      dynamo.createTable(
          b ->
              b.tableName(table.name())
                  .billingMode("PAY_PER_REQUEST")
                  .attributeDefinitions(a -> a.attributeName("id").attributeType("S"))
                  .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH)));

      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> table.ensure(dynamo));

      assertTrue(e.getMessage().contains("id (HASH)"), e.getMessage());
      assertTrue(e.getMessage().contains("choose another table prefix"), e.getMessage());
      assertEquals(
          List.of("id"),
          dynamo.describeTable(b -> b.tableName(table.name())).table().keySchema().stream()
              .map(k -> k.attributeName())
              .toList());
    }
  }

  @Test
  void aPrefixThatMakesNoTableName_isRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new StoreTable("queues/"));
    assertTrue(e.getMessage().contains("'queues/switchboard'"), e.getMessage());
  }
}
