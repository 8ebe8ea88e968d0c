package io.switchboard.storage.dynamodb;

import io.switchboard.tck.routing.JournalStore;
import io.switchboard.tck.routing.RouterJournalContract;
import org.junit.jupiter.api.extension.ExtendWith;

/** The DynamoDB router store (moto, one request at a time) against the journal contract. */
@ExtendWith(Moto.class)
class DynamoRouterJournalContractTest extends RouterJournalContract {

  @Override
  protected JournalStore newStore() {
    return new DynamoJournalStore(Moto.client());
  }
}
