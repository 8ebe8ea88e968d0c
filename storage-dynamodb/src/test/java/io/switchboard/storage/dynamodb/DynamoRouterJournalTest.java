package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.NewAgent;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.spi.StoredAgent;
import io.switchboard.testing.Await;
import io.switchboard.time.ManualClock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * What only the DynamoDB router store does: a transaction cancelled by a conflict on the lease item
 * (a renewal at the same moment; emulators never send one, so an SDK interceptor does) is retried
 * and the call succeeds; a store that stays throttled stops the router with UNAVAILABLE, storing
 * nothing; a store of another format is refused. The fence and every store's behaviour are in
 * {@link DynamoRoutingLeadershipTest} and the routing contracts.
 */
@ExtendWith(Moto.class)
class DynamoRouterJournalTest {

  /** Fails the next {@code left} routing transactions with what {@code failure} makes. */
  static final class Failing implements ExecutionInterceptor {
    final AtomicInteger left = new AtomicInteger();
    final AtomicInteger thrown = new AtomicInteger();
    volatile boolean conflict = true;

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (context.request() instanceof TransactWriteItemsRequest && left.getAndDecrement() > 0) {
        thrown.incrementAndGet();
        if (conflict) {
          throw TransactionCanceledException.builder()
              .message(
                  "Transaction cancelled, please refer cancellation reasons for specific"
                      + " reasons [TransactionConflict]")
              .cancellationReasons(
                  CancellationReason.builder()
                      .code("TransactionConflict")
                      .message("Transaction is ongoing for the item")
                      .build())
              .statusCode(400)
              .build();
        }
        throw ProvisionedThroughputExceededException.builder()
            .message("Rate of requests exceeds the allowed throughput")
            .statusCode(400)
            .build();
      }
    }
  }

  private static NewAgent agent(String id) {
    return NewAgent.builder(id).capacity("voice", 1).build();
  }

  @Test
  void conflictOnTheLeaseItem_isRetried_theCallIsStored() {
    Failing failing = new Failing();
    try (DynamoDbClient client = Moto.client(failing)) {
      DynamoJournalStore store = new DynamoJournalStore(client);
      long epoch = store.takeLease("a");
      DynamoRouterJournal journal =
          DynamoRouterJournal.open(store.store(), epoch, DynamoRouterJournal.DEFAULT, () -> {});
      Router router = Router.builder().clock(ManualClock.create()).journal(journal).build();
      failing.left.set(2);
      router.createAgent(agent("ana"));
      assertEquals(2, failing.thrown.get(), "two cancelled attempts, then stored");
      router.close();
      journal.close();
      DynamoRouterJournal again =
          DynamoRouterJournal.open(
              store.store(), store.takeLease("b"), DynamoRouterJournal.DEFAULT, () -> {});
      assertEquals(List.of("ana"), again.load().agents().stream().map(StoredAgent::id).toList());
      again.close();
    }
  }

  @Test
  void throttledBeyondTheRetries_callUnavailable_routerStops_nothingStored() {
    Failing failing = new Failing();
    failing.conflict = false;
    try (DynamoDbClient client = Moto.client(failing)) {
      DynamoJournalStore store = new DynamoJournalStore(client);
      long epoch = store.takeLease("a");
      AtomicInteger failures = new AtomicInteger();
      DynamoRouterJournal journal =
          DynamoRouterJournal.open(
              store.store(), epoch, DynamoRouterJournal.DEFAULT, failures::incrementAndGet);
      Router router = Router.builder().clock(ManualClock.create()).journal(journal).build();
      failing.left.set(Integer.MAX_VALUE);
      RoutingException refused =
          assertThrows(RoutingException.class, () -> router.createAgent(agent("ana")));
      assertEquals(RoutingErrorCode.UNAVAILABLE, refused.code());
      assertTrue(refused.getMessage().contains("retry later"), refused.getMessage());
      // the writer tells the owner after failing the tickets
      Await.until(() -> failures.get() == 1, "the owner told to step down");
      assertTrue(journal.failure().isPresent());
      failing.left.set(0);
      router.close();
      journal.close();
      DynamoRouterJournal again =
          DynamoRouterJournal.open(
              store.store(), store.takeLease("b"), DynamoRouterJournal.DEFAULT, () -> {});
      assertEquals(List.of(), again.load().agents());
      again.close();
    }
  }

  @Test
  void storeOfAnotherFormat_isRefusedNamingBoth() {
    try (DynamoDbClient client = Moto.client()) {
      DynamoJournalStore store = new DynamoJournalStore(client);
      DynamoRouterJournal.open(
              store.store(), store.takeLease("a"), DynamoRouterJournal.DEFAULT, () -> {})
          .close();
      client.updateItem(
          b ->
              b.tableName(store.store().table())
                  .key(Store.key(DynamoRouterJournal.statePartition("default"), "state"))
                  .updateExpression("SET #f = :f")
                  .expressionAttributeNames(Map.of("#f", "format"))
                  .expressionAttributeValues(Map.of(":f", Store.n(7))));
      long epoch = store.takeLease("b");
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () ->
                  DynamoRouterJournal.open(
                      store.store(), epoch, DynamoRouterJournal.DEFAULT, () -> {}));
      assertTrue(
          e.getMessage().contains("format 7") && e.getMessage().contains("format 1 only"),
          e.getMessage());
    }
  }
}
