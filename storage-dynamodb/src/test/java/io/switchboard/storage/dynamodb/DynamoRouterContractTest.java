package io.switchboard.storage.dynamodb;

import io.switchboard.tck.routing.JournalStore;
import io.switchboard.tck.routing.RouterContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The router on the DynamoDB store (moto, one request at a time) against the routing contract,
 * every restart a handover between two servers (router and journal closed, the lease taken at a new
 * epoch by the other server, a new journal loaded).
 */
@ExtendWith(Moto.class)
class DynamoRouterContractTest extends RouterContract {

  @Override
  protected JournalStore newStore() {
    return new DynamoJournalStore(Moto.client());
  }

  /** Every call a transaction on moto, one request at a time: fewer random calls than in memory. */
  @Override
  protected int randomSteps() {
    return 200;
  }
}
