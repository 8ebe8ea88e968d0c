package io.switchboard.server;

import io.switchboard.queue.QueueEngine;

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
   * The engine the configuration asks for: in memory with {@code in-memory}, otherwise the durable
   * store in {@code data-dir}, which does not exist yet.
   *
   * @throws StartupException when the configuration asks for durable storage
   */
  static EngineFactory forConfig(ServerConfig config) {
    if (config.inMemory()) {
      return inMemory();
    }
    throw new StartupException(
        "durable storage is not available yet (asked for data directory '"
            + config.dataDir()
            + "' with durability "
            + config.durability().name().toLowerCase(java.util.Locale.ROOT)
            + "); start the server with --in-memory (or SWITCHBOARD_IN_MEMORY=true) to keep"
            + " queues in memory, lost when the server stops");
  }
}
