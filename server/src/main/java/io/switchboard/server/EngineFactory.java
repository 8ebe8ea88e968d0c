package io.switchboard.server;

import io.switchboard.queue.QueueEngine;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.server.config.Durability;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.observability.HealthRegistry;
import io.switchboard.storage.rocksdb.OrderIndex;
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

  /**
   * Opens the engine and registers what {@code /health} should ask it (the durable store reports
   * when it cannot write). By default the same as {@link #open(ServerConfig)}.
   */
  default QueueEngine open(ServerConfig config, HealthRegistry health) {
    return open(config);
  }

  /** Keeps everything in memory; lost when the server stops. */
  static EngineFactory inMemory() {
    return config -> {
      noteHotWindowIgnored(config, "in-memory");
      return QueueEngine.builder()
          .maxQueues(config.maxQueues())
          .limits(config.queueLimits())
          .build();
    };
  }

  /**
   * Logs that {@code hot-window} does nothing here when it was set: only the embedded store keeps
   * the backlog on disk (in memory everything is in the heap, PostgreSQL keeps it in the database).
   */
  private static void noteHotWindowIgnored(ServerConfig config, String mode) {
    config
        .hotWindowSource()
        .ifPresent(
            source ->
                org.slf4j.LoggerFactory.getLogger(EngineFactory.class)
                    .info(
                        "hot-window (from {}) is ignored with {}: it applies to the embedded store"
                            + " only",
                        source,
                        mode));
  }

  /**
   * The engine the configuration asks for: the shared PostgreSQL database with {@code
   * postgres-url}, the shared DynamoDB table with {@code dynamodb-table}, in memory with {@code
   * in-memory}, otherwise the embedded durable store (RocksDB) in {@code data-dir}, recovered
   * before the server is ready.
   */
  static EngineFactory forConfig(ServerConfig config) {
    if (config.postgres().isPresent()) {
      return new EngineFactory() {
        @Override
        public QueueEngine open(ServerConfig c) {
          noteHotWindowIgnored(c, "postgres-url");
          return postgres(c);
        }

        @Override
        public QueueEngine open(ServerConfig c, HealthRegistry health) {
          noteHotWindowIgnored(c, "postgres-url");
          var engine = postgres(c);
          health.check("store", engine::problem);
          return engine;
        }
      };
    }
    if (config.dynamodb().isPresent()) {
      return c -> {
        noteHotWindowIgnored(c, "dynamodb-table");
        return dynamodb(c);
      };
    }
    if (config.inMemory()) {
      return inMemory();
    }
    return new EngineFactory() {
      @Override
      public QueueEngine open(ServerConfig c) {
        return durable(c);
      }

      @Override
      public QueueEngine open(ServerConfig c, HealthRegistry health) {
        return durable(c, health, dir -> openStore(c, dir));
      }
    };
  }

  /**
   * Opens the store in the data directory and recovers the engine from it.
   *
   * @throws StartupException when the directory is held by another process, holds a store of
   *     another format, or cannot be opened
   */
  static QueueEngine durable(ServerConfig config) {
    return durable(config, new HealthRegistry(), dir -> openStore(config, dir));
  }

  /**
   * Opens the embedded store in {@code dir}: with the order index when {@code hot-window} is on (so
   * that each standard queue keeps only its window in the heap and reads the rest from disk),
   * without it when off (a store that has one drops it).
   */
  static RocksJournal openStore(ServerConfig config, java.nio.file.Path dir) {
    return RocksJournal.open(
        dir,
        storageDurability(config.durability()),
        config.hotWindow() > 0 ? OrderIndex.MAINTAINED : OrderIndex.NONE);
  }

  /**
   * As {@link #durable(ServerConfig)}, opening the journal with {@code open} and registering the
   * store's write health ({@code "store cannot write"}) with {@code health}.
   */
  static QueueEngine durable(
      ServerConfig config,
      HealthRegistry health,
      java.util.function.Function<java.nio.file.Path, RocksJournal> open) {
    RocksJournal journal;
    try {
      journal = open.apply(config.dataDir());
    } catch (IllegalStateException e) {
      throw new StartupException(String.valueOf(e.getMessage()));
    }
    health.check("store", journal::problem);
    try {
      long maxDisk = config.maxBacklogDisk(journal.fileSystemBytes());
      if (maxDisk != Long.MAX_VALUE) {
        journal.limitDisk(maxDisk);
      }
      return QueueEngine.builder()
          .maxQueues(config.maxQueues())
          .limits(config.queueLimits())
          .hotWindow(config.hotWindow())
          .journal(journal)
          .build();
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
      throw new StartupException(String.valueOf(e.getMessage()));
    }
  }

  /**
   * Connects to the PostgreSQL database, creating or migrating its schema.
   *
   * @throws StartupException when the database is unreachable, refuses the login or holds a schema
   *     newer than this server knows
   */
  static io.switchboard.storage.postgres.PostgresQueueEngine postgres(ServerConfig config) {
    ServerConfig.Postgres pg = config.postgres().orElseThrow();
    try {
      return io.switchboard.storage.postgres.PostgresQueueEngine.builder()
          .url(pg.url(), pg.user(), pg.password())
          .maxQueues(config.maxQueues())
          .limits(config.queueLimits())
          .build();
    } catch (io.switchboard.queue.QueueException e) {
      throw new StartupException(
          "cannot use PostgreSQL at " + pg.displayUrl() + ": " + e.getMessage());
    }
  }

  /**
   * Connects to the DynamoDB table (made when missing), with the AWS SDK's default credentials.
   *
   * @throws StartupException when DynamoDB cannot be reached, refuses the credentials, or the table
   *     exists with other keys
   */
  static QueueEngine dynamodb(ServerConfig config) {
    ServerConfig.DynamoDb d = config.dynamodb().orElseThrow();
    try {
      var b =
          io.switchboard.storage.dynamodb.DynamoQueueEngine.builder()
              .table(d.table())
              .maxQueues(config.maxQueues())
              .shardRate(config.get(Settings.DYNAMODB_SHARD_RATE))
              .maxShards(config.get(Settings.DYNAMODB_MAX_SHARDS));
      d.region().ifPresent(b::region);
      d.endpoint().ifPresent(b::endpoint);
      return b.build();
    } catch (RuntimeException e) {
      throw new StartupException(
          "cannot use the DynamoDB table "
              + d.table()
              + d.endpoint().map(u -> " at " + u).orElse("")
              + ": "
              + e.getMessage());
    }
  }

  static io.switchboard.storage.rocksdb.Durability storageDurability(Durability d) {
    return switch (d) {
      case SYNC -> io.switchboard.storage.rocksdb.Durability.sync();
      case BATCH ->
          io.switchboard.storage.rocksdb.Durability.batch(java.time.Duration.ofMillis(10));
      case NONE -> io.switchboard.storage.rocksdb.Durability.none();
    };
  }
}
