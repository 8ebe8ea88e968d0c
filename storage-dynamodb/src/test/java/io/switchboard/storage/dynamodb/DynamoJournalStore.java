package io.switchboard.storage.dynamodb;

import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.tck.routing.JournalStore;
import io.switchboard.time.ManualClock;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A table of its own on moto for the routing contracts. Every journal opened on it is opened by a
 * server taking the lease over from the previous one (server-0, server-1, server-0...), so that
 * every restart is a handover at a new epoch.
 */
final class DynamoJournalStore implements JournalStore {

  private final Store store;
  private final RouterLease lease;
  private int opens;

  DynamoJournalStore(DynamoDbClient client) {
    StoreTable table = new StoreTable(Moto.prefix());
    table.ensure(client);
    this.store = new Store(client, table.name());
    this.lease = new RouterLease(store);
  }

  Store store() {
    return store;
  }

  /** Takes the lease as {@code holder} (whoever held it), answering the new epoch. */
  long takeLease(String holder) {
    return lease.acquire(lease.read(), holder, "http://" + holder + ":8080").orElseThrow();
  }

  @Override
  public synchronized RouterJournal open(ManualClock clock) {
    long epoch = takeLease("server-" + (opens++ % 2));
    return DynamoRouterJournal.open(store, epoch, DynamoRouterJournal.DEFAULT, () -> {});
  }
}
