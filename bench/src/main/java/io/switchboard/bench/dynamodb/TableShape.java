package io.switchboard.bench.dynamodb;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * What the meter needs of a table: its key attributes and its global secondary indexes, each with
 * its key attributes and what it projects. An item is in an index only when it has every key
 * attribute of the index (a sparse index); its entry there is the table's key, the index's key and
 * the projected attributes.
 *
 * @param key the table's key attribute names
 * @param indexes the global secondary indexes by name
 */
public record TableShape(List<String> key, Map<String, Index> indexes) {

  /**
   * One global secondary index.
   *
   * @param key its key attribute names
   * @param projection {@code ALL}, {@code KEYS_ONLY} or {@code INCLUDE}
   * @param included the non-key attributes an {@code INCLUDE} index projects
   */
  public record Index(List<String> key, ProjectionType projection, Set<String> included) {}

  public TableShape {
    key = List.copyOf(key);
    indexes = Map.copyOf(indexes);
  }

  /** The shape DynamoDB describes. */
  public static TableShape of(TableDescription table) {
    Map<String, Index> indexes = new LinkedHashMap<>();
    if (table.hasGlobalSecondaryIndexes()) {
      for (GlobalSecondaryIndexDescription g : table.globalSecondaryIndexes()) {
        indexes.put(
            g.indexName(),
            new Index(
                names(g.keySchema()),
                g.projection().projectionType(),
                g.projection().hasNonKeyAttributes()
                    ? Set.copyOf(g.projection().nonKeyAttributes())
                    : Set.of()));
      }
    }
    return new TableShape(names(table.keySchema()), indexes);
  }

  private static List<String> names(List<KeySchemaElement> schema) {
    return schema.stream().map(KeySchemaElement::attributeName).toList();
  }

  /** The item's key. */
  public Map<String, AttributeValue> keyOf(Map<String, AttributeValue> item) {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    for (String k : key) {
      AttributeValue v = item.get(k);
      if (v == null) {
        throw new IllegalArgumentException("an item without its key attribute " + k + ": " + item);
      }
      out.put(k, v);
    }
    return out;
  }

  /** The item's entry in the index, or null when the item is not in it (sparse, or no item). */
  public @Nullable Map<String, AttributeValue> entry(
      String index, @Nullable Map<String, AttributeValue> item) {
    Index ix = indexes.get(index);
    if (ix == null) {
      throw new IllegalArgumentException("no index " + index + " (have " + indexes.keySet() + ")");
    }
    if (item == null || !item.keySet().containsAll(ix.key())) {
      return null;
    }
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
      String name = e.getKey();
      boolean projected =
          key.contains(name)
              || ix.key().contains(name)
              || ix.projection() == ProjectionType.ALL
              || (ix.projection() == ProjectionType.INCLUDE && ix.included().contains(name));
      if (projected) {
        out.put(name, e.getValue());
      }
    }
    return out;
  }

  /**
   * The write units a change of one item from {@code before} to {@code after} (null: none) costs in
   * one index ("Provisioned throughput considerations for global secondary indexes", the GSI page's
   * "Write capacity units"): nothing when the item is in the index neither before nor after or its
   * entry did not change; one write of the entry when it enters, leaves, or changes only projected
   * attributes; two (a delete of the old entry and a put of the new) when its index key changed.
   * Each write is billed per started 1 KB of the entry.
   */
  public long indexWriteUnits(
      String index,
      @Nullable Map<String, AttributeValue> before,
      @Nullable Map<String, AttributeValue> after) {
    Map<String, AttributeValue> was = entry(index, before);
    Map<String, AttributeValue> is = entry(index, after);
    if (was == null && is == null) {
      return 0;
    }
    if (was == null) {
      return ItemSize.writeUnits(ItemSize.of(is));
    }
    if (is == null) {
      return ItemSize.writeUnits(ItemSize.of(was));
    }
    if (was.equals(is)) {
      return 0;
    }
    boolean keyChanged =
        Objects.requireNonNull(indexes.get(index)).key().stream()
            .anyMatch(k -> !Objects.equals(was.get(k), is.get(k)));
    if (keyChanged) {
      return ItemSize.writeUnits(ItemSize.of(was)) + ItemSize.writeUnits(ItemSize.of(is));
    }
    return ItemSize.writeUnits(Math.max(ItemSize.of(was), ItemSize.of(is)));
  }

  /**
   * The base table's write units for one item changed from {@code before} to {@code after} (the
   * larger of the two images, per started 1 KB, at least one), doubled in a transaction. A write
   * whose condition failed changed nothing ({@code before} equals {@code after}) and is billed the
   * same way: the existing item's size, or one unit when there was none ("Condition expressions": a
   * failed conditional write still consumes write capacity).
   */
  public static long tableWriteUnits(
      @Nullable Map<String, AttributeValue> before,
      @Nullable Map<String, AttributeValue> after,
      boolean transactional) {
    long units = ItemSize.writeUnits(Math.max(ItemSize.of(before), ItemSize.of(after)));
    return transactional ? 2 * units : units;
  }
}
