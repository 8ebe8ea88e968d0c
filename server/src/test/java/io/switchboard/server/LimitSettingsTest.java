package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueLimits;
import io.switchboard.server.config.ByteAmount;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The limit settings: amounts of memory as bytes with a unit or a share of the heap, refused with
 * the key, the range, the value and its source when out of range.
 */
class LimitSettingsTest {

  private static String refusal(String variable, String value) {
    return assertThrows(
            StartupException.class, () -> ServerConfig.resolve(Map.of(), Map.of(variable, value)))
        .getMessage();
  }

  @Test
  void defaults_areHalfTheHeap_sqsInFlightLimits_andTenMebibytesPerAnswer() {
    QueueLimits l = ServerConfig.forTests().queueLimits();
    long heap = Runtime.getRuntime().maxMemory();
    assertEquals(heap / 100 * 50, l.maxQueuedBytes());
    assertEquals(heap / 100 * 50, l.maxQueueBytes());
    assertEquals(10_000_000, l.defaultMaxDepth());
    assertEquals(120_000, l.maxInFlight());
    assertEquals(20_000, l.maxInFlightGrouped());
    assertEquals(10L << 20, l.maxAnswerBytes());
  }

  /**
   * {@code max-queues} was 10,000 whatever the heap, though an empty queue costs about 3.7 KB: a
   * server given 2 GB refused the 10,001st queue. Its default is now a quarter of the heap at 4 KiB
   * a queue, never below the old 10,000 nor above 1,000,000; a value set is kept as it is.
   */
  @Test
  void maxQueues_byDefaultAQuarterOfTheHeapAt4KiBAQueue_asSetWhenSet() {
    assertEquals(16_384, Settings.defaultMaxQueues(256L << 20));
    assertEquals(131_072, Settings.defaultMaxQueues(2L << 30));
    assertEquals(10_000, Settings.defaultMaxQueues(64L << 20));
    assertEquals(1_000_000, Settings.defaultMaxQueues(32L << 30));
    assertEquals(
        Settings.defaultMaxQueues(Runtime.getRuntime().maxMemory()),
        ServerConfig.forTests().maxQueues());
    assertEquals(10_000, ServerConfig.resolve(Map.of("max-queues", "10000"), Map.of()).maxQueues());
    assertEquals(
        25, ServerConfig.resolve(Map.of(), Map.of("SWITCHBOARD_MAX_QUEUES", "25")).maxQueues());
    assertEquals(7, ServerConfig.forTests().with(Settings.MAX_QUEUES, 7).maxQueues());
  }

  /**
   * A value set in code ({@code ServerConfig.with}) is set, even when it equals the declared
   * default: {@code max-queues} 10000 is 10000 whatever the heap, and a {@code max-queue-bytes} set
   * with PostgreSQL holds (left unset, it has no default there). Both read as "not set" before.
   */
  @Test
  void aValueSetInCode_equalToTheDefault_isKept_notTakenForTheDerivedDefault() {
    assertEquals(10_000, ServerConfig.forTests().with(Settings.MAX_QUEUES, 10_000).maxQueues());
    ServerConfig postgres =
        ServerConfig.forTests().with(Settings.POSTGRES_URL, "jdbc:postgresql://db.invalid/sb");
    assertEquals(QueueLimits.NONE.maxQueueBytes(), postgres.queueLimits().maxQueueBytes());
    ByteAmount half = Settings.MAX_QUEUE_BYTES.defaultValue().orElseThrow();
    assertEquals(
        half.resolve(Runtime.getRuntime().maxMemory()),
        postgres.with(Settings.MAX_QUEUE_BYTES, half).queueLimits().maxQueueBytes());
  }

  @Test
  void theStartLogLine_namesEveryLimitInForce() {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of(
                "max-queued-bytes", "512m",
                "max-queue-bytes", "64m",
                "max-answer-bytes", "100k",
                "max-connections", "300",
                "max-connections-per-address", "30",
                "max-long-polls", "40",
                "max-event-streams", "50",
                "max-event-streams-per-key", "5"),
            Map.of());
    assertEquals(
        "queuedBytes=512MiB queueBytes=64MiB defaultMaxDepth=10000000 inFlight=120000/20000"
            + " answerBytes=100KiB connections=300/30 longPolls=40 eventStreams=50/5",
        SwitchboardServer.limitsLine(config));
  }

  @Test
  void postgres_queueBytesHoldOnlyWhenSet_aHeapShareSaysNothingOfTheDatabase() {
    String url = "jdbc:postgresql://db.example/switchboard";
    ServerConfig unset = ServerConfig.resolve(Map.of("postgres-url", url), Map.of());
    assertEquals(QueueLimits.NONE.maxQueueBytes(), unset.queueLimits().maxQueueBytes());
    assertTrue(SwitchboardServer.limitsLine(unset).contains(" queueBytes=none "));
    ServerConfig set =
        ServerConfig.resolve(Map.of("postgres-url", url, "max-queue-bytes", "64g"), Map.of());
    assertEquals(64L << 30, set.queueLimits().maxQueueBytes());
  }

  @Test
  void amounts_readUnitsAndShares() {
    QueueLimits l =
        ServerConfig.resolve(
                Map.of(
                    "max-queued-bytes", "512m",
                    "max-queue-bytes", "10%",
                    "max-answer-bytes", "64K"),
                Map.of())
            .queueLimits();
    assertEquals(512L << 20, l.maxQueuedBytes());
    assertEquals(Runtime.getRuntime().maxMemory() / 100 * 10, l.maxQueueBytes());
    assertEquals(64L << 10, l.maxAnswerBytes());
  }

  @Test
  void outOfRangeOrMalformed_namesRangeValueAndSource() {
    assertEquals(
        "max-queued-bytes must be 1m..1t bytes or 1%..90% of the max heap (such as 64k, 512m or"
            + " 2g, or 50%), got 95% (from SWITCHBOARD_MAX_QUEUED_BYTES)",
        refusal("SWITCHBOARD_MAX_QUEUED_BYTES", "95%"));
    assertEquals(
        "max-queued-bytes must be 1m..1t bytes or 1%..90% of the max heap (such as 64k, 512m or"
            + " 2g, or 50%), got 'lots' (from SWITCHBOARD_MAX_QUEUED_BYTES)",
        refusal("SWITCHBOARD_MAX_QUEUED_BYTES", "lots"));
    assertEquals(
        "max-answer-bytes must be 64k..1g bytes (such as 64k, 512m or 2g), got '50%' (from"
            + " SWITCHBOARD_MAX_ANSWER_BYTES)",
        refusal("SWITCHBOARD_MAX_ANSWER_BYTES", "50%"));
    assertEquals(
        "max-answer-bytes must be 64k..1g bytes (such as 64k, 512m or 2g), got"
            + " '99999999999999t' (from SWITCHBOARD_MAX_ANSWER_BYTES)",
        refusal("SWITCHBOARD_MAX_ANSWER_BYTES", "99999999999999t"));
    assertEquals(
        "max-in-flight must be 1..100000000, got 0 (from SWITCHBOARD_MAX_IN_FLIGHT)",
        refusal("SWITCHBOARD_MAX_IN_FLIGHT", "0"));
  }

  /**
   * {@code hot-window}: 10,000 messages per queue by default, {@code off} or 0 to keep every
   * message in the heap; {@code max-backlog-disk}: by default 80% of the data directory's file
   * system (no limit when its size cannot be read), or an amount.
   */
  @Test
  void hotWindowAndBacklogDisk_defaultsOffAndShares() {
    assertEquals(10_000, ServerConfig.forTests().hotWindow());
    assertEquals(0, ServerConfig.resolve(Map.of("hot-window", "off"), Map.of()).hotWindow());
    assertEquals(0, ServerConfig.resolve(Map.of("hot-window", "0"), Map.of()).hotWindow());
    assertEquals(
        4, ServerConfig.resolve(Map.of(), Map.of("SWITCHBOARD_HOT_WINDOW", "4")).hotWindow());
    assertEquals(800L << 30, ServerConfig.forTests().maxBacklogDisk(1000L << 30));
    assertEquals(Long.MAX_VALUE, ServerConfig.forTests().maxBacklogDisk(0));
    ServerConfig set = ServerConfig.resolve(Map.of("max-backlog-disk", "200g"), Map.of());
    assertEquals(200L << 30, set.maxBacklogDisk(1000L << 30));
    assertEquals(200L << 30, set.maxBacklogDisk(0));
    assertEquals(
        50L << 30,
        ServerConfig.resolve(Map.of("max-backlog-disk", "5%"), Map.of())
            .maxBacklogDisk(1000L << 30));
    assertEquals(
        "hot-window must be 0..1000000 messages, or off (0), got 1000001 (from"
            + " SWITCHBOARD_HOT_WINDOW)",
        refusal("SWITCHBOARD_HOT_WINDOW", "1000001"));
    assertEquals(
        "hot-window must be 0..1000000 messages, or off (0), got 'lots' (from"
            + " SWITCHBOARD_HOT_WINDOW)",
        refusal("SWITCHBOARD_HOT_WINDOW", "lots"));
    assertEquals(
        "max-backlog-disk must be 1m..1024t bytes or 1%..95% of the data directory's file system"
            + " (such as 200g, or 80%), got 99% (from SWITCHBOARD_MAX_BACKLOG_DISK)",
        refusal("SWITCHBOARD_MAX_BACKLOG_DISK", "99%"));
    assertEquals(
        "max-backlog-disk must be 1m..1024t bytes or 1%..95% of the data directory's file system"
            + " (such as 200g, or 80%), got 'most' (from SWITCHBOARD_MAX_BACKLOG_DISK)",
        refusal("SWITCHBOARD_MAX_BACKLOG_DISK", "most"));
  }
}
