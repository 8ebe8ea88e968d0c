package io.switchboard.storage.dynamodb;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import io.switchboard.queue.spi.BatchAcks;
import io.switchboard.queue.spi.CheckedMessage;
import io.switchboard.queue.spi.DeadLetterRules;
import io.switchboard.queue.spi.MessageIds;
import io.switchboard.queue.spi.MessageRules;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.Receipt;
import io.switchboard.queue.spi.ReceiptKey;
import io.switchboard.queue.spi.ReceiptKeys;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * A {@link QueueEngine} on one DynamoDB table, for any number of stateless servers sharing it
 * ({@code docs/design.md}, "Amazon DynamoDB as a store"). Every decision that must be exclusive is
 * a conditional write on the base table, conditioned on the message's lease epoch as read, so a
 * server acting on a stale read loses its condition and reads again; reads are strongly consistent
 * queries and gets of the base table (no secondary index).
 *
 * <p>Items: a queue at {@code queues}/{@code <name>} (its configuration, generation, creation time
 * and the priorities its messages use); a message at {@code
 * m#<queue>#<generation>#<priority>}/{@code <serial, 19 digits>}; a deduplication id at {@code
 * d#<queue>#<generation>}/{@code <key>}; the queue's counters at {@code c#<queue>}/{@code
 * <generation>}; system records at {@code sys#records}; the store's id prefix and serial blocks at
 * {@code sys#store}.
 */
public final class DynamoQueueEngine implements QueueEngine {

  private static final String QUEUES = "queues";
  private static final String STORE = "sys#store";
  private static final int SERIAL_BLOCK = 1000;
  private static final int SERIAL_BITS = 21;
  private static final SecureRandom RANDOM = new SecureRandom();

  // counters, in QueueStats.Counters order
  private static final int SENT = 0;
  private static final int DUPLICATES = 1;
  private static final int RECEIVED = 2;
  private static final int ACKED = 3;
  private static final int RELEASED = 4;
  private static final int FAILED = 5;
  private static final int EXPIRED = 6;
  private static final int SHED = 7;
  private static final int DEAD_LETTERED = 8;
  private static final int REMOVED = 9;
  private static final String[] COUNTER_NAMES = {
    "sent",
    "duplicates",
    "received",
    "acked",
    "released",
    "failed",
    "expired",
    "shed",
    "deadLettered",
    "removed"
  };

  private final Store store;
  private final Clock clock;
  private final int maxQueues;
  private final long pollMillis;
  private final SystemRecords records;
  private final ReceiptKeys keys;
  private final MessageIds ids;
  private final Object serialLock = new Object();
  private long serialNext;
  private long serialEnd;
  private long lastMillis;
  private final Map<String, AtomicLongArray> pending = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();
  private final Object signal = new Object();
  private final Map<String, RedriveTask> tasks = new ConcurrentHashMap<>();
  private final Scheduler.Repeating ticker;
  private volatile boolean closed;

  /** A queue as its item holds it. */
  private record Q(
      String name, QueueConfig config, long gen, long created, TreeSet<Integer> priorities) {

    boolean grouped() {
      return QueueRules.isGrouped(name);
    }

    String partition(int priority) {
      return "m#" + name + "#" + gen + "#" + priority;
    }

    String dedupPartition() {
      return "d#" + name + "#" + gen;
    }

    QueueInfo info() {
      return new QueueInfo(name, grouped(), config, Instant.ofEpochMilli(created));
    }
  }

  private DynamoQueueEngine(Builder b) {
    this.store = new Store(Objects.requireNonNull(b.client, "client"), b.table.name());
    this.clock = b.clock;
    this.maxQueues = b.maxQueues;
    this.pollMillis = Math.max(1, b.pollInterval.toMillis());
    if (b.ensureTable) {
      b.table.ensure(b.client);
    }
    this.records = new DynamoSystemRecords(store);
    this.keys = ReceiptKeys.load(records);
    byte[] prefix = new byte[8];
    RANDOM.nextBytes(prefix);
    byte[] stored = records.putIfAbsent("server/message-id-prefix", prefix);
    this.ids = new MessageIds(ByteBuffer.wrap(stored).getLong());
    this.ticker =
        clock.every(
            "dynamodb-poll",
            Duration.ofMillis(pollMillis),
            () -> {
              synchronized (signal) {
                signal.notifyAll();
              }
            });
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds an engine on a DynamoDB client; the caller keeps (and closes) the client. */
  public static final class Builder {
    private @Nullable DynamoDbClient client;
    private StoreTable table = new StoreTable("");
    private Clock clock = Clock.system();
    private int maxQueues = 10_000;
    private Duration pollInterval = Duration.ofMillis(100);
    private boolean ensureTable = true;

    private Builder() {}

    public Builder client(DynamoDbClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The table: {@code prefix + "switchboard"} ({@link StoreTable}). */
    public Builder tablePrefix(String prefix) {
      this.table = new StoreTable(prefix);
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder maxQueues(int maxQueues) {
      this.maxQueues = QueueRules.checkMaxQueues(maxQueues);
      return this;
    }

    /**
     * How often a blocked receive looks again for messages another server sent (a send through this
     * engine wakes it at once); default 100 ms.
     */
    public Builder pollInterval(Duration interval) {
      this.pollInterval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    /** Whether to create the table when it is missing (default), or only use it. */
    public Builder ensureTable(boolean ensure) {
      this.ensureTable = ensure;
      return this;
    }

    public DynamoQueueEngine build() {
      return new DynamoQueueEngine(this);
    }
  }

  // ---- queues ------------------------------------------------------------------------------

  private @Nullable Q find(String name) {
    Map<String, AttributeValue> item = store.get(QUEUES, name);
    return item == null ? null : queueOf(item);
  }

  private static Q queueOf(Map<String, AttributeValue> item) {
    TreeSet<Integer> priorities = new TreeSet<>(Collections.reverseOrder());
    AttributeValue p = item.get("prios");
    if (p != null && p.hasNs()) {
      for (String n : p.ns()) {
        priorities.add(Integer.parseInt(n));
      }
    }
    return new Q(
        Store.text(item, "sk"),
        Codecs.decodeConfig(Store.text(item, "cfg")),
        Store.num(item, "gen"),
        Store.num(item, "created"),
        priorities);
  }

  private Q require(String name) {
    open();
    Q q = find(name);
    if (q == null) {
      throw QueueException.queueNotFound(name);
    }
    return q;
  }

  private void open() {
    if (closed) {
      throw QueueRules.closed();
    }
  }

  @Override
  public QueueCreation ensureQueue(String name, QueueConfig config) {
    open();
    QueueRules.checkName(name, "name");
    Objects.requireNonNull(config, "config");
    QueueRules.checkConfig(name, config, n -> Optional.ofNullable(find(n)).map(Q::info));
    Q existing = find(name);
    if (existing == null) {
      int count =
          store
              .call(
                  d ->
                      d.query(
                          b ->
                              b.tableName(store.table())
                                  .consistentRead(true)
                                  .select(Select.COUNT)
                                  .keyConditionExpression("pk = :p")
                                  .expressionAttributeValues(Map.of(":p", Store.s(QUEUES)))))
              .count();
      if (count >= maxQueues) {
        throw QueueRules.tooManyQueues(maxQueues);
      }
      long gen = RANDOM.nextLong() & Long.MAX_VALUE;
      long created = clock.millis();
      Map<String, AttributeValue> item = new HashMap<>();
      item.putAll(Store.key(QUEUES, name));
      item.put("cfg", Store.s(Codecs.encodeConfig(config)));
      item.put("gen", Store.n(gen));
      item.put("created", Store.n(created));
      try {
        store.call(
            d ->
                d.putItem(
                    b ->
                        b.tableName(store.table())
                            .item(item)
                            .conditionExpression("attribute_not_exists(pk)")));
        return new QueueCreation(new Q(name, config, gen, created, new TreeSet<>()).info(), true);
      } catch (ConditionalCheckFailedException raced) {
        existing = require(name);
      }
    }
    if (!existing.config().equals(config)) {
      throw QueueRules.alreadyExists(name);
    }
    return new QueueCreation(existing.info(), false);
  }

  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    while (true) {
      Q q = require(name);
      QueueConfig next = Objects.requireNonNull(change.apply(q.config()), "the new configuration");
      if (next.equals(q.config())) {
        return q.info();
      }
      QueueRules.checkConfig(name, next, n -> Optional.ofNullable(find(n)).map(Q::info));
      try {
        store.call(
            d ->
                d.updateItem(
                    b ->
                        b.tableName(store.table())
                            .key(Store.key(QUEUES, name))
                            .updateExpression("SET cfg = :new")
                            .conditionExpression("cfg = :old AND gen = :gen")
                            .expressionAttributeValues(
                                Map.of(
                                    ":new", Store.s(Codecs.encodeConfig(next)),
                                    ":old", Store.s(Codecs.encodeConfig(q.config())),
                                    ":gen", Store.n(q.gen())))));
        wake();
        return new Q(name, next, q.gen(), q.created(), q.priorities()).info();
      } catch (ConditionalCheckFailedException changedMeanwhile) {
        // another update landed (or the queue went): read it again and apply the change to it
      }
    }
  }

  @Override
  public void deleteQueue(String name) {
    Q q = require(name);
    try {
      store.call(
          d ->
              d.deleteItem(
                  b ->
                      b.tableName(store.table())
                          .key(Store.key(QUEUES, name))
                          .conditionExpression("gen = :gen")
                          .expressionAttributeValues(Map.of(":gen", Store.n(q.gen())))));
    } catch (ConditionalCheckFailedException goneMeanwhile) {
      throw QueueException.queueNotFound(name);
    }
    // the generation is gone with the queue item, so its items are never read again; delete them
    deleteAll(q);
    pending.remove(name);
    tasks.values().removeIf(t -> t.source().equals(name));
    wake();
  }

  @Override
  public QueueInfo queue(String name) {
    return require(name).info();
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    open();
    Objects.requireNonNull(prefix, "prefix");
    List<QueueInfo> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : queryAll(QUEUES, true, prefix)) {
      out.add(queueOf(item).info());
    }
    return out;
  }

  // ---- sending -----------------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    Q q = require(queue);
    CheckedMessage m = MessageRules.check(message, -1, queue, q.grouped(), q.config());
    SendResult r = put(q, m);
    wake();
    return r;
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    QueueRules.checkBatchSize(messages);
    Q q = require(queue);
    List<CheckedMessage> checked = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      checked.add(
          MessageRules.check(
              QueueRules.batchMessage(messages, i), i, queue, q.grouped(), q.config()));
    }
    List<SendResult> out = new ArrayList<>(checked.size());
    for (CheckedMessage m : checked) {
      out.add(put(q, m));
    }
    wake();
    return out;
  }

  private SendResult put(Q q, CheckedMessage m) {
    long now = clock.millis();
    int priority = m.source().priority();
    knowPriority(q, priority);
    while (true) {
      long serial = nextSerial(now);
      Map<String, AttributeValue> item = new HashMap<>();
      item.put("pk", Store.s(q.partition(priority)));
      item.put("sk", Store.s(Msg.sk(serial)));
      item.put(Msg.PRIORITY, Store.n(priority));
      item.put(Msg.BODY, AttributeValue.fromB(SdkBytes.fromByteArray(m.body())));
      byte[] attributes = Codecs.encodeAttributes(m.attributes());
      if (attributes != null) {
        item.put(Msg.ATTRIBUTES, AttributeValue.fromB(SdkBytes.fromByteArray(attributes)));
      }
      m.source().groupId().ifPresent(g -> item.put(Msg.GROUP, Store.s(g)));
      if (m.dedupId() != null) {
        item.put(Msg.DEDUP, Store.s(m.dedupId()));
      }
      long expires = now + m.ttlMillis();
      item.put(Msg.SENT, Store.n(now));
      item.put(Msg.RECEIVES, Store.n(0));
      item.put(Msg.VISIBLE, Store.n(now + m.delayMillis()));
      item.put(Msg.LEASED, Store.n(0));
      item.put(Msg.LEASED_AT, Store.n(0));
      item.put(Msg.EXPIRES, Store.n(expires));
      item.put(Msg.EPOCH, Store.n(0));
      item.put(StoreTable.TTL_ATTRIBUTE, Store.n(expires / 1000 + 1));
      String dedupKey = m.dedupKey();
      try {
        if (dedupKey == null) {
          store.call(
              d ->
                  d.putItem(
                      b ->
                          b.tableName(store.table())
                              .item(item)
                              .conditionExpression("attribute_not_exists(pk)")));
        } else {
          long lapses = now + MessageRules.DEDUP_WINDOW_MILLIS;
          Map<String, AttributeValue> dedup = new HashMap<>();
          dedup.putAll(Store.key(q.dedupPartition(), dedupKey));
          dedup.put("serial", Store.n(serial));
          dedup.put("lapses", Store.n(lapses));
          dedup.put(StoreTable.TTL_ATTRIBUTE, Store.n(lapses / 1000 + 1));
          store.call(
              d ->
                  d.transactWriteItems(
                      b ->
                          b.transactItems(
                              TransactWriteItem.builder()
                                  .put(
                                      p ->
                                          p.tableName(store.table())
                                              .item(dedup)
                                              .conditionExpression(
                                                  "attribute_not_exists(pk) OR lapses <= :now")
                                              .expressionAttributeValues(
                                                  Map.of(":now", Store.n(now))))
                                  .build(),
                              TransactWriteItem.builder()
                                  .put(
                                      p ->
                                          p.tableName(store.table())
                                              .item(item)
                                              .conditionExpression("attribute_not_exists(pk)"))
                                  .build())));
        }
        count(q.name(), SENT, 1);
        return new SendResult(ids.id(serial), serial, false);
      } catch (ConditionalCheckFailedException serialTaken) {
        // a serial of another server's block, after its counter wrapped: take the next one
      } catch (TransactionCanceledException cancelled) {
        List<CancellationReason> reasons = cancelled.cancellationReasons();
        boolean duplicate =
            !reasons.isEmpty() && "ConditionalCheckFailed".equals(reasons.get(0).code());
        if (duplicate && dedupKey != null) {
          Map<String, AttributeValue> taken = store.get(q.dedupPartition(), dedupKey);
          if (taken != null && Store.num(taken, "lapses") > now) {
            long original = Store.num(taken, "serial");
            count(q.name(), DUPLICATES, 1);
            return new SendResult(ids.id(original), original, true);
          }
          // lapsed meanwhile: try again
        } else if (reasons.size() < 2 || !"ConditionalCheckFailed".equals(reasons.get(1).code())) {
          throw new QueueException(
              ErrorCode.UNAVAILABLE,
              "DynamoDB cancelled the send (" + reasons + "); retry later",
              cancelled);
        }
      }
    }
  }

  /** Adds {@code priority} to the queue's priorities before a message of it is written. */
  private void knowPriority(Q q, int priority) {
    if (q.priorities().contains(priority)) {
      return;
    }
    try {
      store.call(
          d ->
              d.updateItem(
                  b ->
                      b.tableName(store.table())
                          .key(Store.key(QUEUES, q.name()))
                          .updateExpression("ADD prios :p")
                          .conditionExpression("gen = :gen")
                          .expressionAttributeValues(
                              Map.of(
                                  ":p",
                                  AttributeValue.fromNs(List.of(Integer.toString(priority))),
                                  ":gen",
                                  Store.n(q.gen())))));
      q.priorities().add(priority);
    } catch (ConditionalCheckFailedException gone) {
      throw QueueException.queueNotFound(q.name());
    }
  }

  /**
   * The next serial: the clock's milliseconds above {@value #SERIAL_BITS} bits of a counter whose
   * blocks of {@value #SERIAL_BLOCK} the store hands out, so serials of all servers are unique and
   * sort about as they were sent, and one engine's strictly increase.
   */
  private long nextSerial(long now) {
    synchronized (serialLock) {
      if (serialNext >= serialEnd) {
        long end =
            Store.num(
                store
                    .call(
                        d ->
                            d.updateItem(
                                b ->
                                    b.tableName(store.table())
                                        .key(Store.key(STORE, "serials"))
                                        .updateExpression("ADD n :b")
                                        .expressionAttributeValues(
                                            Map.of(":b", Store.n(SERIAL_BLOCK)))
                                        .returnValues(ReturnValue.UPDATED_NEW)))
                    .attributes(),
                "n");
        serialNext = end - SERIAL_BLOCK;
        serialEnd = end;
      }
      lastMillis = Math.max(lastMillis, now);
      long counter = serialNext++ & ((1L << SERIAL_BITS) - 1);
      return (lastMillis << SERIAL_BITS) | counter;
    }
  }

  // ---- receiving ---------------------------------------------------------------------------

  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    Objects.requireNonNull(request, "request");
    Q q = require(queue);
    long wait = request.waitTime().orElse(q.config().receiveWait()).toMillis();
    List<Message> got = take(q, request);
    if (!got.isEmpty() || wait <= 0) {
      return got;
    }
    long deadline = clock.millis() + wait;
    AtomicInteger line = waiting.computeIfAbsent(queue, k -> new AtomicInteger());
    line.incrementAndGet();
    try {
      while (true) {
        synchronized (signal) {
          long parkNanos = clock.parkNanosUntil(deadline);
          if (parkNanos > 0) {
            long millis = Math.min(pollMillis, Math.max(1, parkNanos / 1_000_000));
            try {
              signal.wait(millis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return List.of();
            }
          }
        }
        if (closed) {
          return List.of();
        }
        Q now = find(queue);
        if (now == null || now.gen() != q.gen()) {
          return List.of();
        }
        got = take(now, request);
        if (!got.isEmpty() || clock.millis() >= deadline) {
          return got;
        }
      }
    } finally {
      line.decrementAndGet();
    }
  }

  private void wake() {
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  /** Takes what is eligible now: reads each priority's head in order, claims by condition. */
  private List<Message> take(Q q, ReceiveRequest request) {
    long now = clock.millis();
    long visibility = request.visibilityTimeout().orElse(q.config().visibilityTimeout()).toMillis();
    MessageFilter filter = request.filter().orElse(null);
    int max = request.maxMessages();
    List<Message> out = new ArrayList<>();
    Set<String> blockedGroups = new HashSet<>();
    for (int priority : q.priorities()) {
      Map<String, AttributeValue> start = null;
      do {
        QueryResponse page = page(q.partition(priority), forward(q), start, 100);
        for (Map<String, AttributeValue> item : page.items()) {
          if (out.size() >= max) {
            return out;
          }
          Msg m = new Msg(item);
          if (m.expired(now)) {
            expire(q, m, now);
            continue;
          }
          if (m.leaseEnded(now) && DeadLetterRules.exhausted(q.config(), m.receives)) {
            if (deadLetter(q, m, now)) {
              continue;
            }
          }
          MessageState state = m.state(now);
          if (m.group != null) {
            if (blockedGroups.contains(m.group)) {
              continue;
            }
            if (state != MessageState.AVAILABLE || (filter != null && !filter.test(m, now))) {
              blockedGroups.add(m.group); // the group's head is not eligible: nor the rest
              continue;
            }
          } else if (state != MessageState.AVAILABLE || (filter != null && !filter.test(m, now))) {
            continue;
          }
          Message claimed = claim(q, m, now, visibility);
          if (claimed == null) {
            if (m.group != null) {
              blockedGroups.add(m.group); // another server took the head: the group is theirs
            }
            continue;
          }
          out.add(claimed);
        }
        start = next(page);
      } while (start != null && out.size() < max);
    }
    return out;
  }

  /** The conditional claim; null when another server changed the message since it was read. */
  private @Nullable Message claim(Q q, Msg m, long now, long visibility) {
    Map<String, AttributeValue> after;
    try {
      after =
          store
              .call(
                  d ->
                      d.updateItem(
                          b ->
                              b.tableName(store.table())
                                  .key(Store.key(m.pk, m.sk()))
                                  .updateExpression(
                                      "SET ep = ep + :one, rc = rc + :one, vis = :until, ls = :one,"
                                          + " la = :now, fr = if_not_exists(fr, :now)")
                                  .conditionExpression("ep = :ep AND vis <= :now AND ex > :now")
                                  .expressionAttributeValues(
                                      Map.of(
                                          ":one", Store.n(1),
                                          ":until", Store.n(now + visibility),
                                          ":now", Store.n(now),
                                          ":ep", Store.n(m.epoch)))
                                  .returnValues(ReturnValue.ALL_NEW)))
              .attributes();
    } catch (ConditionalCheckFailedException lost) {
      return null;
    }
    Msg taken = new Msg(after);
    count(q.name(), RECEIVED, 1);
    String receipt = new Receipt(taken.serial, (int) taken.epoch).encode(key(q));
    return taken.view(ids.id(taken.serial), MessageState.IN_FLIGHT, receipt);
  }

  private ReceiptKey key(Q q) {
    return keys.forQueue(q.name(), q.gen());
  }

  private static boolean forward(Q q) {
    return q.config().order() == Order.FIFO;
  }

  // ---- leases ------------------------------------------------------------------------------

  /** The message a receipt names (its MAC checked), or null when it is gone. */
  private @Nullable Msg byReceipt(Q q, Receipt.Presented p, String receipt) {
    p.verify(key(q), receipt, q.name());
    return bySerial(q, p.serial());
  }

  private @Nullable Msg bySerial(Q q, long serial) {
    if (serial == 0) {
      return null;
    }
    for (int priority : q.priorities()) {
      Map<String, AttributeValue> item = store.get(q.partition(priority), Msg.sk(serial));
      if (item != null) {
        return new Msg(item);
      }
    }
    return null;
  }

  private Msg byId(Q q, String id) {
    Objects.requireNonNull(id, "id");
    Msg m = bySerial(q, ids.serial(id));
    if (m == null || m.expired(clock.millis())) {
      throw QueueException.messageNotFound(q.name(), id);
    }
    return m;
  }

  /** The leased message of a receipt; strict: it must be in flight on that lease. */
  private @Nullable Msg leased(Q q, String receipt, boolean strict, boolean anyLease, long now) {
    Receipt.Presented p = Receipt.parse(receipt, q.name());
    Msg m = byReceipt(q, p, receipt);
    if (m == null || m.expired(now)) {
      if (strict) {
        throw MessageRules.leaseGone(q.name());
      }
      return null;
    }
    if (m.epoch != p.leaseEpoch() && !anyLease) {
      throw MessageRules.staleReceipt(ids.id(m.serial));
    }
    if (strict && m.state(now) != MessageState.IN_FLIGHT) {
      throw MessageRules.notInFlight(ids.id(m.serial), m.state(now));
    }
    return m;
  }

  @Override
  public void ack(String queue, String receipt) {
    Q q = require(queue);
    while (true) {
      long now = clock.millis();
      Msg m = leased(q, receipt, false, false, now);
      if (m == null) {
        return;
      }
      if (q.grouped() && m.state(now) != MessageState.IN_FLIGHT) {
        throw MessageRules.notInFlight(ids.id(m.serial), m.state(now));
      }
      if (delete(m)) {
        count(queue, ACKED, 1);
        wake();
        return;
      }
    }
  }

  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    require(queue);
    return BatchAcks.oneByOne(receipts, (receipt, i) -> ack(queue, receipt));
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    Objects.requireNonNull(delay, "delay");
    Q q = require(queue);
    MessageRules.checkRelease(queue, q.grouped(), delay, toBack);
    while (true) {
      long now = clock.millis();
      Msg m = Objects.requireNonNull(leased(q, receipt, true, false, now));
      if (DeadLetterRules.exhausted(q.config(), m.receives) && deadLetter(q, m, now)) {
        count(queue, RELEASED, 1);
        return;
      }
      long vis = now + delay.toMillis();
      boolean done =
          toBack
              ? move(
                  m,
                  q.partition(m.priority),
                  nextSerial(now),
                  m.priority,
                  vis,
                  false,
                  m.epoch,
                  0,
                  null)
              : setVisible(m, vis, false);
      if (done) {
        count(queue, RELEASED, 1);
        wake();
        return;
      }
    }
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    return extend(queue, receipt, visibilityTimeout, false);
  }

  @Override
  public Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    return extend(queue, receipt, visibilityTimeout, true);
  }

  private Message extend(String queue, String receipt, Duration visibility, boolean anyLease) {
    Objects.requireNonNull(visibility, "visibilityTimeout");
    Q q = require(queue);
    MessageRules.checkExtend(visibility);
    while (true) {
      long now = clock.millis();
      Msg m = leased(q, receipt, false, anyLease, now);
      if (m == null) {
        throw MessageRules.leaseGone(queue);
      }
      long until = MessageRules.extendedUntil(visibility, m.leasedAt, now);
      MessageState state = m.state(now);
      String id = ids.id(m.serial);
      if (state == MessageState.AVAILABLE) {
        if (visibility.isZero()) {
          return m.view(id, now, null);
        }
        if (setVisible(m, until, true)) {
          return fresh(q, m, id, now);
        }
        continue;
      }
      if (state != MessageState.IN_FLIGHT) {
        throw MessageRules.notInFlight(id, state);
      }
      if (visibility.isZero()) {
        if (DeadLetterRules.exhausted(q.config(), m.receives)) {
          Message left = m.view(id, MessageState.DEAD_LETTERED, null);
          if (deadLetter(q, m, now)) {
            count(queue, RELEASED, 1);
            return DeadLetterRules.deadLettersToItself(queue, q.config())
                ? fresh(q, m, id, now)
                : left;
          }
        }
        if (setVisible(m, now, false)) {
          count(queue, RELEASED, 1);
          wake();
          return fresh(q, m, id, now);
        }
        continue;
      }
      if (setVisible(m, until, true)) {
        return fresh(q, m, id, now);
      }
    }
  }

  private Message fresh(Q q, Msg m, String id, long now) {
    Msg again = bySerial(q, m.serial);
    return again == null ? m.view(id, now, null) : again.view(id, now, null);
  }

  @Override
  public void fail(String queue, String receipt) {
    Q q = require(queue);
    while (true) {
      Msg m = Objects.requireNonNull(leased(q, receipt, true, false, clock.millis()));
      if (delete(m)) {
        count(queue, FAILED, 1);
        return;
      }
    }
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    Q q = require(queue);
    DeadLetterRules.requireTarget(queue, q.config());
    while (true) {
      long now = clock.millis();
      Msg m = Objects.requireNonNull(leased(q, receipt, true, false, now));
      if (deadLetter(q, m, now)) {
        return;
      }
    }
  }

  @Override
  public void deadLetterById(String queue, String id) {
    Q q = require(queue);
    DeadLetterRules.requireTarget(queue, q.config());
    while (true) {
      long now = clock.millis();
      if (deadLetter(q, byId(q, id), now)) {
        return;
      }
    }
  }

  // ---- by id -------------------------------------------------------------------------------

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    Objects.requireNonNull(update, "update");
    Q q = require(queue);
    while (true) {
      long now = clock.millis();
      Msg m = byId(q, id);
      Map<String, io.switchboard.queue.AttributeValue> attributes =
          update.attributes().orElse(m.attributes);
      if (update.attributes().isPresent()) {
        int size = m.body.length + MessageRules.attributeBytes(attributes, "attributes");
        MessageRules.checkUpdateSize(size, queue, q.config());
      }
      int priority = update.priority().orElse(m.priority);
      boolean done;
      if (priority != m.priority) {
        knowPriority(q, priority);
        done =
            move(
                m,
                q.partition(priority),
                m.serial,
                priority,
                m.vis,
                m.leased,
                m.epoch,
                m.receives,
                attributes);
      } else {
        byte[] encoded = Codecs.encodeAttributes(attributes);
        done =
            conditional(
                m,
                encoded == null ? "REMOVE a" : "SET a = :a",
                encoded == null
                    ? Map.of()
                    : Map.of(":a", AttributeValue.fromB(SdkBytes.fromByteArray(encoded))));
      }
      if (done) {
        Msg again = bySerial(q, m.serial);
        return Objects.requireNonNull(again, "updated message").view(id, now, null);
      }
    }
  }

  @Override
  public Message touch(String queue, String id) {
    Q q = require(queue);
    MessageRules.checkTouch(queue, q.grouped());
    while (true) {
      long now = clock.millis();
      Msg m = byId(q, id);
      long serial = nextSerial(now);
      if (move(m, m.pk, serial, m.priority, m.vis, m.leased, m.epoch, m.receives, null)) {
        Msg again = Objects.requireNonNull(bySerial(q, serial), "touched message");
        return again.view(ids.id(serial), now, null);
      }
    }
  }

  @Override
  public void remove(String queue, String id) {
    Q q = require(queue);
    while (true) {
      if (delete(byId(q, id))) {
        count(queue, REMOVED, 1);
        return;
      }
    }
  }

  @Override
  public Message get(String queue, String id) {
    Q q = require(queue);
    return byId(q, id).view(id, clock.millis(), null);
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    Objects.requireNonNull(request, "request");
    Q q = require(queue);
    long now = clock.millis();
    int afterPriority = Integer.MAX_VALUE;
    long afterSerial = -1;
    if (request.cursor().isPresent()) {
      String c = request.cursor().get();
      try {
        int colon = c.indexOf(':');
        afterPriority = Integer.parseInt(c.substring(0, colon));
        afterSerial = Long.parseLong(c.substring(colon + 1));
      } catch (RuntimeException e) {
        throw QueueException.invalid("cursor is not one this queue's browse returned: '" + c + "'");
      }
    }
    MessageFilter filter = request.filter().orElse(null);
    List<Message> items = new ArrayList<>();
    boolean more = false;
    String cursor = null;
    outer:
    for (int priority : q.priorities()) {
      if (priority > afterPriority) {
        continue;
      }
      Map<String, AttributeValue> start = null;
      if (priority == afterPriority && afterSerial >= 0) {
        start = Store.key(q.partition(priority), Msg.sk(afterSerial));
      }
      do {
        QueryResponse page = page(q.partition(priority), forward(q), start, 100);
        for (Map<String, AttributeValue> item : page.items()) {
          Msg m = new Msg(item);
          if (m.expired(now)) {
            continue;
          }
          MessageState state = m.state(now);
          if (!request.includeInvisible() && state != MessageState.AVAILABLE) {
            continue;
          }
          if (filter != null && !filter.test(m, now)) {
            continue;
          }
          if (items.size() == request.limit()) {
            more = true;
            break outer;
          }
          items.add(m.view(ids.id(m.serial), state, null));
          cursor = priority + ":" + m.serial;
        }
        start = next(page);
      } while (start != null);
    }
    return new Page(items, more ? Optional.ofNullable(cursor) : Optional.empty());
  }

  @Override
  public long purge(String queue) {
    Q q = require(queue);
    long n = deleteAll(q);
    count(queue, REMOVED, n);
    return n;
  }

  /** Deletes every message and deduplication item of the queue's generation; how many messages. */
  private long deleteAll(Q q) {
    long n = 0;
    for (int priority : q.priorities()) {
      n += deletePartition(q.partition(priority));
    }
    deletePartition(q.dedupPartition());
    return n;
  }

  private long deletePartition(String pk) {
    long n = 0;
    List<Map<String, AttributeValue>> keys = new ArrayList<>();
    for (Map<String, AttributeValue> item : queryAll(pk, true, "")) {
      keys.add(Store.key(pk, Store.text(item, "sk")));
    }
    for (int i = 0; i < keys.size(); i += 25) {
      List<WriteRequest> batch = new ArrayList<>();
      for (Map<String, AttributeValue> k : keys.subList(i, Math.min(keys.size(), i + 25))) {
        batch.add(WriteRequest.builder().deleteRequest(r -> r.key(k)).build());
      }
      Map<String, List<WriteRequest>> left = Map.of(store.table(), batch);
      while (!left.isEmpty()) {
        Map<String, List<WriteRequest>> request = left;
        left = store.call(d -> d.batchWriteItem(b -> b.requestItems(request))).unprocessedItems();
      }
      n += batch.size();
    }
    return n;
  }

  @Override
  public QueueStats stats(String queue) {
    Q q = require(queue);
    long now = clock.millis();
    long available = 0;
    long delayed = 0;
    long inFlight = 0;
    long oldest = Long.MAX_VALUE;
    Map<Integer, Long> byPriority = new LinkedHashMap<>();
    for (int priority : q.priorities()) {
      long count = 0;
      for (Map<String, AttributeValue> item : queryAll(q.partition(priority), true, "")) {
        Msg m = new Msg(item);
        if (m.expired(now)) {
          continue;
        }
        switch (m.state(now)) {
          case AVAILABLE -> available++;
          case DELAYED -> delayed++;
          default -> inFlight++;
        }
        oldest = Math.min(oldest, m.sent);
        count++;
      }
      if (count > 0) {
        byPriority.put(priority, count);
      }
    }
    AtomicInteger w = waiting.get(queue);
    return new QueueStats(
        available,
        delayed,
        inFlight,
        oldest == Long.MAX_VALUE
            ? Optional.empty()
            : Optional.of(Duration.ofMillis(Math.max(0, now - oldest))),
        byPriority,
        w == null ? 0 : w.get(),
        counters(q));
  }

  // ---- dead letters and redrive ------------------------------------------------------------

  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    Objects.requireNonNull(request, "request");
    Q dlq = require(source);
    for (RedriveTask t : tasks.values()) {
      if (t.source().equals(source) && t.status() == RedriveTask.Status.RUNNING) {
        throw DeadLetterRules.alreadyRedriving(source, t.id());
      }
    }
    Q destination = null;
    if (request.destination().isPresent()) {
      destination = require(request.destination().get());
      DeadLetterRules.checkDestination(source, dlq.grouped(), destination.info());
    }
    long now = clock.millis();
    List<Msg> all = new ArrayList<>();
    for (int priority : dlq.priorities()) {
      for (Map<String, AttributeValue> item : queryAll(dlq.partition(priority), true, "")) {
        all.add(new Msg(item));
      }
    }
    all.sort((a, b) -> Long.compare(a.serial, b.serial));
    long moved = 0;
    String failure = null;
    for (Msg m : all) {
      if (m.expired(now) || m.state(now) == MessageState.IN_FLIGHT) {
        continue;
      }
      Q to = destination;
      if (to == null) {
        String back = m.deadLetterSource;
        to = back == null ? null : find(back);
        if (to == null) {
          failure = "the source queue '" + back + "' of message " + ids.id(m.serial) + " is gone";
          continue;
        }
      }
      if (moveBack(to, m, now)) {
        moved++;
      }
    }
    RedriveTask task =
        new RedriveTask(
            UUID.randomUUID().toString(),
            source,
            request.destination(),
            request.maxPerSecond(),
            failure == null ? RedriveTask.Status.COMPLETED : RedriveTask.Status.FAILED,
            moved,
            all.size(),
            Instant.ofEpochMilli(now),
            Optional.ofNullable(failure));
    tasks.put(task.id(), task);
    wake();
    return task;
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    require(source);
    List<RedriveTask> out = new ArrayList<>();
    for (RedriveTask t : tasks.values()) {
      if (t.source().equals(source)) {
        out.add(t);
      }
    }
    out.sort((a, b) -> b.startedAt().compareTo(a.startedAt()));
    return out;
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    RedriveTask t = tasks.get(Objects.requireNonNull(taskId, "taskId"));
    if (t == null) {
      throw new QueueException(ErrorCode.TASK_NOT_FOUND, "no redrive task '" + taskId + "'");
    }
    return t; // tasks run to the end when started: nothing left to cancel
  }

  @Override
  public Message restore(String deadLetterQueue, String id) {
    Q dlq = require(deadLetterQueue);
    while (true) {
      long now = clock.millis();
      Msg m = byId(dlq, id);
      if (m.deadLetterSource == null) {
        throw DeadLetterRules.notDeadLettered(id);
      }
      if (m.state(now) == MessageState.IN_FLIGHT) {
        throw DeadLetterRules.leasedOnRestore(id);
      }
      Q to = require(m.deadLetterSource);
      long serial = nextSerial(now);
      if (move(m, to, serial, now)) {
        wake();
        return Objects.requireNonNull(bySerial(to, serial), "restored message")
            .view(ids.id(serial), now, null);
      }
    }
  }

  private boolean moveBack(Q to, Msg m, long now) {
    return move(m, to, nextSerial(now), now);
  }

  /** Moves a dead-lettered message to the back of {@code to}, receive count 0, a new epoch. */
  private boolean move(Msg m, Q to, long serial, long now) {
    knowPriority(to, m.priority);
    Map<String, AttributeValue> item = m.item(to.partition(m.priority), serial, m.priority);
    item.put(Msg.RECEIVES, Store.n(0));
    item.put(Msg.VISIBLE, Store.n(now));
    item.put(Msg.LEASED, Store.n(0));
    item.put(Msg.EPOCH, Store.n(m.epoch + 1));
    item.remove(Msg.DEAD_LETTER_SOURCE);
    return transact(m, item);
  }

  /**
   * Moves the message to its queue's dead-letter target (or, the queue its own target, resets its
   * receive count in place); false when it changed since it was read.
   */
  private boolean deadLetter(Q q, Msg m, long now) {
    DeadLetterPolicy policy = q.config().deadLetter().orElseThrow();
    boolean done;
    if (policy.target().equals(q.name())) {
      done =
          conditional(
              m,
              "SET rc = :zero, vis = :now, ls = :zero",
              Map.of(":zero", Store.n(0), ":now", Store.n(now)));
    } else {
      Q target = find(policy.target());
      if (target == null) {
        return false; // the target is gone: the message stays where it is
      }
      knowPriority(target, m.priority);
      Map<String, AttributeValue> item = m.item(target.partition(m.priority), m.serial, m.priority);
      item.put(Msg.VISIBLE, Store.n(now));
      item.put(Msg.LEASED, Store.n(0));
      item.put(Msg.DEAD_LETTER_SOURCE, Store.s(q.name()));
      done = transact(m, item);
    }
    if (done) {
      count(q.name(), DEAD_LETTERED, 1);
      wake();
    }
    return done;
  }

  private void expire(Q q, Msg m, long now) {
    if (q.config().onExpire() == ExpiryAction.DEAD_LETTER && q.config().deadLetter().isPresent()) {
      if (deadLetter(q, m, now)) {
        return;
      }
    }
    if (delete(m)) {
      count(q.name(), EXPIRED, 1);
    }
  }

  // ---- conditional writes ------------------------------------------------------------------

  /** Deletes the message as read (its epoch unchanged); false when it changed or went. */
  private boolean delete(Msg m) {
    try {
      store.call(
          d ->
              d.deleteItem(
                  b ->
                      b.tableName(store.table())
                          .key(Store.key(m.pk, m.sk()))
                          .conditionExpression("ep = :ep AND vis = :vis")
                          .expressionAttributeValues(
                              Map.of(":ep", Store.n(m.epoch), ":vis", Store.n(m.vis)))));
      return true;
    } catch (ConditionalCheckFailedException changed) {
      return false;
    }
  }

  private boolean setVisible(Msg m, long vis, boolean leased) {
    return conditional(
        m, "SET vis = :v, ls = :l", Map.of(":v", Store.n(vis), ":l", Store.n(leased ? 1 : 0)));
  }

  /** An update of the message as read (epoch and visibility unchanged). */
  private boolean conditional(Msg m, String update, Map<String, AttributeValue> values) {
    Map<String, AttributeValue> all = new HashMap<>(values);
    all.put(":ep", Store.n(m.epoch));
    all.put(":vis0", Store.n(m.vis));
    try {
      store.call(
          d ->
              d.updateItem(
                  b ->
                      b.tableName(store.table())
                          .key(Store.key(m.pk, m.sk()))
                          .updateExpression(update)
                          .conditionExpression("ep = :ep AND vis = :vis0")
                          .expressionAttributeValues(all)));
      return true;
    } catch (ConditionalCheckFailedException changed) {
      return false;
    }
  }

  /** Moves the message within its queue: to another priority, or another serial. */
  private boolean move(
      Msg m,
      String pk,
      long serial,
      int priority,
      long vis,
      boolean leased,
      long epoch,
      int receives,
      @Nullable Map<String, io.switchboard.queue.AttributeValue> attributes) {
    Map<String, AttributeValue> item = m.item(pk, serial, priority);
    item.put(Msg.VISIBLE, Store.n(vis));
    item.put(Msg.LEASED, Store.n(leased ? 1 : 0));
    item.put(Msg.EPOCH, Store.n(epoch));
    item.put(Msg.RECEIVES, Store.n(receives == 0 ? m.receives : receives));
    if (attributes != null) {
      byte[] a = Codecs.encodeAttributes(attributes);
      if (a == null) {
        item.remove(Msg.ATTRIBUTES);
      } else {
        item.put(Msg.ATTRIBUTES, AttributeValue.fromB(SdkBytes.fromByteArray(a)));
      }
    }
    return transact(m, item);
  }

  /** Deletes {@code m} as read and puts {@code item}, in one transaction. */
  private boolean transact(Msg m, Map<String, AttributeValue> item) {
    try {
      store.call(
          d ->
              d.transactWriteItems(
                  b ->
                      b.transactItems(
                          TransactWriteItem.builder()
                              .delete(
                                  x ->
                                      x.tableName(store.table())
                                          .key(Store.key(m.pk, m.sk()))
                                          .conditionExpression("ep = :ep AND vis = :vis")
                                          .expressionAttributeValues(
                                              Map.of(
                                                  ":ep", Store.n(m.epoch),
                                                  ":vis", Store.n(m.vis))))
                              .build(),
                          TransactWriteItem.builder()
                              .put(
                                  x ->
                                      x.tableName(store.table())
                                          .item(item)
                                          .conditionExpression("attribute_not_exists(pk)"))
                              .build())));
      return true;
    } catch (TransactionCanceledException lost) {
      return false;
    }
  }

  // ---- reads -------------------------------------------------------------------------------

  private QueryResponse page(
      String pk, boolean forward, @Nullable Map<String, AttributeValue> start, int limit) {
    return store.call(
        d ->
            d.query(
                b -> {
                  b.tableName(store.table())
                      .consistentRead(true)
                      .scanIndexForward(forward)
                      .limit(limit)
                      .keyConditionExpression("pk = :p")
                      .expressionAttributeValues(Map.of(":p", Store.s(pk)));
                  if (start != null) {
                    b.exclusiveStartKey(start);
                  }
                }));
  }

  private static @Nullable Map<String, AttributeValue> next(QueryResponse page) {
    return page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
        ? page.lastEvaluatedKey()
        : null;
  }

  /** Every item of a partition whose sort key starts with {@code prefix} ("" for all). */
  private List<Map<String, AttributeValue>> queryAll(String pk, boolean forward, String prefix) {
    List<Map<String, AttributeValue>> out = new ArrayList<>();
    Map<String, AttributeValue> start = null;
    do {
      Map<String, AttributeValue> from = start;
      QueryResponse r =
          store.call(
              d ->
                  d.query(
                      b -> {
                        b.tableName(store.table()).consistentRead(true).scanIndexForward(forward);
                        if (prefix.isEmpty()) {
                          b.keyConditionExpression("pk = :p")
                              .expressionAttributeValues(Map.of(":p", Store.s(pk)));
                        } else {
                          b.keyConditionExpression("pk = :p AND begins_with(sk, :s)")
                              .expressionAttributeValues(
                                  Map.of(":p", Store.s(pk), ":s", Store.s(prefix)));
                        }
                        if (from != null) {
                          b.exclusiveStartKey(from);
                        }
                      }));
      out.addAll(r.items());
      start = next(r);
    } while (start != null);
    return out;
  }

  // ---- counters ----------------------------------------------------------------------------

  private void count(String queue, int counter, long n) {
    pending
        .computeIfAbsent(queue, k -> new AtomicLongArray(COUNTER_NAMES.length))
        .addAndGet(counter, n);
  }

  /** Adds this engine's pending counts to the queue's counters item, then reads it. */
  private QueueStats.Counters counters(Q q) {
    AtomicLongArray mine = pending.get(q.name());
    if (mine != null) {
      StringBuilder update = new StringBuilder();
      Map<String, AttributeValue> values = new HashMap<>();
      long[] taken = new long[COUNTER_NAMES.length];
      for (int i = 0; i < taken.length; i++) {
        taken[i] = mine.getAndSet(i, 0);
        if (taken[i] != 0) {
          update
              .append(update.isEmpty() ? "ADD " : ", ")
              .append(COUNTER_NAMES[i])
              .append(" :c" + i);
          values.put(":c" + i, Store.n(taken[i]));
        }
      }
      if (!update.isEmpty()) {
        try {
          store.call(
              d ->
                  d.updateItem(
                      b ->
                          b.tableName(store.table())
                              .key(Store.key("c#" + q.name(), Long.toString(q.gen())))
                              .updateExpression(update.toString())
                              .expressionAttributeValues(values)));
        } catch (RuntimeException e) {
          for (int i = 0; i < taken.length; i++) {
            mine.addAndGet(i, taken[i]); // counted next time
          }
          throw e;
        }
      }
    }
    Map<String, AttributeValue> item = store.get("c#" + q.name(), Long.toString(q.gen()));
    long[] c = new long[COUNTER_NAMES.length];
    if (item != null) {
      for (int i = 0; i < c.length; i++) {
        c[i] = Store.num(item, COUNTER_NAMES[i]);
      }
    }
    return new QueueStats.Counters(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
  }

  // ---- the rest ----------------------------------------------------------------------------

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public SystemRecords systemRecords() {
    return records;
  }

  @Override
  public void close() {
    closed = true;
    ticker.close();
    wake();
  }
}
