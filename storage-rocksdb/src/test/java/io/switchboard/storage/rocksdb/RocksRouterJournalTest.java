package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.internal.Bytes;
import io.switchboard.routing.Router;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the RocksDB router store does: refuse a directory of another format. What every router
 * store does across restarts (every state, timers after a restart, event and reservation ids) is
 * the routing contract's ({@link RocksRouterContractTest}, {@link RocksRouterJournalContractTest}).
 */
class RocksRouterJournalTest {

  @TempDir Path dir;

  @Test
  void aNewerFormatIsRefusedWithAClearError() throws Exception {
    RocksRouterJournal journal = RocksRouterJournal.open(dir.resolve("routing"), Durability.sync());
    Router.builder().clock(ManualClock.create()).journal(journal).build().close();
    journal.close();
    try (org.rocksdb.RocksDB db = org.rocksdb.RocksDB.open(dir.resolve("routing").toString())) {
      db.put("format".getBytes(), new Bytes.Writer(4).i(RouterRecordCodec.FORMAT + 1).toArray());
    }
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> RocksRouterJournal.open(dir.resolve("routing"), Durability.sync()));
    assertTrue(e.getMessage().contains("format " + (RouterRecordCodec.FORMAT + 1)), e.getMessage());
  }
}
