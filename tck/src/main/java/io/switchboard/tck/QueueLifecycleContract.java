package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Creating, configuring, listing and deleting queues: names, limits and every config range. */
public abstract class QueueLifecycleContract extends EngineContract {

  @Test
  void createQueue_validName_returnsInfoWithConfigAndCreationTime() {
    QueueConfig config = config().visibilityTimeout(seconds(5)).build();
    QueueInfo info = engine.createQueue("orders_v2-eu", config);
    assertEquals("orders_v2-eu", info.name());
    assertFalse(info.grouped());
    assertEquals(config, info.config());
    assertEquals(clock.instant(), info.createdAt());
    assertEquals(info, engine.queue("orders_v2-eu"));
  }

  @Test
  void createQueue_nameEndingFifo_isGrouped() {
    assertTrue(create("auction.fifo").grouped());
    assertTrue(engine.queue("auction.fifo").grouped());
  }

  @Test
  void createQueue_nameOf80Characters_accepted() {
    String name = "n".repeat(80);
    assertEquals(name, create(name).name());
    String grouped = "g".repeat(75) + ".fifo";
    assertTrue(create(grouped).grouped());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", " ", "a b", "a.b", "a/b", "caf\u00e9", ".fifo", "q.FIFO", "q.fifo.fifo"})
  void createQueue_invalidName_refusedNamingTheValue(String name) {
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.createQueue(name, QueueConfig.defaults()),
        "name",
        "'" + name + "'");
    assertEquals(List.of(), engine.listQueues(""));
  }

  @Test
  void createQueue_nameOf81Characters_refused() {
    assertError(ErrorCode.INVALID_ARGUMENT, () -> create("n".repeat(81)), "name", "80");
    assertError(ErrorCode.INVALID_ARGUMENT, () -> create("g".repeat(76) + ".fifo"), "name", "80");
    assertEquals(List.of(), engine.listQueues(""));
  }

  @Test
  void createQueue_sameConfigTwice_returnsTheExistingQueue() {
    QueueInfo first = create("q", config().delay(seconds(3)));
    clock.advanceSeconds(10);
    QueueInfo again = create("q", config().delay(seconds(3)));
    assertEquals(first, again);
    assertEquals(1, engine.listQueues("").size());
  }

  @Test
  void createQueue_differentConfig_queueAlreadyExistsAndKeepsOldConfig() {
    QueueInfo first = create("q", config().delay(seconds(3)));
    assertError(
        ErrorCode.QUEUE_ALREADY_EXISTS, () -> create("q", config().delay(seconds(4))), "'q'");
    assertEquals(first, engine.queue("q"));
  }

  @Test
  void createQueue_beyondMaxQueues_tooManyQueuesUntilOneIsDeleted() {
    QueueEngine small = track(newEngine(clock, 2));
    small.createQueue("a", QueueConfig.defaults());
    small.createQueue("b", QueueConfig.defaults());
    assertError(
        ErrorCode.TOO_MANY_QUEUES, () -> small.createQueue("c", QueueConfig.defaults()), "2");
    assertEquals(2, small.listQueues("").size());
    // Re-creating an existing queue is not a new queue.
    small.createQueue("a", QueueConfig.defaults());
    small.deleteQueue("a");
    small.createQueue("c", QueueConfig.defaults());
    assertEquals(List.of("b", "c"), small.listQueues("").stream().map(QueueInfo::name).toList());
  }

  @Test
  void createQueue_lifoOnGroupedQueue_refused() {
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> create("g.fifo", config().order(Order.LIFO)),
        "order",
        "lifo");
    assertEquals(List.of(), engine.listQueues(""));
  }

  @Test
  void createQueue_dedupScopeGroupOnStandardQueue_refused() {
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> create("q", config().dedupScope(DedupScope.GROUP)),
        "dedupScope");
  }

  @Test
  void createQueue_deadLetterTargetMissing_queueNotFoundNamingTarget() {
    assertError(
        ErrorCode.QUEUE_NOT_FOUND, () -> create("q", config().deadLetter("nowhere", 3)), "nowhere");
    assertEquals(List.of(), engine.listQueues(""));
  }

  @Test
  void createQueue_deadLetterTargetOfOtherKind_refused() {
    create("plain-dlq");
    create("grouped-dlq.fifo");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> create("q", config().deadLetter("grouped-dlq.fifo", 3)),
        "deadLetter.target",
        "grouped-dlq.fifo");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> create("g.fifo", config().deadLetter("plain-dlq", 3)),
        "deadLetter.target",
        "plain-dlq");
    assertEquals(2, engine.listQueues("").size());
  }

  @Test
  void createQueue_deadLetterTargetItself_accepted() {
    assertEquals(
        DeadLetterPolicy.of("q", 3),
        create("q", config().deadLetter("q", 3)).config().deadLetter().orElseThrow());
    assertEquals(
        DeadLetterPolicy.of("g.fifo", 1),
        create("g.fifo", config().deadLetter("g.fifo", 1)).config().deadLetter().orElseThrow());
    create("later");
    assertEquals(
        DeadLetterPolicy.of("later", 2),
        engine
            .updateQueue("later", c -> c.toBuilder().deadLetter("later", 2).build())
            .config()
            .deadLetter()
            .orElseThrow());
  }

  @Test
  void createQueue_deadLetterTargetItselfWithOnExpireDeadLetter_refused() {
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> create("q", config().deadLetter("q", 3).onExpire(ExpiryAction.DEAD_LETTER)),
        "onExpire",
        "itself",
        "q");
    assertEquals(0, engine.listQueues("").size());
  }

  @Test
  void createQueue_deadLetterOfSameKind_accepted() {
    create("dlq");
    create("dlq.fifo");
    assertEquals(
        DeadLetterPolicy.of("dlq", 5),
        create("q", config().deadLetter("dlq", 5)).config().deadLetter().orElseThrow());
    assertTrue(create("g.fifo", config().deadLetter("dlq.fifo", 1)).grouped());
  }

  /** Each case: a config change, the field the error must name, the value it must show. */
  private static final List<ConfigCase> OUT_OF_RANGE =
      List.of(
          new ConfigCase(
              b -> b.visibilityTimeout(Duration.ofHours(12).plusSeconds(1)),
              "visibilityTimeout",
              "43201"),
          new ConfigCase(b -> b.visibilityTimeout(seconds(-1)), "visibilityTimeout", "-1"),
          new ConfigCase(b -> b.delay(seconds(901)), "delay", "901"),
          new ConfigCase(b -> b.retention(seconds(59)), "retention", "59"),
          new ConfigCase(
              b -> b.retention(Duration.ofDays(14).plusSeconds(1)), "retention", "1209601"),
          new ConfigCase(b -> b.maxMessageSize(1023), "maxMessageSize", "1023"),
          new ConfigCase(b -> b.maxMessageSize(1_048_577), "maxMessageSize", "1048577"),
          new ConfigCase(b -> b.receiveWait(seconds(21)), "receiveWait", "21"),
          new ConfigCase(b -> b.maxDepth(0, Overflow.REJECT), "maxDepth", "0"),
          new ConfigCase(b -> b.keyLimit(0), "keyLimit.maxConcurrent must be 1..120000", "0"),
          new ConfigCase(b -> b.keyLimit(120_001), "keyLimit.maxConcurrent", "120001"),
          new ConfigCase(
              b -> b.historyRetention(Duration.ofDays(15)), "historyRetention", "1296000"),
          new ConfigCase(b -> b.onExpire(ExpiryAction.DEAD_LETTER), "onExpire", "deadLetter"));

  private record ConfigCase(
      UnaryOperator<QueueConfig.Builder> change, String field, String value) {}

  @Test
  void queueConfig_outOfRange_refusedNamingFieldAndValue() {
    for (ConfigCase c : OUT_OF_RANGE) {
      assertError(
          ErrorCode.INVALID_ARGUMENT,
          () -> c.change().apply(config()).build(),
          c.field(),
          c.value());
    }
  }

  @Test
  void deadLetterPolicy_maxReceiveCountOutOfRange_refused() {
    assertError(
        ErrorCode.INVALID_ARGUMENT, () -> DeadLetterPolicy.of("dlq", 0), "maxReceiveCount", "0");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> DeadLetterPolicy.of("dlq", 1001),
        "maxReceiveCount",
        "1001");
  }

  @Test
  void createQueue_lowestLimits_accepted() {
    create("dlq");
    QueueConfig low =
        config()
            .visibilityTimeout(Duration.ZERO)
            .delay(Duration.ZERO)
            .retention(seconds(60))
            .maxMessageSize(1024)
            .receiveWait(Duration.ZERO)
            .deadLetter("dlq", 1)
            .maxDepth(1, Overflow.REJECT)
            .build();
    assertEquals(low, engine.createQueue("low", low).config());
  }

  @Test
  void createQueue_highestLimits_accepted() {
    create("dlq");
    QueueConfig high =
        config()
            .visibilityTimeout(Duration.ofHours(12))
            .delay(seconds(900))
            .retention(Duration.ofDays(14))
            .maxMessageSize(1_048_576)
            .receiveWait(seconds(20))
            .deadLetter("dlq", 1000)
            .maxDepth(QueueConfig.MAX_DEPTH_LIMIT, Overflow.DROP_OLDEST)
            .onExpire(ExpiryAction.DEAD_LETTER)
            .historyRetention(Duration.ofDays(14))
            .build();
    assertEquals(high, engine.createQueue("high", high).config());
  }

  @Test
  void queue_missing_queueNotFoundNamingIt() {
    assertError(ErrorCode.QUEUE_NOT_FOUND, () -> engine.queue("ghost"), "ghost");
    assertError(ErrorCode.QUEUE_NOT_FOUND, () -> engine.stats("ghost"), "ghost");
    assertError(ErrorCode.QUEUE_NOT_FOUND, () -> send("ghost", "x"), "ghost");
    assertError(
        ErrorCode.QUEUE_NOT_FOUND, () -> engine.receive("ghost", ReceiveRequest.one()), "ghost");
  }

  @Test
  void listQueues_prefix_returnsMatchingSortedByName() {
    for (String name : List.of("orders-b", "payments", "orders-a", "orders.fifo", "ord")) {
      create(name);
    }
    assertEquals(
        List.of("orders-a", "orders-b", "orders.fifo"),
        engine.listQueues("orders").stream().map(QueueInfo::name).toList());
    assertEquals(
        List.of("ord", "orders-a", "orders-b", "orders.fifo", "payments"),
        engine.listQueues("").stream().map(QueueInfo::name).toList());
    assertEquals(List.of(), engine.listQueues("zzz"));
  }

  @Test
  void listQueues_pageAfterAName_limitedAndSortedWithinThePrefix() {
    for (String name : List.of("orders-d", "payments", "orders-a", "orders-c", "ord", "orders-b")) {
      create(name);
    }
    assertEquals(
        List.of("orders-a", "orders-b"),
        engine.listQueues("orders", "", 2).stream().map(QueueInfo::name).toList());
    assertEquals(
        List.of("orders-c", "orders-d"),
        engine.listQueues("orders", "orders-b", 2).stream().map(QueueInfo::name).toList());
    assertEquals(List.of(), engine.listQueues("orders", "orders-d", 2));
    assertEquals(
        List.of("orders-d", "payments"),
        engine.listQueues("", "orders-c", 5).stream().map(QueueInfo::name).toList());
  }

  @Test
  void updateQueue_newVisibilityTimeout_usedByNextReceive() {
    create("q");
    send("q", "x");
    QueueConfig next = config().visibilityTimeout(seconds(7)).build();
    assertEquals(next, engine.updateQueue("q", next).config());
    assertEquals(next, engine.queue("q").config());
    Message m = receiveOne("q");
    assertEquals(clock.instant().plusSeconds(7), m.visibleAt().orElseThrow());
  }

  @Test
  void updateQueue_missing_queueNotFound() {
    assertError(
        ErrorCode.QUEUE_NOT_FOUND,
        () -> engine.updateQueue("ghost", QueueConfig.defaults()),
        "ghost");
  }

  @Test
  void updateQueue_invalidConfig_refusedAndConfigUnchanged() {
    QueueInfo before = create("g.fifo");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.updateQueue("g.fifo", config().order(Order.LIFO).build()),
        "order");
    assertError(
        ErrorCode.QUEUE_NOT_FOUND,
        () -> engine.updateQueue("g.fifo", config().deadLetter("nowhere.fifo", 2).build()),
        "nowhere.fifo");
    assertEquals(before, engine.queue("g.fifo"));
  }

  @Test
  void updateQueue_orderChange_resortsQueuedMessages() {
    create("q");
    sendAll("q", "a", "b", "c");
    send("q", "urgent", 1);
    engine.updateQueue("q", config().order(Order.LIFO).build());
    assertEquals(
        List.of("urgent", "c", "b", "a"), bodies(browseAll("q")), "browse after fifo->lifo");
    Message c = receive("q", 2).get(1);
    assertEquals("c", c.body());
    engine.release("q", receipt(c));
    engine.updateQueue("q", config().order(Order.FIFO).build());
    assertEquals(List.of("a", "b", "c"), receiveBodies("q"));
  }

  @Test
  void updateQueue_queuedMessages_keepTheirDelayAndExpiry() {
    create("q", config().delay(seconds(10)).retention(seconds(120)));
    String id = send("q", "x").id();
    Message before = engine.get("q", id);
    engine.updateQueue("q", config().delay(Duration.ZERO).retention(seconds(60)).build());
    Message after = engine.get("q", id);
    assertEquals(MessageState.DELAYED, after.state());
    assertEquals(before.visibleAt(), after.visibleAt());
    assertEquals(before.expiresAt(), after.expiresAt());
    assertNothingToReceive("q");
    clock.advanceSeconds(10);
    assertEquals("x", receiveOne("q").body());
  }

  @Test
  void deleteQueue_existing_removesQueueAndItsMessages() {
    create("q");
    String id = send("q", "x").id();
    engine.deleteQueue("q");
    assertError(ErrorCode.QUEUE_NOT_FOUND, () -> engine.queue("q"), "'q'");
    assertError(ErrorCode.QUEUE_NOT_FOUND, () -> engine.get("q", id), "'q'");
    assertEquals(List.of(), engine.listQueues(""));
    create("q");
    assertEquals(0, engine.stats("q").depth());
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id), id);
  }

  @Test
  void deleteQueue_missing_queueNotFound() {
    assertError(ErrorCode.QUEUE_NOT_FOUND, () -> engine.deleteQueue("ghost"), "ghost");
  }

  @Test
  void deleteQueue_withBlockedReceivers_wakesThemEmpty() throws Exception {
    create("q");
    Future<List<Message>> first = blockedReceive("q", waiting(seconds(20)));
    Future<List<Message>> second = blockedReceive("q", waiting(seconds(20)));
    engine.deleteQueue("q");
    assertEquals(List.of(), result(first));
    assertEquals(List.of(), result(second));
  }

  @Test
  void close_withBlockedReceiver_wakesItAndRefusesLaterCalls() throws Exception {
    create("q");
    Future<List<Message>> blocked = blockedReceive("q", waiting(seconds(20)));
    engine.close();
    assertEquals(List.of(), result(blocked));
    assertError(ErrorCode.UNAVAILABLE, () -> send("q", "x"));
    assertError(ErrorCode.UNAVAILABLE, () -> create("other"));
  }

  @Test
  void stats_newQueue_allZero() {
    create("q");
    QueueStats s = engine.stats("q");
    assertEquals(0, s.depth());
    assertTrue(s.oldestAge().isEmpty());
    assertTrue(s.byPriority().isEmpty());
    assertEquals(new QueueStats.Counters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), s.counters());
  }

  @Test
  void createQueue_sameNameAfterDelete_startsFresh() {
    create("q", config().historyRetention(seconds(60)));
    engine.send("q", NewMessage.builder("x").deduplicationId("d").build());
    engine.deleteQueue("q");
    create("q", config().historyRetention(seconds(60)));
    assertFalse(engine.send("q", NewMessage.builder("x").deduplicationId("d").build()).duplicate());
    assertEquals(1, engine.stats("q").counters().sent());
  }
}
