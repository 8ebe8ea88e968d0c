package io.switchboard.storage.dynamodb;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * The one table a DynamoDB store keeps everything in ({@code docs/design.md}, "Amazon DynamoDB as a
 * store"): partition key {@value #PARTITION_KEY} and sort key {@value #SORT_KEY}, both strings,
 * on-demand capacity, and {@value #TTL_ATTRIBUTE} as its time-to-live attribute. DynamoDB deletes
 * an expired item up to days late (and emulators never do), so the attribute only cleans up: the
 * engine judges expiry itself.
 *
 * <p>{@link #ensure} creates the table when it is missing and otherwise checks it: a table of that
 * name with other keys is refused, naming what differs, rather than written into.
 */
public final class StoreTable {

  /** The partition key: what an item belongs to ({@code q#<queue>}, {@code m#<queue>#...}). */
  public static final String PARTITION_KEY = "pk";

  /** The sort key: an item's place within its partition. */
  public static final String SORT_KEY = "sk";

  /** Epoch seconds after which DynamoDB may delete the item; never read by the engine. */
  public static final String TTL_ATTRIBUTE = "purgeAt";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{3,255}");

  private final String name;

  /**
   * The table named {@code prefix + "switchboard"}.
   *
   * @throws IllegalArgumentException if the name is not a DynamoDB table name (3..255 of {@code A-Z
   *     a-z 0-9 _ - .})
   */
  public StoreTable(String prefix) {
    this(Objects.requireNonNull(prefix, "prefix") + "switchboard", "the table prefix must make");
  }

  private StoreTable(String name, String what) {
    this.name = name;
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what + " a DynamoDB table name (3..255 of A-Z a-z 0-9 _ - .): '" + name + "' is not one");
    }
  }

  /**
   * The table named {@code name}, as is.
   *
   * @throws IllegalArgumentException if the name is not a DynamoDB table name
   */
  public static StoreTable named(String name) {
    return new StoreTable(Objects.requireNonNull(name, "name"), "the table's name must be");
  }

  /** The table's name. */
  public String name() {
    return name;
  }

  /**
   * Creates the table if it does not exist, waits until it is active, and turns its time-to-live
   * on; a table that exists is checked instead.
   *
   * @throws IllegalStateException if a table of this name has other keys than the store's
   */
  public void ensure(DynamoDbClient dynamo) {
    try {
      dynamo.createTable(
          b ->
              b.tableName(name)
                  .billingMode(BillingMode.PAY_PER_REQUEST)
                  .attributeDefinitions(string(PARTITION_KEY), string(SORT_KEY))
                  .keySchema(key(PARTITION_KEY, KeyType.HASH), key(SORT_KEY, KeyType.RANGE)));
    } catch (ResourceInUseException exists) {
      // made by another server meanwhile, or before: checked below like any existing table
    }
    TableDescription table = awaitActive(dynamo);
    check(table);
    DescribeTimeToLiveResponse ttl = dynamo.describeTimeToLive(b -> b.tableName(name));
    TimeToLiveStatus status = ttl.timeToLiveDescription().timeToLiveStatus();
    if (status != TimeToLiveStatus.ENABLED && status != TimeToLiveStatus.ENABLING) {
      dynamo.updateTimeToLive(
          b ->
              b.tableName(name)
                  .timeToLiveSpecification(s -> s.attributeName(TTL_ATTRIBUTE).enabled(true)));
    }
  }

  private TableDescription awaitActive(DynamoDbClient dynamo) {
    try {
      dynamo.waiter().waitUntilTableExists(b -> b.tableName(name));
      TableDescription table = dynamo.describeTable(b -> b.tableName(name)).table();
      if (table.tableStatus() != TableStatus.ACTIVE) {
        throw new IllegalStateException(
            "DynamoDB table " + name + " is " + table.tableStatusAsString() + ", not ACTIVE");
      }
      return table;
    } catch (ResourceNotFoundException e) {
      throw new IllegalStateException("DynamoDB table " + name + " was not created", e);
    }
  }

  private void check(TableDescription table) {
    List<KeySchemaElement> want =
        List.of(key(PARTITION_KEY, KeyType.HASH), key(SORT_KEY, KeyType.RANGE));
    boolean strings =
        table.attributeDefinitions().stream()
            .filter(
                d -> d.attributeName().equals(PARTITION_KEY) || d.attributeName().equals(SORT_KEY))
            .allMatch(d -> d.attributeType() == ScalarAttributeType.S);
    if (!table.keySchema().equals(want) || !strings) {
      throw new IllegalStateException(
          "DynamoDB table "
              + name
              + " exists with the keys "
              + table.keySchema().stream()
                  .map(k -> k.attributeName() + " (" + k.keyTypeAsString() + ")")
                  .toList()
              + " and attributes "
              + table.attributeDefinitions().stream()
                  .map(d -> d.attributeName() + ":" + d.attributeTypeAsString())
                  .toList()
              + "; the store needs "
              + PARTITION_KEY
              + " (HASH, S) and "
              + SORT_KEY
              + " (RANGE, S): choose another table prefix");
    }
  }

  private static AttributeDefinition string(String attribute) {
    return AttributeDefinition.builder()
        .attributeName(attribute)
        .attributeType(ScalarAttributeType.S)
        .build();
  }

  private static KeySchemaElement key(String attribute, KeyType type) {
    return KeySchemaElement.builder().attributeName(attribute).keyType(type).build();
  }
}
