package io.switchboard.storage.dynamodb;

import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The routing workspaces' definitions as items of partition {@value #PARTITION} (the name as the
 * sort key, {@link WorkspaceCodec} bytes in {@code v}), one request per change, so a change is
 * durable when the call returns. The routing leader's store writes in a transaction whose condition
 * check requires its lease epoch, as the routers' journals do: a deposed leader changes no
 * definition.
 */
final class DynamoWorkspaceStore implements WorkspaceStore {

  static final String PARTITION = "rt#workspaces";

  private final Store store;
  private final RouterLease lease;
  private final long epoch;

  /** The store of the holder of lease epoch {@code epoch}. */
  DynamoWorkspaceStore(Store store, long epoch) {
    this.store = store;
    this.lease = new RouterLease(store);
    this.epoch = epoch;
  }

  @Override
  public List<WorkspaceDefinition> load() {
    try {
      List<WorkspaceDefinition> out = new ArrayList<>();
      Map<String, AttributeValue> start = null;
      do {
        Map<String, AttributeValue> from = start;
        QueryResponse r =
            store.call(
                d ->
                    d.query(
                        b -> {
                          b.tableName(store.table())
                              .consistentRead(true)
                              .keyConditionExpression("pk = :p")
                              .expressionAttributeValues(Map.of(":p", Store.s(PARTITION)));
                          if (from != null) {
                            b.exclusiveStartKey(from);
                          }
                        }));
        r.items().forEach(item -> out.add(WorkspaceCodec.decode(Store.bytes(item, "v"))));
        start =
            r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty()
                ? r.lastEvaluatedKey()
                : null;
      } while (start != null);
      return out;
    } catch (QueueException e) {
      throw RoutingException.unavailable(
          "could not read workspaces in DynamoDB: " + e.getMessage(), e);
    }
  }

  @Override
  public void put(WorkspaceDefinition definition) {
    Map<String, AttributeValue> item = new HashMap<>(Store.key(PARTITION, definition.name()));
    item.put("v", AttributeValue.fromB(SdkBytes.fromByteArray(WorkspaceCodec.encode(definition))));
    write(TransactWriteItem.builder().put(p -> p.tableName(store.table()).item(item)).build());
  }

  @Override
  public void delete(String name) {
    write(
        TransactWriteItem.builder()
            .delete(d -> d.tableName(store.table()).key(Store.key(PARTITION, name)))
            .build());
  }

  private void write(TransactWriteItem w) {
    try {
      DynamoRouterJournal.transact(store, lease, epoch, "storing a workspace", List.of(w));
    } catch (RoutingException e) {
      throw e;
    } catch (RuntimeException e) {
      throw RoutingException.unavailable(String.valueOf(e.getMessage()), e);
    }
  }
}
