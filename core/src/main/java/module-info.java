/**
 * Switchboard's core: queues, selectors and routing in memory, the clock, and the journal SPI that
 * the durable engines implement. No third-party runtime dependency (JSpecify's annotations are read
 * at compile time only).
 *
 * <p>{@code io.switchboard.internal} (the byte codec and primitive maps) is shared with the RocksDB
 * store only; it is not API.
 */
module io.switchboard.core {
  requires static org.jspecify;

  exports io.switchboard.queue;
  exports io.switchboard.queue.spi;
  exports io.switchboard.routing;
  exports io.switchboard.routing.spi;
  exports io.switchboard.selector;
  exports io.switchboard.time;
  exports io.switchboard.internal to
      io.switchboard.storage.rocksdb;
}
