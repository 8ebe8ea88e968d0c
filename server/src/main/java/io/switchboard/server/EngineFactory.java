package io.switchboard.server;

import io.switchboard.queue.QueueEngine;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.storage.rocksdb.RocksJournal;
import io.switchboard.storage.rocksdb.RocksRouterJournal;

/**
 * Makes the engine a server serves. Opening may take a while (a durable store recovers its journal
 * first); the server answers {@code /health} with 503 until it returns. The server closes the
 * engine on shutdown.
 */
@FunctionalInterface
public interface EngineFactory {

  QueueEngine open(ServerConfig config);

  /** Keeps everything in memory; lost when the server stops. */
  static EngineFactory inMemory() {
    return config -> QueueEngine.builder().maxQueues(config.maxQueues()).build();
  }

  /**
   * The engine the configuration asks for: the shared PostgreSQL database with {@code
   * postgres-url}, in memory with {@code in-memory}, otherwise the embedded durable store (RocksDB)
   * in {@code data-dir}, recovered before the server is ready.
   */
  static EngineFactory forConfig(ServerConfig config) {
    if (config.postgres().isPresent()) {
      return EngineFactory::postgres;
    }
    if (config.inMemory()) {
      return inMemory();
    }
    return EngineFactory::durable;
  }

  /**
   * Opens the store in the data directory and recovers the engine from it.
   *
   * @throws StartupException when the directory is held by another process, holds a store of
   *     another format, or cannot be opened
   */
  static QueueEngine durable(ServerConfig config) {
    RocksJournal journal;
    try {
      journal = RocksJournal.open(config.dataDir(), storageDurability(config.durability()));
    } catch (IllegalStateException e) {
      throw new StartupException(e.getMessage());
    }
    try {
      return QueueEngine.builder().maxQueues(config.maxQueues()).journal(journal).build();
    } catch (RuntimeException e) {
      journal.close();
      throw new StartupException(
          "cannot recover the store in " + config.dataDir() + ": " + e.getMessage());
    }
  }

  /**
   * Opens the router's store, the {@code routing} directory inside the data directory, with the
   * same durability as the queue store.
   *
   * @throws StartupException when the directory is held by another process, holds a store of
   *     another format, or cannot be opened
   */
  static RouterJournal routerJournal(ServerConfig config) {
    try {
      return RocksRouterJournal.open(
          config.dataDir().resolve("routing"), storageDurability(config.durability()));
    } catch (IllegalStateException e) {
      throw new StartupException(e.getMessage());
    }
  }

  /**
   * Connects to the PostgreSQL database, creating or migrating its schema.
   *
   * @throws StartupException when the database is unreachable, refuses the login or holds a schema
   *     newer than this server knows
   */
  static QueueEngine postgres(ServerConfig config) {
    ServerConfig.Postgres pg = config.postgres().orElseThrow();
    try {
      return io.switchboard.storage.postgres.PostgresQueueEngine.builder()
          .url(pg.url(), pg.user(), pg.password())
          .maxQueues(config.maxQueues())
          .build();
    } catch (io.switchboard.queue.QueueException e) {
      throw new StartupException(
          "cannot use PostgreSQL at " + pg.displayUrl() + ": " + e.getMessage());
    }
  }

  private static io.switchboard.storage.rocksdb.Durability storageDurability(Durability d) {
    return switch (d) {
      case SYNC -> io.switchboard.storage.rocksdb.Durability.sync();
      case BATCH ->
          io.switchboard.storage.rocksdb.Durability.batch(java.time.Duration.ofMillis(10));
      case NONE -> io.switchboard.storage.rocksdb.Durability.none();
    };
  }
}
