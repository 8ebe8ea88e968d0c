package io.switchboard.storage.rocksdb;

/**
 * Whether a store keeps the order index of every waiting message (the {@code orders} column family,
 * docs/design.md, "A backlog bigger than memory"). Chosen when the store is opened.
 */
public enum OrderIndex {
  /**
   * No index (the default): the engine holds every message in its heap. A store that had an index
   * drops it when opened so, since it would go stale.
   */
  NONE,

  /**
   * The index is kept in the same write as every change; a store without one builds it once when
   * opened so.
   */
  MAINTAINED
}
