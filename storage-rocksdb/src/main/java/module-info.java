/**
 * The embedded durable journal: RocksDB in the server's data directory, group commit. Implements
 * core's journal SPI; reads core's internal byte codec and primitive maps ({@code
 * io.switchboard.internal}, exported to this module only).
 *
 * <p>rocksdbjni has no module descriptor and no {@code Automatic-Module-Name}: it is the automatic
 * module {@code rocksdbjni}, named after its jar file (docs/decisions.md, 2026-11-26).
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.storage.rocksdb {
  requires transitive io.switchboard.core;
  requires rocksdbjni;
  requires static org.jspecify;

  exports io.switchboard.storage.rocksdb;
}
