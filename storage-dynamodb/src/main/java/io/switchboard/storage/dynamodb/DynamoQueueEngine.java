package io.switchboard.storage.dynamodb;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageEvent;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
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
import io.switchboard.queue.spi.MessageEventListeners;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
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
  private final int shards;
  private final int maxShards;
  private final double shardRate;
  private final int maxAttributePartitions;
  private final long cacheMillis;

  /**
   * This server's head hints (docs/design.md, "Attribute partitions on DynamoDB"): per message
   * partition, a serial up to which a FIFO receive found nothing it could deliver, and until when
   * that holds. A receive starts its query after the hint instead of at the head.
   */
  private final Map<String, HeadHint> hints = new ConcurrentHashMap<>();

  /** Raised whenever hints are dropped: a receive that began before keeps none it made. */
  private final java.util.concurrent.atomic.AtomicLong hintEpoch =
      new java.util.concurrent.atomic.AtomicLong();

  /** Serials of this server's sends being written: a hint never passes the lowest of them. */
  private final java.util.concurrent.ConcurrentSkipListSet<Long> sending =
      new java.util.concurrent.ConcurrentSkipListSet<>();

  /**
   * Every item of a partition up to {@code serial} (in FIFO order) was, when read, in flight,
   * delayed, history or a pointer, and none can be delivered before {@code until}.
   */
  private record HeadHint(long serial, long until) {}

  private final long sweepMillis;
  private final Map<String, long[]> sendsSeen = new ConcurrentHashMap<>();
  private final SystemRecords records;
  private final ReceiptKeys keys;
  private final MessageIds ids;
  private final QueueItemCache items;
  private final Object serialLock = new Object();
  private long serialNext;
  private long serialEnd;
  private long lastMillis;
  private long lastSerial;
  private final Map<String, AtomicLongArray> pending = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();
  private final Map<String, Line> lines = new ConcurrentHashMap<>();
  private final Object signal = new Object();

  /** The running redrive tasks this server steps: task id to source queue. */
  private final Map<String, String> runningTasks = new ConcurrentHashMap<>();

  private volatile MoveCheck moveCheck = MoveCheck.NONE;
  private final Scheduler.Repeating redriver;
  private final MessageEventListeners events = new MessageEventListeners();
  private final Scheduler.Repeating ticker;
  private final Scheduler.Repeating sweeper;
  private volatile boolean closed;
  private final @Nullable DynamoDbClient ownClient;

  /** A queue as its item holds it. */
  private record Q(
      String name,
      QueueConfig config,
      long gen,
      long created,
      TreeSet<Integer> priorities,
      Shards shards,
      AttributePartitions parts) {

    boolean grouped() {
      return QueueRules.isGrouped(name);
    }

    /** A shard's partition of a priority: shard 0 has no suffix (a queue of one shard). */
    String partition(int priority, int shard) {
      String pk = "m#" + name + "#" + gen + "#" + priority;
      return shard == 0 ? pk : pk + "#" + shard;
    }

    /** The partition the message at {@code serial} of {@code priority} is in. */
    String partitionOf(int priority, long serial) {
      return partition(priority, shards.of(serial));
    }

    /**
     * Whether a new message goes to its attribute partition's slot (docs/design.md, "Attribute
     * partitions on DynamoDB"): the queue indexes attributes and its serials carry a slot (it was
     * made with a shard list).
     */
    boolean partitioned() {
      return !config.indexedAttributes().isEmpty() && shards.changeable();
    }

    /** Every partition of a priority that may hold its messages. */
    List<String> partitions(int priority) {
      return partitions(priority, null);
    }

    /**
     * The partitions of a priority a receive with {@code filter} (null: none) reads: every shard
     * the list held, then the attribute partitions' slots the filter can match (every slot when it
     * is not a selector over indexed attributes only).
     */
    List<String> partitions(int priority, @Nullable MessageFilter filter) {
      List<String> out = new ArrayList<>();
      int shardCount = shards.partitions();
      for (int shard = 0; shard < shardCount; shard++) {
        out.add(partition(priority, shard));
      }
      if (parts.slots().isEmpty()) {
        return out;
      }
      java.util.Collection<Integer> slots =
          filter == null
              ? parts.slots().keySet()
              : parts.matching(config.indexedAttributes(), filter);
      for (int slot : slots) {
        if (slot >= shardCount) {
          out.add(partition(priority, slot));
        }
      }
      return out;
    }

    String dedupPartition() {
      return "d#" + name + "#" + gen;
    }

    QueueInfo info() {
      return new QueueInfo(name, grouped(), config, Instant.ofEpochMilli(created));
    }
  }

  private DynamoQueueEngine(Builder b) {
    DynamoDbClient client = b.client;
    if (client == null) {
      var made = DynamoDbClient.builder();
      if (b.region != null) {
        made.region(software.amazon.awssdk.regions.Region.of(b.region));
      }
      if (b.endpoint != null) {
        made.endpointOverride(b.endpoint);
      }
      client = made.build();
      this.ownClient = client;
    } else {
      this.ownClient = null;
    }
    this.store = new Store(client, b.table.name());
    this.clock = b.clock;
    this.items = new QueueItemCache(clock, b.queueCacheTime, name -> store.get(QUEUES, name));
    this.maxQueues = b.maxQueues;
    this.shards = b.shards;
    this.maxShards = Math.max(b.shards, b.maxShards);
    this.shardRate = b.shardRate;
    this.maxAttributePartitions = b.maxAttributePartitions;
    this.cacheMillis = b.queueCacheTime.toMillis();
    this.sweepMillis = b.sweepInterval.toMillis();
    this.pollMillis = Math.max(1, b.pollInterval.toMillis());
    if (b.ensureTable) {
      b.table.ensure(client);
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
    this.sweeper = clock.every("dynamodb-sweep", b.sweepInterval, this::sweep);
    this.redriver = clock.every("dynamodb-redrive", Duration.ofSeconds(1), () -> stepTasks(false));
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Settles every queue: drops what expired, ends leases that ran out (dead-lettering what ran out
   * of receives). Receives, browses and stats settle what they read anyway; this is for queues
   * nobody reads, so their dead-letter queues and listeners hear of it.
   */
  private void sweep() {
    if (closed) {
      return;
    }
    long now = clock.millis();
    for (Map<String, AttributeValue> item : queryAll(QUEUES, true, "")) {
      messages(queueOf(item), now);
    }
    flushCounters();
    items.prune();
    stepTasks(true);
  }

  /**
   * Builds an engine on a DynamoDB client: one the caller gives (and closes), or one the engine
   * makes from a region and endpoint with the AWS SDK's default credentials chain (and closes).
   */
  public static final class Builder {
    private @Nullable DynamoDbClient client;
    private @Nullable String region;
    private java.net.@Nullable URI endpoint;
    private StoreTable table = new StoreTable("");
    private Clock clock = Clock.system();
    private int maxQueues = 10_000;
    private Duration pollInterval = Duration.ofMillis(100);
    private boolean ensureTable = true;
    private Duration sweepInterval = Duration.ofMinutes(1);
    private Duration queueCacheTime = Duration.ofSeconds(1);
    private int shards = 1;
    private int maxShards = 16;
    private double shardRate = 200;
    private int maxAttributePartitions = 32;

    private Builder() {}

    /**
     * How many shards a queue this engine creates starts with: 1..64, default 1 (docs/design.md,
     * "Sharding a busy queue's keys"). A receive reads every shard's head, so more than one is for
     * a queue that needs the throughput.
     */
    public Builder shards(int shards) {
      this.shards = Shards.check(shards, "shards");
      return this;
    }

    /**
     * The most shards the automatic rule ({@link #shardRate}) raises a queue to: 1..64, default 16
     * (a receive of such a queue reads 16 partitions' heads).
     */
    public Builder maxShards(int maxShards) {
      this.maxShards = Shards.check(maxShards, "maxShards");
      return this;
    }

    /**
     * The automatic rule: a queue whose sends, measured over at least two {@link #sweepInterval}s
     * between two of this engine's counter flushes, exceed this many a second per shard gets more
     * shards (the count rounded up to a power of two, at most {@link #maxShards}); never fewer.
     * Default 200, about 60 % of one partition key's 1,000 write units at 3 units per message; 0
     * turns the rule off.
     */
    public Builder shardRate(double sendsPerSecond) {
      if (!(sendsPerSecond >= 0) || Double.isInfinite(sendsPerSecond)) {
        throw QueueException.invalid(
            "shardRate must be a number of sends a second, 0 or more (0: off), got "
                + sendsPerSecond);
      }
      this.shardRate = sendsPerSecond;
      return this;
    }

    /**
     * The most attribute partitions a queue that indexes attributes files its messages under
     * (docs/design.md, "Attribute partitions on DynamoDB"): 0..63, default 32. A message whose
     * indexed values would need one more goes to shard 0, which every receive reads; an unfiltered
     * receive queries the head of every partition the queue has, so this bounds what it reads.
     */
    public Builder maxAttributePartitions(int max) {
      if (max < 0 || max >= Shards.MAX) {
        throw QueueException.invalid(
            "maxAttributePartitions must be 0.." + (Shards.MAX - 1) + ", got " + max);
      }
      this.maxAttributePartitions = max;
      return this;
    }

    public Builder client(DynamoDbClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** Without {@link #client}: the AWS region; default the SDK's ({@code AWS_REGION}...). */
    public Builder region(String region) {
      this.region = Objects.requireNonNull(region, "region");
      return this;
    }

    /** Without {@link #client}: DynamoDB's URL (an emulator); default AWS's for the region. */
    public Builder endpoint(java.net.URI endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /** The table by its whole name ({@link StoreTable#named}). */
    public Builder table(String name) {
      this.table = StoreTable.named(name);
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

    /**
     * How often, on the system clock, this engine reads every queue to settle what nobody reads
     * (expiry, leases that ran out); on a manual clock it runs after every advance. Default 1 min.
     */
    public Builder sweepInterval(Duration interval) {
      this.sweepInterval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    /**
     * How long this server acts on its copy of a queue's item (configuration, generation,
     * priorities) before it reads the item again, so that sends, receives and acks do not read it
     * each time: a change or deletion made on another server is acted on here within this time
     * (docs/design.md, "This server's copy of a queue's item"). 0 (read it for every operation) to
     * 60 s, SQS's own bound for attribute changes and deletions; default 1 s.
     */
    public Builder queueCacheTime(Duration time) {
      this.queueCacheTime = QueueItemCache.checkBound(Objects.requireNonNull(time, "time"));
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

  /** The queue as its item stands now (a strongly consistent read, kept as this server's copy). */
  private @Nullable Q find(String name) {
    Map<String, AttributeValue> item = items.read(name);
    return item == null ? null : queueOf(item);
  }

  /** The queue as this server's copy of its item has it: at most the cache time old. */
  private @Nullable Q recent(String name) {
    Map<String, AttributeValue> item = items.get(name);
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
        priorities,
        Shards.decode(Store.str(item, Shards.ATTRIBUTE)),
        AttributePartitions.of(item));
  }

  /**
   * The queue as this server's copy has it, for the operations on its messages; a change or
   * deletion made on another server is seen within the cache time (docs/design.md, "This server's
   * copy of a queue's item").
   */
  private Q require(String name) {
    open();
    Q q = recent(name);
    if (q == null) {
      throw QueueException.queueNotFound(name);
    }
    return q;
  }

  /**
   * The queue as its item stands now, for what changes or empties a queue or moves messages into it
   * (a stale generation would put them where nobody reads).
   */
  private Q current(String name) {
    open();
    Q q = find(name);
    if (q == null) {
      throw QueueException.queueNotFound(name);
    }
    return q;
  }

  /**
   * Runs an operation by receipt or id on the queue as this server's copy has it; when the copy
   * proved older than the message ({@link QueueChanged}), runs it again on the item as read then.
   * Such an operation looks its message up before it writes, so a run that ends so changed nothing.
   */
  private <T> T onQueue(String name, java.util.function.Function<Q, T> op) {
    Q q = require(name);
    while (true) {
      try {
        return op.apply(q);
      } catch (QueueChanged changed) {
        q = changed.now;
      }
    }
  }

  private void doOnQueue(String name, Consumer<Q> op) {
    onQueue(
        name,
        q -> {
          op.accept(q);
          return q;
        });
  }

  /**
   * After an operation on {@code q} missed its message or could not verify its receipt: reads the
   * queue's item and, when it holds a generation or priority {@code q} did not (another server made
   * the queue again or sent at a new priority since the copy was read), throws {@link QueueChanged}
   * with it. {@code QUEUE_NOT_FOUND} when the queue is gone; returns when the miss is real.
   */
  private void missed(Q q) {
    Q now = find(q.name());
    if (now == null) {
      throw QueueException.queueNotFound(q.name());
    }
    if (now.gen() != q.gen() || !now.priorities().equals(q.priorities())) {
      throw new QueueChanged(now);
    }
  }

  /** The copy an operation ran on was older than its message: run it again on {@link #now}. */
  private static final class QueueChanged extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Q now;

    QueueChanged(Q now) {
      super(
          "queue '" + now.name() + "' changed since this server's copy was read",
          null,
          false,
          false);
      this.now = now;
    }
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
    refuseKeyLimit(config);
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
      // an indexing queue's messages spread over their attribute partitions, not over shards
      int shardCount = config.indexedAttributes().isEmpty() ? shards : 1;
      item.put(Shards.ATTRIBUTE, Store.s(Shards.created(shardCount).encode()));
      if (store.putIf(item, "attribute_not_exists(pk)", Map.of())) {
        return new QueueCreation(
            new Q(
                    name,
                    config,
                    gen,
                    created,
                    new TreeSet<>(),
                    Shards.created(shardCount),
                    new AttributePartitions(new TreeMap<>()))
                .info(),
            true);
      }
      existing = current(name); // made by another server meanwhile
    }
    if (!existing.config().equals(config)) {
      throw QueueRules.alreadyExists(name);
    }
    return new QueueCreation(existing.info(), false);
  }

  /**
   * Refuses a limit per key: this engine has no fair share among message groups to keep it with
   * (docs/design.md, "Limits per key"), and a limit it did not keep would be worse than none.
   */
  private static void refuseKeyLimit(QueueConfig config) {
    if (config.keyLimit().isPresent()) {
      throw QueueException.invalid(
          "keyLimit is not supported by the DynamoDB engine (it keeps no count of messages in"
              + " flight per message group); allowed: no keyLimit; got keyLimit.maxConcurrent "
              + config.keyLimit().getAsInt());
    }
  }

  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    while (true) {
      Q q = current(name);
      QueueConfig next = Objects.requireNonNull(change.apply(q.config()), "the new configuration");
      if (next.equals(q.config())) {
        return q.info();
      }
      QueueRules.checkConfig(name, next, n -> Optional.ofNullable(find(n)).map(Q::info));
      refuseKeyLimit(next);
      if (store.updateIf(
          Store.key(QUEUES, name),
          "SET cfg = :new",
          "cfg = :old AND gen = :gen",
          Map.of(
              ":new", Store.s(Codecs.encodeConfig(next)),
              ":old", Store.s(Codecs.encodeConfig(q.config())),
              ":gen", Store.n(q.gen())))) {
        items.forget(name);
        wake();
        return new Q(name, next, q.gen(), q.created(), q.priorities(), q.shards(), q.parts())
            .info();
      }
      // another update landed (or the queue went): read it again and apply the change to it
    }
  }

  @Override
  public void deleteQueue(String name) {
    Q q = current(name);
    if (!store.deleteIf(Store.key(QUEUES, name), "gen = :gen", Map.of(":gen", Store.n(q.gen())))) {
      throw QueueException.queueNotFound(name); // gone meanwhile
    }
    items.forget(name);
    // the generation is gone with the queue item, so its items are never read again; delete them
    deleteAll(q);
    pending.remove(name);
    sendsSeen.remove(name + "#" + q.gen());
    Map<String, AttributeValue> running = store.get(RUNNING_TASKS, name);
    if (running != null) {
      end(
          name,
          Store.text(running, "id"),
          RedriveTask.Status.FAILED,
          "source queue '" + name + "' was deleted",
          -1);
    }
    wake();
  }

  @Override
  public QueueInfo queue(String name) {
    return current(name).info();
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
    Map<String, AttributeValue> stored = stored(q, m);
    if (q.config().maxDepth().isPresent()) {
      SendResult duplicate = duplicate(q, m, true);
      if (duplicate != null) {
        return duplicate; // a duplicate adds nothing: a full queue does not refuse it
      }
    }
    makeRoom(q, 1);
    return sending(q, () -> put(q, m, stored));
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    QueueRules.checkBatchSize(messages);
    Q q = require(queue);
    List<CheckedMessage> checked = new ArrayList<>(messages.size());
    List<Map<String, AttributeValue>> stored = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      checked.add(
          MessageRules.check(
              QueueRules.batchMessage(messages, i), i, queue, q.grouped(), q.config()));
      stored.add(stored(q, checked.get(i)));
    }
    if (q.config().maxDepth().isPresent()) {
      int fresh = 0;
      for (CheckedMessage m : checked) {
        fresh += duplicate(q, m, false) == null ? 1 : 0;
      }
      makeRoom(q, fresh);
    }
    return sending(
        q,
        () -> {
          List<SendResult> out = new ArrayList<>(checked.size());
          for (int i = 0; i < checked.size(); i++) {
            out.add(put(q, checked.get(i), stored.get(i)));
          }
          return out;
        });
  }

  /**
   * Holds a bounded queue to its {@code maxDepth}: refuses the send, or drops the oldest messages
   * not in flight. Counted from a strongly consistent read of the queue, so two servers sending at
   * once may each see room for one more: the bound is kept per server, not across servers.
   */
  private void makeRoom(Q q, int fresh) {
    if (q.config().maxDepth().isEmpty()) {
      return;
    }
    long max = q.config().maxDepth().getAsLong();
    long now = clock.millis();
    List<Msg> held = new ArrayList<>();
    for (Msg m : messages(q, now)) {
      held.add(m);
    }
    long excess = held.size() + fresh - max;
    if (excess <= 0) {
      return;
    }
    List<Msg> droppable = new ArrayList<>();
    for (Msg m : held) {
      if (m.state(now) != MessageState.IN_FLIGHT) {
        droppable.add(m);
      }
    }
    if (q.config().overflow() == Overflow.REJECT || droppable.size() < excess || fresh > max) {
      throw new QueueException(
          ErrorCode.QUEUE_FULL,
          "queue '"
              + q.name()
              + "' is full: maxDepth is "
              + max
              + ", it holds "
              + held.size()
              + ", and the send adds "
              + fresh);
    }
    droppable.sort((a, b) -> Long.compare(a.serial, b.serial));
    for (int i = 0; i < excess; i++) {
      if (delete(q, droppable.get(i))) {
        count(q.name(), SHED, 1);
      }
    }
  }

  /** The message a live deduplication id of {@code m} names, as a duplicate's result; or null. */
  private @Nullable SendResult duplicate(Q q, CheckedMessage m, boolean counted) {
    String dedupKey = m.dedupKey();
    if (dedupKey == null) {
      return null;
    }
    Map<String, AttributeValue> taken = store.get(q.dedupPartition(), dedupKey);
    if (taken == null || Store.num(taken, "lapses") <= clock.millis()) {
      return null;
    }
    long original = Store.num(taken, "serial");
    if (counted) {
      count(q.name(), DUPLICATES, 1);
    }
    return new SendResult(ids.id(original), original, true);
  }

  /** {@code stored}: the message's body and attributes as its item holds them ({@link #stored}). */
  private SendResult put(Q q, CheckedMessage m, Map<String, AttributeValue> stored) {
    long now = clock.millis();
    int priority = m.source().priority();
    knowPriority(q, priority);
    String group = m.source().groupId().orElse(null);
    while (true) {
      long serial = placed(q, nextSerial(now), q.grouped() ? group : null, m.attributes());
      Map<String, AttributeValue> item = new HashMap<>(stored);
      item.put("pk", Store.s(q.partitionOf(priority, serial)));
      item.put("sk", Store.s(Msg.sk(serial)));
      item.put(Msg.PRIORITY, Store.n(priority));
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
      sending.add(serial);
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
      } finally {
        sending.remove(serial);
      }
    }
  }

  /**
   * What a message's body (as stored) and attributes may take of an item: DynamoDB holds items of
   * at most 400 KB, names and values; the rest of a message's item (keys, times, group, a
   * deduplication id) takes well under 1 KB.
   */
  static final int MAX_STORED = 400 * 1024 - 1024;

  /**
   * A message's body and attributes as its item holds them (the body compressed when smaller);
   * refuses (MESSAGE_TOO_LARGE) a message whose item DynamoDB would refuse: a queue allows up to 1
   * MiB, and a body that does not compress under the item limit cannot be stored here.
   */
  private static Map<String, AttributeValue> stored(Q q, CheckedMessage m) {
    return stored(q, m.body(), Codecs.encodeAttributes(m.attributes()));
  }

  /**
   * As {@link #stored(Q, CheckedMessage)}, of a body and encoded attributes (an update's new
   * attributes are checked against the same limit before they are written).
   */
  private static Map<String, AttributeValue> stored(
      Q q, byte[] body, byte @Nullable [] attributes) {
    Map<String, AttributeValue> out = new HashMap<>();
    Bodies.put(out, body);
    if (attributes != null) {
      out.put(Msg.ATTRIBUTES, AttributeValue.fromB(SdkBytes.fromByteArray(attributes)));
    }
    int bytes = 0;
    for (AttributeValue v : out.values()) {
      bytes += v.b().asByteArray().length;
    }
    if (bytes > MAX_STORED) {
      throw new QueueException(
          ErrorCode.MESSAGE_TOO_LARGE,
          "the message takes "
              + bytes
              + " bytes as the DynamoDB store keeps it (the body, compressed when that is smaller,"
              + " and the attributes); a DynamoDB item holds at most 400 KB, so a message on queue '"
              + q.name()
              + "' may take at most "
              + MAX_STORED);
    }
    return out;
  }

  /** Adds {@code priority} to the queue's priorities before a message of it is written. */
  private void knowPriority(Q q, int priority) {
    if (q.priorities().contains(priority)) {
      return;
    }
    boolean known =
        store.updateIf(
            Store.key(QUEUES, q.name()),
            "ADD prios :p",
            "gen = :gen",
            Map.of(
                ":p",
                AttributeValue.fromNs(List.of(Integer.toString(priority))),
                ":gen",
                Store.n(q.gen())));
    items.forget(q.name());
    if (!known) {
      throw QueueException.queueNotFound(q.name()); // deleted meanwhile (or since the copy)
    }
    q.priorities().add(priority);
  }

  /**
   * The next serial, its shard bits 0: the clock's milliseconds above {@value #SERIAL_BITS} bits,
   * the upper of them a counter whose blocks of {@value #SERIAL_BLOCK} the store hands out, the low
   * {@value Shards#BITS} the shard ({@link #placed}), so serials of all servers sort about as they
   * were sent, and one engine's strictly increase (a counter that wraps within a millisecond moves
   * to the next). A serial another server took after its counter wrapped loses its put's condition
   * and the next is taken.
   */
  /** The highest serial this server has taken (its shard bits 0). */
  private long lastSerialTaken() {
    synchronized (serialLock) {
      return lastSerial;
    }
  }

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
      long counter = serialNext++ & ((1L << (SERIAL_BITS - Shards.BITS)) - 1);
      long serial = (lastMillis << SERIAL_BITS) | (counter << Shards.BITS);
      if (serial <= lastSerial) {
        lastMillis++; // the counter wrapped within this millisecond
        serial = (lastMillis << SERIAL_BITS) | (counter << Shards.BITS);
      }
      lastSerial = serial;
      return serial;
    }
  }

  /**
   * {@code serial} in the shard a message of {@code group} (null: not grouped) takes in {@code q}
   * now ({@link Shards#choose}).
   */
  private long placed(
      Q q,
      long serial,
      @Nullable String group,
      Map<String, io.switchboard.queue.AttributeValue> attributes) {
    if (q.partitioned()) {
      return Shards.place(serial, slot(q, attributes));
    }
    return Shards.place(serial, q.shards().choose(serial, group));
  }

  /**
   * The slot of the attribute partition a message with {@code attributes} goes to in a queue that
   * indexes attributes: the one its catalogue lists for the message's values, else a free one taken
   * by a conditional write on the queue's item (above every shard the list held, at most {@link
   * Builder#maxAttributePartitions} of them), else 0 (shard 0, which every receive reads).
   */
  private int slot(Q q, Map<String, io.switchboard.queue.AttributeValue> attributes) {
    java.util.Set<String> indexed = q.config().indexedAttributes();
    String names = AttributePartitions.names(indexed);
    String encoding = AttributePartitions.encoding(indexed, attributes);
    while (true) {
      int slot = q.parts().slotOf(names, encoding);
      if (slot >= 0) {
        return slot;
      }
      if (q.parts().slots().size() >= maxAttributePartitions) {
        return 0;
      }
      int free = Math.max(1, q.shards().partitions());
      while (free < Shards.MAX && q.parts().slots().containsKey(free)) {
        free++;
      }
      if (free >= Shards.MAX) {
        return 0;
      }
      String attribute = AttributePartitions.PREFIX + free;
      boolean taken =
          store.updateIf(
              Store.key(QUEUES, q.name()),
              "SET " + attribute + " = :v",
              "gen = :gen AND attribute_not_exists(" + attribute + ")",
              Map.of(":v", AttributePartitions.encode(names, encoding), ":gen", Store.n(q.gen())));
      items.forget(q.name());
      if (taken) {
        q.parts().slots().put(free, new AttributePartitions.Entry(names, encoding));
        return free;
      }
      // another server took the slot (perhaps for these values), or the queue went: read it again
      Map<String, AttributeValue> item = items.read(q.name());
      if (item == null || Store.num(item, "gen") != q.gen()) {
        throw QueueException.queueNotFound(q.name());
      }
      q.parts().slots().putAll(AttributePartitions.of(item).slots());
    }
  }

  /**
   * The order serial, in the shard it takes ({@link #placed}), that puts a message of {@code group}
   * at the back of its priority in {@code q}: a new serial (FIFO), or one below the lowest of every
   * shard (LIFO, which delivers the lowest serial last).
   */
  private long backSerial(
      Q q,
      int priority,
      @Nullable String group,
      Map<String, io.switchboard.queue.AttributeValue> attributes,
      long now) {
    if (forward(q)) {
      return placed(q, nextSerial(now), group, attributes);
    }
    long lowest = Long.MAX_VALUE;
    for (String pk : q.partitions(priority)) {
      for (Map<String, AttributeValue> item : page(pk, true, null, 1).items()) {
        lowest = Math.min(lowest, Long.parseLong(Store.text(item, "sk")));
      }
    }
    if (lowest == Long.MAX_VALUE) {
      return placed(q, nextSerial(now), group, attributes);
    }
    return placed(q, ((lowest >>> Shards.BITS) - 1) << Shards.BITS, group, attributes);
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
    AtomicInteger count = waiting.computeIfAbsent(queue, k -> new AtomicInteger());
    Line line = lines.computeIfAbsent(queue, k -> new Line());
    Waiter me = new Waiter(request);
    line.lock.lock();
    try {
      line.waiters.addLast(me);
    } finally {
      line.lock.unlock();
    }
    count.incrementAndGet();
    try {
      while (true) {
        boolean interrupted = false;
        synchronized (signal) {
          long parkNanos = clock.parkNanosUntil(deadline);
          if (parkNanos > 0 && me.got == null) {
            long millis = Math.min(pollMillis, Math.max(1, parkNanos / 1_000_000));
            try {
              signal.wait(millis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              interrupted = true;
            }
          }
        }
        if (interrupted) {
          // out of the signal's monitor first: a serve holds the line's lock and then wakes
          return leave(line, me);
        }
        List<Message> served = me.got;
        if (served != null) {
          return served;
        }
        Q now = closed ? null : recent(queue);
        if (now == null || now.gen() != q.gen()) {
          return leave(line, me);
        }
        serve(queue, now, false);
        if (me.got != null || clock.millis() >= deadline) {
          return leave(line, me);
        }
      }
    } finally {
      count.decrementAndGet();
      leave(line, me);
    }
  }

  /** This server's blocked receives of one queue, in the order they came. */
  private static final class Line {
    final java.util.concurrent.locks.ReentrantLock lock =
        new java.util.concurrent.locks.ReentrantLock();
    final java.util.ArrayDeque<Waiter> waiters = new java.util.ArrayDeque<>();

    /** Sends of this server to the queue under way: they serve the line when they end. */
    final AtomicInteger sending = new AtomicInteger();
  }

  /** A blocked receive: what it asks, and what a serve took for it. */
  private static final class Waiter {
    final ReceiveRequest request;
    volatile @Nullable List<Message> got;

    Waiter(ReceiveRequest request) {
      this.request = request;
    }
  }

  /**
   * Takes {@code me} out of its line: what a serve took for it, or nothing. Once out, no serve
   * takes for it.
   */
  private static List<Message> leave(Line line, Waiter me) {
    line.lock.lock();
    try {
      line.waiters.remove(me);
      List<Message> got = me.got;
      return got == null ? List.of() : got;
    } finally {
      line.lock.unlock();
    }
  }

  /**
   * Serves this server's blocked receives of {@code queue} in the order they came (docs/design.md,
   * "Blocked receives on DynamoDB"): each takes what it accepts, until an unfiltered one finds
   * nothing (the unfiltered ones after it would find nothing either). A send serves the line before
   * it answers ({@code bySend}: waiting its turn for the line), so a receive made after it does not
   * take the message from a waiter; a waiter's own poll serves it only when no send of this server
   * to the queue is under way and no other poll is serving it. A failed read leaves the rest for
   * the next poll.
   */
  private void serve(String queue, Q q, boolean bySend) {
    Line line = lines.get(queue);
    if (line == null) {
      return;
    }
    if (bySend) {
      line.lock.lock();
    } else if (line.sending.get() > 0 || !line.lock.tryLock()) {
      return;
    }
    boolean served = false;
    try {
      boolean plainFoundNothing = false;
      for (java.util.Iterator<Waiter> it = line.waiters.iterator(); it.hasNext(); ) {
        Waiter w = it.next();
        boolean plain = w.request.filter().isEmpty();
        if (plain && plainFoundNothing) {
          continue;
        }
        List<Message> got = take(q, w.request);
        if (got.isEmpty()) {
          plainFoundNothing |= plain;
          continue;
        }
        w.got = got;
        it.remove();
        served = true;
      }
    } catch (QueueException unavailable) {
      // the table refused a read: the waiters poll again
    } finally {
      line.lock.unlock();
    }
    if (served) {
      wake();
    }
  }

  /** Runs a send of this server to {@code q}, then serves the queue's blocked receives. */
  private <T> T sending(Q q, java.util.function.Supplier<T> send) {
    Line line = lines.get(q.name());
    if (line == null) {
      T r = send.get();
      wake(); // another engine's waiters poll the table; a line made meanwhile is woken
      return r;
    }
    line.sending.incrementAndGet();
    try {
      return send.get();
    } finally {
      line.sending.decrementAndGet();
      serve(q.name(), q, true);
      wake();
    }
  }

  private void wake() {
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  /**
   * Judges an item read, firing what fell due in the order it fell due: drops it when expired or
   * its history ran out, ends a lease that ran out (dead-lettering it when its receives ran out). A
   * lease that ended before the message expired ends first (a release), so a message whose lease
   * and life both ran out while nobody looked is released, then expires; at the same millisecond
   * the expiry comes first. Returns the message as it stands, or null when it is no longer in the
   * queue (or changed meanwhile, to be read again next time).
   */
  private @Nullable Msg settle(Q q, Msg m, long now) {
    if (m.done != null) {
      if (m.keep <= now) {
        delete(q, m);
      }
      return null;
    }
    if (m.leaseEnded(now) && m.vis < m.expires) {
      Msg after = endLease(q, m, now);
      return after == null ? null : settle(q, after, now);
    }
    if (m.expired(now)) {
      expire(q, m, now);
      return null;
    }
    if (m.leaseEnded(now)) {
      return endLease(q, m, now);
    }
    return m;
  }

  /**
   * Ends a lease that ran out: whoever ends it counts the release, and dead-letters the message if
   * that was the last receive allowed. The message as it stands after, or null when it left the
   * queue (or changed meanwhile).
   */
  private @Nullable Msg endLease(Q q, Msg m, long now) {
    if (DeadLetterRules.exhausted(q.config(), m.receives)
        && deadLetterRefusal(q, m, MessageEvent.Cause.MAX_RECEIVES) == null) {
      if (deadLetter(q, m, now, MessageEvent.Cause.MAX_RECEIVES)) {
        count(q.name(), RELEASED, 1);
        return DeadLetterRules.deadLettersToItself(q.name(), q.config()) ? bySerial(q, m.id) : null;
      }
      return null;
    }
    if (conditional(m, "SET ls = :zero", Map.of(":zero", Store.n(0)))) {
      count(q.name(), RELEASED, 1);
      return bySerial(q, m.id);
    }
    return null;
  }

  /**
   * When a message read at {@code now} fell due: its first timer (its lease's end, or its expiry)
   * that is at or before {@code now}; {@link Long#MAX_VALUE} when none is.
   */
  private static long due(Msg m, long now) {
    if (m.done != null) {
      return Long.MAX_VALUE;
    }
    long due = m.leased ? Math.min(m.vis, m.expires) : m.expires;
    return due <= now ? due : Long.MAX_VALUE;
  }

  /** Whether the first of a due message's timers is its expiry (not its lease's end). */
  private static boolean expiresFirst(Msg m) {
    return !m.leased || m.expires <= m.vis;
  }

  /**
   * The order in which what fell due is settled, as time would have fired it: by when it fell due,
   * an expiry before a lease's end at the same millisecond, then in the order the messages were
   * sent (so messages dead-lettered together reach their target in that order).
   */
  private static java.util.Comparator<Msg> dueOrder(long now) {
    return java.util.Comparator.comparingLong((Msg m) -> due(m, now))
        .thenComparing(m -> !expiresFirst(m))
        .thenComparingLong(m -> m.id);
  }

  /**
   * Every message of the queue (not history, not expired), settled, in no particular order. What
   * fell due since it was last read is settled in the order it fell due ({@link #dueOrder}).
   */
  private List<Msg> messages(Q q, long now) {
    List<Msg> out = new ArrayList<>();
    List<Msg> due = new ArrayList<>();
    for (int priority : q.priorities()) {
      for (String pk : q.partitions(priority)) {
        for (Map<String, AttributeValue> item : queryAll(pk, true, "")) {
          if (Msg.pointer(item)) {
            continue;
          }
          Msg m = new Msg(item);
          if (due(m, now) != Long.MAX_VALUE) {
            due.add(m);
            continue;
          }
          Msg settled = settle(q, m, now);
          if (settled != null) {
            out.add(settled);
          }
        }
      }
    }
    due.sort(dueOrder(now));
    for (Msg m : due) {
      Msg settled = settle(q, m, now);
      if (settled != null) {
        out.add(settled);
      }
    }
    return out;
  }

  /** Takes what is eligible now: reads each priority's head in order, claims by condition. */
  private List<Message> take(Q q, ReceiveRequest request) {
    if (q.grouped()) {
      return takeGrouped(q, request);
    }
    long now = clock.millis();
    long visibility = request.visibilityTimeout().orElse(q.config().visibilityTimeout()).toMillis();
    MessageFilter filter = request.filter().orElse(null);
    int max = request.maxMessages();
    List<Message> out = new ArrayList<>();
    for (int priority : q.priorities()) {
      Merged heads =
          new Merged(
              q.partitions(priority, filter),
              forward(q),
              -1,
              now,
              max - out.size() + PAGE_MARGIN,
              forward(q),
              hintKey(filter));
      Map<String, AttributeValue> item;
      while (out.size() < max && (item = heads.next()) != null) {
        Msg m = settle(q, new Msg(item), now);
        if (m == null) {
          heads.gone();
          continue;
        }
        if (m.state(now) != MessageState.AVAILABLE) {
          heads.kept();
          continue;
        }
        if (filter != null && !filter.test(m, now)) {
          heads.unmatched();
          continue;
        }
        Message claimed = claim(q, m, now, visibility);
        if (claimed != null) {
          out.add(claimed);
          heads.taken(now + visibility);
        } else {
          heads.kept();
        }
      }
      heads.keepHints();
      if (out.size() >= max) {
        break;
      }
    }
    return out;
  }

  /**
   * A grouped queue's receive (the SQS FIFO rules, as the in-memory engine's): groups whose head is
   * available are ready, ordered by the head's priority, then its place in time (sent, or last
   * received when handed back), then its serial; the best ready group gives its available messages
   * up to its first one not available, then the next group. Reads the whole queue: a grouped
   * queue's receive costs read units by its depth.
   */
  private List<Message> takeGrouped(Q q, ReceiveRequest request) {
    long now = clock.millis();
    long visibility = request.visibilityTimeout().orElse(q.config().visibilityTimeout()).toMillis();
    MessageFilter filter = request.filter().orElse(null);
    int max = request.maxMessages();
    Map<String, List<Msg>> groups = new HashMap<>();
    List<Msg> all = messages(q, now);
    all.sort((a, b) -> Long.compare(a.serial, b.serial));
    for (Msg m : all) {
      groups.computeIfAbsent(m.group == null ? "" : m.group, k -> new ArrayList<>()).add(m);
    }
    List<List<Msg>> ready = new ArrayList<>();
    for (List<Msg> line : groups.values()) {
      Msg head = line.get(0);
      if (head.state(now) == MessageState.AVAILABLE && (filter == null || filter.test(head, now))) {
        ready.add(line);
      }
    }
    ready.sort(
        (a, b) -> {
          Msg x = a.get(0);
          Msg y = b.get(0);
          int c = Integer.compare(y.priority, x.priority);
          if (c != 0) {
            return c;
          }
          c = Long.compare(place(x), place(y));
          if (c != 0) {
            return c;
          }
          c = Boolean.compare(x.receives > 0, y.receives > 0);
          return c != 0 ? c : Long.compare(x.serial, y.serial);
        });
    List<Message> out = new ArrayList<>();
    for (List<Msg> line : ready) {
      for (Msg m : line) {
        if (out.size() >= max || m.state(now) != MessageState.AVAILABLE) {
          break;
        }
        Message claimed = claim(q, m, now, visibility);
        if (claimed == null) {
          break; // another server took it: the rest of the group is theirs
        }
        out.add(claimed);
      }
      if (out.size() >= max) {
        break;
      }
    }
    return out;
  }

  /** A head's place in time: when last received, or sent if never received (since a redrive). */
  private static long place(Msg head) {
    return head.receives > 0 ? head.leasedAt : head.sent;
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
                                  .conditionExpression(
                                      "ep = :ep AND vis = :vis AND ex > :now"
                                          + " AND attribute_not_exists(dn)")
                                  .expressionAttributeValues(
                                      Map.of(
                                          ":one", Store.n(1),
                                          ":until", Store.n(now + visibility),
                                          ":now", Store.n(now),
                                          ":vis", Store.n(m.vis),
                                          ":ep", Store.n(m.epoch)))
                                  .returnValues(ReturnValue.ALL_NEW)))
              .attributes();
    } catch (ConditionalCheckFailedException lost) {
      return null;
    }
    Msg taken = new Msg(after);
    count(q.name(), RECEIVED, 1);
    String receipt = new Receipt(taken.id, receiptEpoch(taken)).encode(key(q));
    return taken.view(ids.id(taken.id), MessageState.IN_FLIGHT, receipt);
  }

  /** The bits of a receipt's lease epoch that hold the message's epoch; the rest are its place. */
  private static final int EPOCH_BITS = 24;

  private static final int EPOCH_MASK = (1 << EPOCH_BITS) - 1;

  /**
   * What a receipt carries as its lease epoch: the message's epoch in the low {@value #EPOCH_BITS}
   * bits, and above them where its item is, so that an ack can name the item's key without reading
   * it: the priority plus one when the priority is 0..254 and the item sits at its id serial (it
   * never moved); 0 when the ack must look the message up (docs/design.md, "Ids and receipts").
   */
  private static int receiptEpoch(Msg m) {
    int place = !m.moved() && m.priority >= 0 && m.priority < 255 ? m.priority + 1 : 0;
    return place << EPOCH_BITS | (int) (m.epoch & EPOCH_MASK);
  }

  /** Whether a receipt's lease epoch names the message's epoch now. */
  private static boolean sameEpoch(Msg m, int receiptEpoch) {
    return (m.epoch & EPOCH_MASK) == (receiptEpoch & EPOCH_MASK);
  }

  private ReceiptKey key(Q q) {
    return keys.forQueue(q.name(), q.gen());
  }

  private static boolean forward(Q q) {
    return q.config().order() == Order.FIFO;
  }

  // ---- leases ------------------------------------------------------------------------------

  /**
   * The message whose id carries {@code id}: at that serial in one of the queue's priorities, or
   * where the pointer there leads. Null when it is not in the queue (history included).
   */
  private @Nullable Msg bySerial(Q q, long id) {
    if (id == 0) {
      return null;
    }
    for (int priority : q.priorities()) {
      Map<String, AttributeValue> item = store.get(q.partitionOf(priority, id), Msg.sk(id));
      if (item != null && Msg.pointer(item)) {
        long to = Store.num(item, Msg.TO);
        item = store.get(q.partitionOf(priority, to), Msg.sk(to));
      }
      if (item != null && !Msg.pointer(item)) {
        Msg m = new Msg(item);
        if (m.id == id) {
          return m;
        }
      }
    }
    return null;
  }

  /** The message by id, settled (a lease that ran out ended); history included. */
  private Msg byId(Q q, String id, boolean history) {
    Objects.requireNonNull(id, "id");
    long now = clock.millis();
    Msg m = bySerial(q, ids.serial(id));
    if (m == null) {
      missed(q);
    }
    if (m != null && m.done == null) {
      Msg settled = settle(q, m, now);
      m = settled == null ? bySerial(q, m.id) : settled;
    }
    if (m == null
        || (m.done != null && (!history || m.keep <= now))
        || (m.done == null && m.expired(now))) {
      throw QueueException.messageNotFound(q.name(), id);
    }
    return m;
  }

  /** The leased message of a receipt; strict: it must be in flight on that lease. */
  private @Nullable Msg leased(Q q, String receipt, boolean strict, boolean anyLease, long now) {
    Receipt.Presented p = Receipt.parse(receipt, q.name());
    try {
      p.verify(key(q), receipt, q.name());
    } catch (QueueException e) {
      missed(q);
      throw e;
    }
    Msg m = bySerial(q, p.serial());
    if (m == null) {
      missed(q);
    }
    if (m == null || m.done != null || m.expired(now)) {
      if (strict) {
        throw MessageRules.leaseGone(q.name());
      }
      return null;
    }
    if (!sameEpoch(m, p.leaseEpoch()) && !anyLease) {
      throw MessageRules.staleReceipt(ids.id(m.id));
    }
    if (strict && m.state(now) != MessageState.IN_FLIGHT) {
      throw MessageRules.notInFlight(ids.id(m.id), m.state(now));
    }
    return m;
  }

  @Override
  public void ack(String queue, String receipt) {
    doOnQueue(queue, q -> ack(q, receipt));
  }

  private void ack(Q q, String receipt) {
    String queue = q.name();
    if (ackAtItsPlace(q, receipt)) {
      count(queue, ACKED, 1);
      wake();
      return;
    }
    while (true) {
      long now = clock.millis();
      Msg m = leased(q, receipt, false, false, now);
      if (m == null) {
        return;
      }
      if (q.grouped() && m.state(now) != MessageState.IN_FLIGHT) {
        throw MessageRules.notInFlight(ids.id(m.id), m.state(now));
      }
      if (finish(q, m, "c", now)) {
        count(queue, ACKED, 1);
        wake();
        return;
      }
    }
  }

  /**
   * An ack that reads nothing: when the receipt is this queue's and names its item's place ({@link
   * #receiptEpoch}), one conditional write on that key ends the message, on the conditions the ack
   * by a read would check (the lease epoch the receipt names, not ended, not expired; in flight on
   * a grouped queue). False when the receipt names no place, or the condition was lost (the message
   * moved, was received again, ended or expired; or the receipt is not this copy's): then the ack
   * reads the message and answers as it always did.
   */
  private boolean ackAtItsPlace(Q q, String receipt) {
    Receipt.Presented p;
    try {
      p = Receipt.parse(receipt, q.name());
      p.verify(key(q), receipt, q.name());
    } catch (QueueException e) {
      return false;
    }
    int place = p.leaseEpoch() >>> EPOCH_BITS;
    if (place == 0 || !q.priorities().contains(place - 1)) {
      return false;
    }
    long now = clock.millis();
    Map<String, AttributeValue> key =
        Store.key(q.partitionOf(place - 1, p.serial()), Msg.sk(p.serial()));
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":ep", Store.n(p.leaseEpoch() & EPOCH_MASK));
    values.put(":now", Store.n(now));
    // the item at the id serial is that message (a pointer has no epoch; a message that moved
    // there from elsewhere names its id)
    String condition =
        "ep = :ep AND ex > :now AND attribute_not_exists(dn)"
            + " AND (attribute_not_exists(#id) OR #id = :id)";
    Map<String, String> names = Map.of("#id", Msg.ID);
    values.put(":id", Store.n(p.serial()));
    if (q.grouped()) {
      condition += " AND ls = :one AND vis > :now";
      values.put(":one", Store.n(1));
    }
    long history = q.config().historyRetention().toMillis();
    if (history <= 0) {
      return store.deleteIf(key, condition, names, values);
    }
    values.put(":dn", Store.s("c"));
    values.put(":kp", Store.n(now + history));
    values.put(":purge", Store.n((now + history) / 1000 + 1));
    return store.updateIf(
        key, "SET dn = :dn, kp = :kp, purgeAt = :purge", condition, names, values);
  }

  /** Ends a message: kept as history ({@code done}) while the queue keeps history, else deleted. */
  private boolean finish(Q q, Msg m, String done, long now) {
    long history = q.config().historyRetention().toMillis();
    if (history <= 0) {
      return delete(q, m);
    }
    return conditional(
        m,
        "SET dn = :dn, kp = :kp, purgeAt = :purge",
        Map.of(
            ":dn", Store.s(done),
            ":kp", Store.n(now + history),
            ":purge", Store.n((now + history) / 1000 + 1)));
  }

  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    require(queue);
    return BatchAcks.oneByOne(receipts, (receipt, i) -> ack(queue, receipt));
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    Objects.requireNonNull(delay, "delay");
    doOnQueue(queue, q -> release(q, receipt, delay, toBack));
  }

  private void release(Q q, String receipt, Duration delay, boolean toBack) {
    String queue = q.name();
    MessageRules.checkRelease(queue, q.grouped(), delay, toBack);
    while (true) {
      long now = clock.millis();
      Msg m = Objects.requireNonNull(leased(q, receipt, true, false, now));
      if (DeadLetterRules.exhausted(q.config(), m.receives)
          && deadLetterRefusal(q, m, MessageEvent.Cause.MAX_RECEIVES) == null
          && deadLetter(q, m, now, MessageEvent.Cause.MAX_RECEIVES)) {
        count(queue, RELEASED, 1);
        return;
      }
      long vis = now + delay.toMillis();
      long back = toBack ? backSerial(q, m.priority, null, m.attributes, now) : 0;
      boolean done =
          toBack
              ? move(
                  m,
                  q,
                  q,
                  q.partitionOf(m.priority, back),
                  back,
                  m.priority,
                  item -> {
                    item.put(Msg.VISIBLE, Store.n(vis));
                    item.put(Msg.LEASED, Store.n(0));
                  })
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
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    return onQueue(queue, q -> extend(q, receipt, visibilityTimeout, false));
  }

  @Override
  public Message extendAnyLease(String queue, String receipt, Duration visibilityTimeout) {
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    return onQueue(queue, q -> extend(q, receipt, visibilityTimeout, true));
  }

  private Message extend(Q q, String receipt, Duration visibility, boolean anyLease) {
    String queue = q.name();
    MessageRules.checkExtend(visibility);
    while (true) {
      long now = clock.millis();
      Msg m = leased(q, receipt, false, anyLease, now);
      if (m == null) {
        throw MessageRules.leaseGone(queue);
      }
      long until = MessageRules.extendedUntil(visibility, m.leasedAt, now);
      MessageState state = m.state(now);
      String id = ids.id(m.id);
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
        if (DeadLetterRules.exhausted(q.config(), m.receives)
            && deadLetterRefusal(q, m, MessageEvent.Cause.MAX_RECEIVES) == null) {
          Message left = m.view(id, MessageState.DEAD_LETTERED, null);
          if (deadLetter(q, m, now, MessageEvent.Cause.MAX_RECEIVES)) {
            count(queue, RELEASED, 1);
            return DeadLetterRules.deadLettersToItself(queue, q.config())
                ? fresh(q, m, id, now)
                : left;
          }
          continue;
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
    Msg again = bySerial(q, m.id);
    return again == null ? m.view(id, now, null) : again.view(id, now, null);
  }

  @Override
  public void fail(String queue, String receipt) {
    doOnQueue(queue, q -> fail(q, receipt));
  }

  private void fail(Q q, String receipt) {
    String queue = q.name();
    while (true) {
      long now = clock.millis();
      Msg m = Objects.requireNonNull(leased(q, receipt, true, false, now));
      if (finish(q, m, "f", now)) {
        count(queue, FAILED, 1);
        wake();
        return;
      }
    }
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    doOnQueue(queue, q -> deadLetter(q, receipt));
  }

  private void deadLetter(Q q, String receipt) {
    DeadLetterRules.requireTarget(q.name(), q.config());
    while (true) {
      long now = clock.millis();
      Msg m = Objects.requireNonNull(leased(q, receipt, true, false, now));
      if (deadLetter(q, m, now, MessageEvent.Cause.REQUESTED)) {
        return;
      }
    }
  }

  @Override
  public void deadLetterById(String queue, String id) {
    doOnQueue(queue, q -> deadLetterById(q, id));
  }

  private void deadLetterById(Q q, String id) {
    DeadLetterRules.requireTarget(q.name(), q.config());
    while (true) {
      long now = clock.millis();
      Msg m = byId(q, id, false);
      if (deadLetter(q, m, now, MessageEvent.Cause.REQUESTED)) {
        return;
      }
    }
  }

  // ---- by id -------------------------------------------------------------------------------

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    Objects.requireNonNull(update, "update");
    return onQueue(queue, q -> update(q, id, update));
  }

  private Message update(Q q, String id, MessageUpdate update) {
    String queue = q.name();
    while (true) {
      long now = clock.millis();
      Msg m = byId(q, id, false);
      Map<String, io.switchboard.queue.AttributeValue> attributes =
          update.attributes().orElse(m.attributes);
      if (update.attributes().isPresent()) {
        int size = m.body.length + MessageRules.attributeBytes(attributes, "attributes");
        MessageRules.checkUpdateSize(size, queue, q.config());
      }
      int priority = update.priority().orElse(m.priority);
      byte[] encoded = Codecs.encodeAttributes(attributes);
      if (update.attributes().isPresent()) {
        stored(q, m.body, encoded); // refuses attributes that would take the item past 400 KB
      }
      // new indexed values move the message to their partition's slot, at its place in the order
      long serial =
          q.partitioned() && update.attributes().isPresent()
              ? Shards.place(m.serial, slot(q, attributes))
              : m.serial;
      boolean done;
      if (priority != m.priority || serial != m.serial) {
        knowPriority(q, priority);
        done =
            move(
                m,
                q,
                q,
                q.partitionOf(priority, serial),
                serial,
                priority,
                item -> {
                  if (encoded == null) {
                    item.remove(Msg.ATTRIBUTES);
                  } else {
                    item.put(Msg.ATTRIBUTES, AttributeValue.fromB(SdkBytes.fromByteArray(encoded)));
                  }
                });
      } else {
        done =
            conditional(
                m,
                encoded == null ? "REMOVE a" : "SET a = :a",
                encoded == null
                    ? Map.of()
                    : Map.of(":a", AttributeValue.fromB(SdkBytes.fromByteArray(encoded))));
      }
      if (done) {
        wake();
        return Objects.requireNonNull(bySerial(q, m.id), "updated message").view(id, now, null);
      }
    }
  }

  @Override
  public Message touch(String queue, String id) {
    return onQueue(queue, q -> touch(q, id));
  }

  private Message touch(Q q, String id) {
    MessageRules.checkTouch(q.name(), q.grouped());
    while (true) {
      long now = clock.millis();
      Msg m = byId(q, id, false);
      long back = backSerial(q, m.priority, null, m.attributes, now);
      if (move(m, q, q, q.partitionOf(m.priority, back), back, m.priority, item -> {})) {
        return Objects.requireNonNull(bySerial(q, m.id), "touched message").view(id, now, null);
      }
    }
  }

  @Override
  public void remove(String queue, String id) {
    doOnQueue(queue, q -> remove(q, id));
  }

  private void remove(Q q, String id) {
    String queue = q.name();
    while (true) {
      if (delete(q, byId(q, id, false))) {
        count(queue, REMOVED, 1);
        return;
      }
    }
  }

  @Override
  public Message get(String queue, String id) {
    return onQueue(queue, q -> byId(q, id, true).view(id, clock.millis(), null));
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
      long after = priority == afterPriority ? afterSerial : -1;
      Merged shards = new Merged(q.partitions(priority, filter), forward(q), after, -1, PAGE);
      Map<String, AttributeValue> item;
      while ((item = shards.next()) != null) {
        Msg m = settle(q, new Msg(item), now);
        if (m == null) {
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
        items.add(m.view(ids.id(m.id), state, null));
        cursor = priority + ":" + m.serial;
      }
    }
    return new Page(items, more ? Optional.ofNullable(cursor) : Optional.empty());
  }

  @Override
  public long purge(String queue) {
    Q q = current(queue);
    long n = messages(q, clock.millis()).size();
    deleteAll(q);
    count(queue, REMOVED, n);
    return n;
  }

  /** Deletes every item of the queue's generation: messages, pointers, history, dedup ids. */
  private void deleteAll(Q q) {
    for (int priority : q.priorities()) {
      for (String pk : q.partitions(priority)) {
        deletePartition(pk);
      }
    }
    deletePartition(q.dedupPartition());
  }

  private void deletePartition(String pk) {
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
    }
  }

  @Override
  public QueueStats stats(String queue) {
    Q q = require(queue);
    long now = clock.millis();
    long available = 0;
    long delayed = 0;
    long inFlight = 0;
    long oldest = Long.MAX_VALUE;
    Map<Integer, Long> byPriority = new TreeMap<>(Collections.reverseOrder());
    for (Msg m : messages(q, now)) {
      switch (m.state(now)) {
        case AVAILABLE -> available++;
        case DELAYED -> delayed++;
        default -> inFlight++;
      }
      oldest = Math.min(oldest, m.sent);
      byPriority.merge(m.priority, 1L, Long::sum);
    }
    AtomicInteger w = waiting.get(queue);
    return new QueueStats(
        available,
        delayed,
        inFlight,
        oldest == Long.MAX_VALUE
            ? Optional.empty()
            : Optional.of(Duration.ofMillis(Math.max(0, now - oldest))),
        new LinkedHashMap<>(byPriority),
        w == null ? 0 : w.get(),
        counters(q));
  }

  // ---- dead letters and redrive ------------------------------------------------------------

  /**
   * A redrive task is three items (docs/design.md, "Redrive tasks on DynamoDB"): the task ({@code
   * rd#<source>}, its id), a pointer from its id to its source ({@link #TASK_IDS}) and, while it
   * runs, the source's run marker ({@link #RUNNING_TASKS}, the source), whose conditional put makes
   * a second task of the same source a conflict. Any server steps a running task: it claims a step
   * by a conditional write of the task's version, moves up to {@link #STEP} messages, then writes
   * its progress conditioned on its claim.
   */
  private static final String TASKS = "rd#";

  private static final String TASK_IDS = "rd-id";
  private static final String RUNNING_TASKS = "rd-run";

  /** Messages a task moves per claim. */
  private static final int STEP = 100;

  /** How long a claim keeps other servers from stepping a task (a server that died mid-step). */
  private static final long STEP_LEASE_MILLIS = 30_000;

  @Override
  public void checkMoves(MoveCheck check) {
    this.moveCheck = Objects.requireNonNull(check, "check");
  }

  /**
   * Why the engine may not dead-letter {@code m} on its own ({@link MoveCheck#deadLetterRefusal}),
   * or null: moves on request and into the queue itself are not asked about.
   */
  private @Nullable String deadLetterRefusal(Q q, Msg m, MessageEvent.Cause cause) {
    String target = q.config().deadLetter().orElseThrow().target();
    if (cause == MessageEvent.Cause.REQUESTED || target.equals(q.name())) {
      return null;
    }
    return moveCheck.deadLetterRefusal(q.name(), target, ids.id(m.id));
  }

  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    Objects.requireNonNull(request, "request");
    Q dlq = current(source);
    Optional<String> destination = request.destination();
    if (destination.isPresent()) {
      DeadLetterRules.checkDestination(source, dlq.grouped(), current(destination.get()).info());
    }
    long now = clock.millis();
    long cutoff = -1;
    long toMove = 0;
    for (Msg m : messages(dlq, now)) {
      cutoff = Math.max(cutoff, m.serial);
      toMove++;
    }
    String id = UUID.randomUUID().toString();
    Map<String, AttributeValue> task = new HashMap<>(Store.key(TASKS + source, id));
    task.put("src", Store.s(source));
    destination.ifPresent(d -> task.put("dst", Store.s(d)));
    task.put("rate", Store.n(request.maxPerSecond().orElse(0)));
    task.put("st", Store.s(RedriveTask.Status.RUNNING.name()));
    task.put("mv", Store.n(0));
    task.put("tm", Store.n(toMove));
    task.put("at", Store.n(now));
    task.put("cut", Store.n(cutoff));
    task.put("cur", Store.n(-1));
    task.put("v", Store.n(0));
    Map<String, AttributeValue> marker = new HashMap<>(Store.key(RUNNING_TASKS, source));
    marker.put("id", Store.s(id));
    Map<String, AttributeValue> pointer = new HashMap<>(Store.key(TASK_IDS, id));
    pointer.put("src", Store.s(source));
    try {
      store.call(
          d ->
              d.transactWriteItems(
                  b ->
                      b.transactItems(
                          TransactWriteItem.builder()
                              .put(
                                  p ->
                                      p.tableName(store.table())
                                          .item(marker)
                                          .conditionExpression("attribute_not_exists(pk)"))
                              .build(),
                          TransactWriteItem.builder()
                              .put(p -> p.tableName(store.table()).item(task))
                              .build(),
                          TransactWriteItem.builder()
                              .put(p -> p.tableName(store.table()).item(pointer))
                              .build())));
    } catch (TransactionCanceledException running) {
      Map<String, AttributeValue> other = store.get(RUNNING_TASKS, source);
      throw DeadLetterRules.alreadyRedriving(
          source, other == null ? "(ended meanwhile)" : Store.text(other, "id"));
    }
    runningTasks.put(id, source);
    while (step(source, id)) {
      // a task without a rate moves everything now; one with a rate its first second's worth
    }
    wake();
    return task(source, id);
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    require(source);
    List<RedriveTask> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : queryAll(TASKS + source, true, "")) {
      out.add(task(item));
    }
    out.sort((a, b) -> b.startedAt().compareTo(a.startedAt()));
    return out;
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    Objects.requireNonNull(taskId, "taskId");
    Map<String, AttributeValue> pointer = store.get(TASK_IDS, taskId);
    if (pointer == null) {
      throw new QueueException(ErrorCode.TASK_NOT_FOUND, "no redrive task '" + taskId + "'");
    }
    String source = Store.text(pointer, "src");
    end(source, taskId, RedriveTask.Status.CANCELLED, null, -1);
    runningTasks.remove(taskId);
    return task(source, taskId);
  }

  private RedriveTask task(String source, String id) {
    Map<String, AttributeValue> item = store.get(TASKS + source, id);
    if (item == null) {
      throw new QueueException(ErrorCode.TASK_NOT_FOUND, "no redrive task '" + id + "'");
    }
    return task(item);
  }

  private static RedriveTask task(Map<String, AttributeValue> item) {
    long rate = Store.num(item, "rate");
    String dst = Store.str(item, "dst");
    String why = Store.str(item, "why");
    return new RedriveTask(
        Store.text(item, "sk"),
        Store.text(item, "src"),
        Optional.ofNullable(dst),
        rate == 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of((int) rate),
        RedriveTask.Status.valueOf(Store.text(item, "st")),
        Store.num(item, "mv"),
        Store.num(item, "tm"),
        Instant.ofEpochMilli(Store.num(item, "at")),
        Optional.ofNullable(why));
  }

  /**
   * Steps every running task: those this server knows of each second, and those the sweep finds in
   * the run markers (started by a server that stopped, or by another one).
   */
  private void stepTasks(boolean discover) {
    if (closed) {
      return;
    }
    try {
      if (discover) {
        for (Map<String, AttributeValue> marker : queryAll(RUNNING_TASKS, true, "")) {
          runningTasks.put(Store.text(marker, "id"), Store.text(marker, "sk"));
        }
      }
      for (Map.Entry<String, String> t : runningTasks.entrySet()) {
        while (step(t.getValue(), t.getKey())) {
          // on while the task's rate allows
        }
      }
    } catch (QueueException unavailable) {
      // DynamoDB refused or failed a request: the next tick steps again from the task's progress
    }
  }

  /**
   * Moves the next messages of a running task, at most {@link #STEP} and what its rate allows by
   * now; true when it should step again at once (it moved a full step and may move more).
   */
  private boolean step(String source, String id) {
    Map<String, AttributeValue> item = store.get(TASKS + source, id);
    if (item == null || !RedriveTask.Status.RUNNING.name().equals(Store.text(item, "st"))) {
      runningTasks.remove(id);
      return false;
    }
    long now = clock.millis();
    long rate = Store.num(item, "rate");
    long moved = Store.num(item, "mv");
    long budget =
        rate == 0
            ? STEP
            : Math.min(STEP, rate + (now - Store.num(item, "at")) * rate / 1000 - moved);
    if (budget <= 0) {
      return false; // its rate allows no more by now
    }
    long v = Store.num(item, "v");
    Map<String, AttributeValue> claimed = new HashMap<>();
    claimed.put(":v", Store.n(v));
    claimed.put(":v1", Store.n(v + 1));
    claimed.put(":until", Store.n(now + STEP_LEASE_MILLIS));
    claimed.put(":now", Store.n(now));
    claimed.put(":run", Store.s(RedriveTask.Status.RUNNING.name()));
    if (!store.updateIf(
        Store.key(TASKS + source, id),
        "SET v = :v1, own = :until",
        "v = :v AND st = :run AND (attribute_not_exists(own) OR own <= :now)",
        claimed)) {
      return false; // another server steps it, or it ended meanwhile
    }
    Q dlq = find(source);
    if (dlq == null) {
      end(
          source,
          id,
          RedriveTask.Status.FAILED,
          "source queue '" + source + "' was deleted",
          v + 1);
      return false;
    }
    long cursor = Store.num(item, "cur");
    String problem = Store.str(item, "why");
    String dst = Store.str(item, "dst");
    Candidates next = candidates(dlq, cursor, Store.num(item, "cut"), (int) budget);
    long n = 0;
    Map<String, Optional<String>> refusals = new HashMap<>();
    for (Msg read : next.messages) {
      Msg m = settle(dlq, read, now);
      if (m != null && m.state(now) != MessageState.IN_FLIGHT) {
        String target = dst == null ? m.deadLetterSource : dst;
        Q to = target == null ? null : find(target);
        if (target == null) {
          problem = "some messages were not dead-lettered from another queue and stayed";
        } else if (to == null) {
          problem = "queue '" + target + "' does not exist; its messages stayed";
        } else {
          Optional<String> refused =
              refusals.computeIfAbsent(
                  target, t -> Optional.ofNullable(moveCheck.refusal(id, source, t)));
          if (refused.isPresent()) {
            // the task stops here: this message and the rest stay in the dead-letter queue
            progress(source, id, v + 1, n, cursor, problem);
            end(source, id, RedriveTask.Status.FAILED, refused.get(), v + 2);
            return false;
          }
          if (moveBack(dlq, to, m, now)) {
            n++;
          }
          // a message that changed since it was read (received, touched) stays: leased ones are
          // skipped, as they are when their turn comes
        }
      }
      cursor = read.serial;
    }
    cursor = Math.max(cursor, next.readTo);
    if (next.end) {
      progress(source, id, v + 1, n, cursor, problem);
      end(source, id, RedriveTask.Status.COMPLETED, null, v + 2);
      return false;
    }
    progress(source, id, v + 1, n, cursor, problem);
    return next.messages.size() < budget || budget == STEP;
  }

  /**
   * The messages of {@code dlq} after serial {@code after} up to {@code cutoff}, in serial order,
   * at most {@code limit}; {@code readTo}: every serial up to it was read; {@code end}: none is
   * left up to the cutoff.
   */
  private record Candidates(List<Msg> messages, long readTo, boolean end) {}

  private Candidates candidates(Q dlq, long after, long cutoff, int limit) {
    if (after >= cutoff) {
      return new Candidates(List.of(), after, true);
    }
    List<Msg> all = new ArrayList<>();
    long horizon = cutoff; // every partition was read at least this far
    for (int priority : dlq.priorities()) {
      for (String pk : dlq.partitions(priority)) {
        QueryResponse r =
            store.call(
                d ->
                    d.query(
                        b ->
                            b.tableName(store.table())
                                .consistentRead(true)
                                .keyConditionExpression("pk = :p AND sk BETWEEN :a AND :b")
                                .expressionAttributeValues(
                                    Map.of(
                                        ":p", Store.s(pk),
                                        ":a", Store.s(Msg.sk(after + 1)),
                                        ":b", Store.s(Msg.sk(cutoff))))
                                .limit(limit)));
        long last = after;
        for (Map<String, AttributeValue> i : r.items()) {
          long serial = Long.parseLong(Store.text(i, "sk"));
          last = Math.max(last, serial);
          if (!Msg.pointer(i)) {
            all.add(new Msg(i));
          }
        }
        if (next(r) != null) {
          horizon = Math.min(horizon, last); // this partition has more after what it gave
        }
      }
    }
    all.sort((a, b) -> Long.compare(a.serial, b.serial));
    List<Msg> out = new ArrayList<>();
    for (Msg m : all) {
      if (m.serial > horizon || out.size() == limit) {
        break;
      }
      out.add(m);
    }
    boolean end = horizon == cutoff && out.size() == all.size();
    long readTo = horizon;
    if (out.size() < all.size() && all.get(out.size()).serial <= horizon) {
      readTo = out.get(out.size() - 1).serial; // the limit stopped it (so out holds some)
    }
    return new Candidates(out, readTo, end);
  }

  /**
   * Writes a step's progress under its claim (version {@code claim}), ending the claim: {@code n}
   * more moved, every serial up to {@code cursor} done with.
   */
  private void progress(
      String source, String id, long claim, long n, long cursor, @Nullable String problem) {
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":claim", Store.n(claim));
    values.put(":next", Store.n(claim + 1));
    values.put(":n", Store.n(n));
    values.put(":cur", Store.n(cursor));
    String update = "SET v = :next, mv = mv + :n, cur = :cur";
    if (problem != null) {
      values.put(":why", Store.s(problem));
      update += ", why = :why";
    }
    store.updateIf(Store.key(TASKS + source, id), update + " REMOVE own", "v = :claim", values);
  }

  /**
   * Ends a running task with {@code status}: under a step's claim (version {@code claim}), or
   * whatever its version ({@code claim} -1: a cancel); its run marker goes in the same transaction.
   * Nothing changes when it is no longer running.
   */
  private void end(
      String source, String id, RedriveTask.Status status, @Nullable String why, long claim) {
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":run", Store.s(RedriveTask.Status.RUNNING.name()));
    values.put(":st", Store.s(status.name()));
    if (claim >= 0) {
      values.put(":claim", Store.n(claim));
      values.put(":next", Store.n(claim + 1));
    }
    if (why != null) {
      values.put(":why", Store.s(why));
    }
    // a cancel (no claim) leaves the version to the step that may be running
    String set =
        "SET st = :st" + (claim >= 0 ? ", v = :next" : "") + (why != null ? ", why = :why" : "");
    String when = "st = :run" + (claim >= 0 ? " AND v = :claim" : "");
    try {
      store.call(
          d ->
              d.transactWriteItems(
                  b ->
                      b.transactItems(
                          TransactWriteItem.builder()
                              .update(
                                  u ->
                                      u.tableName(store.table())
                                          .key(Store.key(TASKS + source, id))
                                          .updateExpression(set)
                                          .conditionExpression(when)
                                          .expressionAttributeValues(values))
                              .build(),
                          TransactWriteItem.builder()
                              .delete(
                                  x ->
                                      x.tableName(store.table())
                                          .key(Store.key(RUNNING_TASKS, source))
                                          .conditionExpression("id = :id")
                                          .expressionAttributeValues(Map.of(":id", Store.s(id))))
                              .build())));
    } catch (TransactionCanceledException notRunning) {
      // it ended meanwhile (cancelled, or another server ended it): as it stands
    }
    runningTasks.remove(id);
  }

  @Override
  public Message restore(String deadLetterQueue, String id) {
    return onQueue(deadLetterQueue, dlq -> restore(dlq, id));
  }

  private Message restore(Q dlq, String id) {
    while (true) {
      long now = clock.millis();
      Msg m = byId(dlq, id, false);
      if (m.deadLetterSource == null) {
        throw DeadLetterRules.notDeadLettered(id);
      }
      if (m.state(now) == MessageState.IN_FLIGHT) {
        throw DeadLetterRules.leasedOnRestore(id);
      }
      Q to = current(m.deadLetterSource);
      if (moveBack(dlq, to, m, now)) {
        wake();
        return Objects.requireNonNull(bySerial(to, m.id), "restored message").view(id, now, null);
      }
    }
  }

  /** Moves a dead-lettered message to the back of {@code to}, receive count 0, a new epoch. */
  private boolean moveBack(Q dlq, Q to, Msg m, long now) {
    knowPriority(to, m.priority);
    long back = backSerial(to, m.priority, to.grouped() ? m.group : null, m.attributes, now);
    boolean moved =
        move(
            m,
            dlq,
            to,
            to.partitionOf(m.priority, back),
            back,
            m.priority,
            item -> {
              item.put(Msg.RECEIVES, Store.n(0));
              item.put(Msg.VISIBLE, Store.n(now));
              item.put(Msg.LEASED, Store.n(0));
              item.put(Msg.EPOCH, Store.n(m.epoch + 1));
              item.remove(Msg.DEAD_LETTER_SOURCE);
              // its expiry restarts with the target's retention
              long until = now + to.config().retention().toMillis();
              item.put(Msg.EXPIRES, Store.n(until));
              item.put(StoreTable.TTL_ATTRIBUTE, Store.n(until / 1000 + 1));
            });
    if (moved) {
      events.tell(
          () ->
              new MessageEvent.Redriven(
                  dlq.name(),
                  to.name(),
                  Objects.requireNonNull(bySerial(to, m.id), "moved")
                      .view(ids.id(m.id), now, null)));
    }
    return moved;
  }

  /**
   * Moves the message to its queue's dead-letter target (or, the queue its own target, resets its
   * receive count in place); false when it changed since it was read.
   */
  private boolean deadLetter(Q q, Msg m, long now, MessageEvent.Cause cause) {
    DeadLetterPolicy policy = q.config().deadLetter().orElseThrow();
    boolean done;
    String target = policy.target();
    if (target.equals(q.name())) {
      done =
          conditional(
              m,
              "SET rc = :zero, vis = :now, ls = :zero",
              Map.of(":zero", Store.n(0), ":now", Store.n(now)));
    } else {
      Q to = find(target);
      if (to == null) {
        return false; // the target is gone: the message stays where it is
      }
      knowPriority(to, m.priority);
      long history = q.config().historyRetention().toMillis();
      long serial = placed(to, nextSerial(now), to.grouped() ? m.group : null, m.attributes);
      done =
          move(
              m,
              q,
              to,
              to.partitionOf(m.priority, serial),
              serial, // the newest in the target, as a new message would be
              m.priority,
              item -> {
                item.put(Msg.VISIBLE, Store.n(now));
                item.put(Msg.LEASED, Store.n(0));
                item.put(Msg.DEAD_LETTER_SOURCE, Store.s(q.name()));
                // its expiry restarts with the target's retention
                long until = now + to.config().retention().toMillis();
                item.put(Msg.EXPIRES, Store.n(until));
                item.put(StoreTable.TTL_ATTRIBUTE, Store.n(until / 1000 + 1));
              },
              history > 0 ? now + history : 0);
    }
    if (done) {
      count(q.name(), DEAD_LETTERED, 1);
      Q to = target.equals(q.name()) ? q : find(target);
      Msg placed = to == null ? null : bySerial(to, m.id);
      if (placed != null) {
        events.tell(
            () ->
                new MessageEvent.DeadLettered(
                    q.name(), target, placed.view(ids.id(m.id), now, null), cause));
      }
      wake();
    }
    return done;
  }

  private void expire(Q q, Msg m, long now) {
    if (q.config().onExpire() == ExpiryAction.DEAD_LETTER && q.config().deadLetter().isPresent()) {
      if (deadLetterRefusal(q, m, MessageEvent.Cause.EXPIRED) != null) {
        // refused: it stays as it was, asked again when its expiry, put off, comes
        long until = now + DeadLetterRules.REFUSED_EXPIRY_RETRY_MILLIS;
        conditional(
            m,
            "SET " + Msg.EXPIRES + " = :until, " + StoreTable.TTL_ATTRIBUTE + " = :ttl",
            Map.of(":until", Store.n(until), ":ttl", Store.n(until / 1000 + 1)));
        return;
      }
      if (deadLetter(q, m, now, MessageEvent.Cause.EXPIRED)) {
        count(q.name(), EXPIRED, 1); // counted as both: it expired, and it was dead-lettered
        return;
      }
    }
    if (delete(q, m)) {
      count(q.name(), EXPIRED, 1);
      events.tell(() -> new MessageEvent.Expired(q.name(), m.view(ids.id(m.id), now, null)));
    }
  }

  // ---- conditional writes ------------------------------------------------------------------

  /** Deletes the message as read (its epoch unchanged), and its pointer; false when it changed. */
  private boolean delete(Q q, Msg m) {
    if (m.moved()) {
      try {
        store.call(
            d ->
                d.transactWriteItems(
                    b ->
                        b.transactItems(
                            TransactWriteItem.builder()
                                .delete(x -> asRead(x.tableName(store.table()), m))
                                .build(),
                            TransactWriteItem.builder()
                                .delete(x -> x.tableName(store.table()).key(pointerKey(q, m)))
                                .build())));
        return true;
      } catch (TransactionCanceledException changed) {
        return false;
      }
    }
    return store.deleteIf(
        Store.key(m.pk, m.sk()),
        "ep = :ep AND vis = :vis",
        Map.of(":ep", Store.n(m.epoch), ":vis", Store.n(m.vis)));
  }

  /** The key of the pointer from a moved message's id to its item: in the shard of the id. */
  private static Map<String, AttributeValue> pointerKey(Q q, Msg m) {
    return Store.key(q.partitionOf(m.priority, m.id), Msg.sk(m.id));
  }

  private static void asRead(
      software.amazon.awssdk.services.dynamodb.model.Delete.Builder b, Msg m) {
    b.key(Store.key(m.pk, m.sk()))
        .conditionExpression("ep = :ep AND vis = :vis")
        .expressionAttributeValues(Map.of(":ep", Store.n(m.epoch), ":vis", Store.n(m.vis)));
  }

  private boolean setVisible(Msg m, long vis, boolean leased) {
    return conditional(
        m, "SET vis = :v, ls = :l", Map.of(":v", Store.n(vis), ":l", Store.n(leased ? 1 : 0)));
  }

  /** An update of the message as read (epoch and visibility unchanged). */
  /** Drops this server's hints of {@code pk}'s queue: an item there may be deliverable sooner. */
  private void forgetHints(String pk) {
    hintEpoch.incrementAndGet();
    int end = pk.indexOf('#', pk.indexOf('#', 2) + 1);
    String queue = end < 0 ? pk : pk.substring(0, end + 1);
    hints.keySet().removeIf(k -> k.startsWith(queue));
  }

  private boolean conditional(Msg m, String update, Map<String, AttributeValue> values) {
    forgetHints(m.pk);
    Map<String, AttributeValue> all = new HashMap<>(values);
    all.put(":ep", Store.n(m.epoch));
    all.put(":vis0", Store.n(m.vis));
    return store.updateIf(Store.key(m.pk, m.sk()), update, "ep = :ep AND vis = :vis0", all);
  }

  private boolean move(
      Msg m,
      Q from,
      Q to,
      String pk,
      long serial,
      int priority,
      Consumer<Map<String, AttributeValue>> edit) {
    return move(m, from, to, pk, serial, priority, edit, 0);
  }

  /**
   * Moves the message, as read, to {@code pk}/{@code serial} in one transaction: the old item goes
   * (or, {@code keepUntil} > 0, stays as dead-lettered history until then), the new one is put, and
   * the pointer from the id's serial follows it (made, moved or dropped). False when the message
   * changed since it was read.
   */
  private boolean move(
      Msg m,
      Q from,
      Q to,
      String pk,
      long serial,
      int priority,
      Consumer<Map<String, AttributeValue>> edit,
      long keepUntil) {
    forgetHints(m.pk);
    forgetHints(pk);
    Map<String, AttributeValue> item = m.item(pk, serial, priority);
    edit.accept(item);
    // every key the move touches, and what it does there: one action per key
    Map<Map<String, AttributeValue>, TransactWriteItem> actions = new LinkedHashMap<>();
    Map<String, AttributeValue> oldKey = Store.key(m.pk, m.sk());
    // history keeps its pointer, so a dead-lettered message is found by id in its source
    Map<String, AttributeValue> oldPointer =
        m.moved() && keepUntil == 0 ? pointerKey(from, m) : null;
    Map<String, AttributeValue> newKey = Store.key(pk, Msg.sk(serial));
    Map<String, AttributeValue> newPointer =
        serial != m.id ? Store.key(to.partitionOf(priority, m.id), Msg.sk(m.id)) : null;
    Map<String, AttributeValue> condition = Map.of(":ep", Store.n(m.epoch), ":vis", Store.n(m.vis));
    if (keepUntil > 0) {
      actions.put(
          oldKey,
          TransactWriteItem.builder()
              .update(
                  x ->
                      x.tableName(store.table())
                          .key(oldKey)
                          .updateExpression("SET dn = :dn, kp = :kp")
                          .conditionExpression("ep = :ep AND vis = :vis")
                          .expressionAttributeValues(
                              Map.of(
                                  ":ep", Store.n(m.epoch),
                                  ":vis", Store.n(m.vis),
                                  ":dn", Store.s("d"),
                                  ":kp", Store.n(keepUntil))))
              .build());
    } else {
      actions.put(
          oldKey,
          TransactWriteItem.builder()
              .delete(
                  x ->
                      x.tableName(store.table())
                          .key(oldKey)
                          .conditionExpression("ep = :ep AND vis = :vis")
                          .expressionAttributeValues(condition))
              .build());
    }
    boolean onOldPointer = newKey.equals(oldPointer);
    if (oldPointer != null) {
      Map<String, AttributeValue> k = oldPointer;
      actions.put(
          k, TransactWriteItem.builder().delete(x -> x.tableName(store.table()).key(k)).build());
    }
    boolean replacesOld = newKey.equals(oldKey) && keepUntil == 0;
    actions.put(
        newKey,
        TransactWriteItem.builder()
            .put(
                x -> {
                  x.tableName(store.table()).item(item);
                  if (replacesOld) {
                    x.conditionExpression("ep = :ep AND vis = :vis")
                        .expressionAttributeValues(condition);
                  } else if (!onOldPointer) {
                    x.conditionExpression("attribute_not_exists(pk)");
                  }
                })
            .build());
    if (newPointer != null) {
      Map<String, AttributeValue> pointer = new HashMap<>(newPointer);
      pointer.put(Msg.TO, Store.n(serial));
      pointer.put(Msg.ID, Store.n(m.id));
      pointer.put(StoreTable.TTL_ATTRIBUTE, item.get(StoreTable.TTL_ATTRIBUTE));
      boolean replacesMessage = newPointer.equals(oldKey) && keepUntil == 0;
      actions.put(
          newPointer,
          TransactWriteItem.builder()
              .put(
                  x -> {
                    x.tableName(store.table()).item(pointer);
                    if (replacesMessage) {
                      x.conditionExpression("ep = :ep AND vis = :vis")
                          .expressionAttributeValues(condition);
                    }
                  })
              .build());
    }
    try {
      store.call(
          d -> d.transactWriteItems(b -> b.transactItems(new ArrayList<>(actions.values()))));
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

  /** Between a partition key and a selector in a selector's hint's key. */
  private static final String FILTER_KEY = "\u0000";

  /** The most hints a server keeps before it drops them all. */
  private static final int MAX_HINTS = 100_000;

  /**
   * The key of a receive's selector for its own hints: its normalized text when it reads message
   * attributes only (no system fact, so its verdict on a message changes only when the message's
   * attributes do, which drops the hints), else null.
   */
  private static @Nullable String hintKey(@Nullable MessageFilter filter) {
    if (!(filter instanceof io.switchboard.queue.SelectorFilter sf)) {
      return null;
    }
    for (String name : sf.selector().attributeNames()) {
      if (name.startsWith(io.switchboard.selector.SystemFacts.PREFIX)) {
        return null;
      }
    }
    return sf.selector().normalized();
  }

  /** The most items a query of a shard's head reads. */
  private static final int PAGE = 100;

  /**
   * How many items more than it wants a receive's first query of a shard reads: a query is billed
   * per 4 KB it reads, so a few more items than wanted cost nothing more when the bodies are small,
   * and spare a second query when one or two at the head are in flight or delayed.
   */
  private static final int PAGE_MARGIN = 2;

  /**
   * The message items of one priority's shards in the queue's order, merged by serial, so the order
   * across shards is the order of one partition: each shard is read a page at a time, only as far
   * as the merge reaches; the first page of {@code firstPage} items, each next one twice the last,
   * up to {@value #PAGE}, so a receive of one reads about one item where the merge stops at once,
   * and one that reads on past messages in flight needs few queries. Pointers are left out.
   */
  private final class Merged {
    private final boolean forward;
    private final long after;
    private final long visibleAt;
    private final int firstPage;
    private final boolean hinted;
    private final long epoch;
    private final long cap;
    private final List<Shard> shards = new ArrayList<>();
    private @Nullable Shard last;

    private final @Nullable String filterKey;

    Merged(List<String> partitions, boolean forward, long after, long visibleAt, int firstPage) {
      this(partitions, forward, after, visibleAt, firstPage, false, null);
    }

    /**
     * @param after a serial the items come after in the order (a browse's cursor); -1 for none
     * @param visibleAt -1 for every item; else only items visible then (available, or a lease or
     *     delay that ended): the rest are read (and billed) but not given
     * @param firstPage how many items the first query of each shard reads, 1..{@value #PAGE}
     * @param hinted a FIFO receive's merge: each shard starts after this server's hint for it, the
     *     items it reads past are judged here (not by a filter expression), and {@link #keepHints}
     *     records how far the shard's head holds nothing deliverable
     * @param filterKey the receive's selector when it reads message attributes only (its verdict on
     *     a message changes only with the message's attributes): the merge also keeps how far the
     *     head holds nothing this selector could take; null for none
     */
    Merged(
        List<String> partitions,
        boolean forward,
        long after,
        long visibleAt,
        int firstPage,
        boolean hinted,
        @Nullable String filterKey) {
      this.filterKey = filterKey;
      this.forward = forward;
      this.after = after;
      this.visibleAt = visibleAt;
      this.firstPage = Math.max(1, Math.min(PAGE, firstPage));
      this.hinted = hinted && forward && after < 0 && visibleAt >= 0;
      this.epoch = hintEpoch.get();
      // a hint never passes a serial this server is still writing, nor one it takes from now on
      // (above the last it took, and at this millisecond or later)
      Long writing = sending.isEmpty() ? null : sending.first();
      long later = Math.max(lastSerialTaken() | (Shards.MAX - 1), (visibleAt << SERIAL_BITS) - 1);
      this.cap = writing == null ? later : Math.min(writing - 1, later);
      for (String pk : partitions) {
        shards.add(new Shard(pk));
      }
    }

    /** The next item in the order, or null when every shard is read to its end. */
    @Nullable Map<String, AttributeValue> next() {
      Shard best = null;
      long bestSerial = 0;
      for (Shard shard : shards) {
        Map<String, AttributeValue> head = shard.head();
        if (head == null) {
          continue;
        }
        long serial = Long.parseLong(Store.text(head, "sk"));
        if (best == null || (forward ? serial < bestSerial : serial > bestSerial)) {
          best = shard;
          bestSerial = serial;
        }
      }
      last = best;
      return best == null ? null : best.items.get(best.at++);
    }

    /** The item {@link #next} gave was claimed here, and is in flight until {@code until}. */
    void taken(long until) {
      if (last != null) {
        last.passed(until);
      }
    }

    /** The item {@link #next} gave left the queue (expired, dead-lettered, history dropped). */
    void gone() {
      if (last != null) {
        last.passed(Long.MAX_VALUE);
      }
    }

    /** The item {@link #next} gave may still be delivered (it was lost to another claim). */
    void kept() {
      if (last != null) {
        last.open = false;
        last.filterOpen = false;
      }
    }

    /** The item {@link #next} gave is deliverable, but not to this receive's selector. */
    void unmatched() {
      if (last != null) {
        last.open = false;
        if (last.filterOpen) {
          last.filterSerial = Long.parseLong(Store.text(last.items.get(last.at - 1), "sk"));
        }
      }
    }

    /** Records each shard's head that holds nothing deliverable, as this server's hint. */
    void keepHints() {
      if (!hinted) {
        return;
      }
      if (hints.size() > MAX_HINTS) {
        hints.clear(); // many selectors: start again rather than grow
      }
      for (Shard shard : shards) {
        keep(shard.pk, shard.hintSerial, shard.hintUntil);
        if (filterKey != null) {
          keep(shard.pk + FILTER_KEY + filterKey, shard.filterSerial, shard.filterUntil);
        }
      }
    }

    private void keep(String key, long hintSerial, long hintUntil) {
      long serial = Math.min(hintSerial, cap);
      long until = Math.min(hintUntil, visibleAt + cacheMillis);
      if (serial < 0 || until <= visibleAt) {
        return;
      }
      hints.merge(
          key,
          new HeadHint(serial, until),
          (old, mine) -> old.until() > visibleAt && old.serial() >= mine.serial() ? old : mine);
      if (hintEpoch.get() != epoch) {
        hints.remove(key); // dropped meanwhile: what this receive read may be stale
      }
    }

    private @Nullable HeadHint valid(@Nullable HeadHint hint) {
      return hint != null && hint.until() > visibleAt ? hint : null;
    }

    private final class Shard {
      final String pk;
      List<Map<String, AttributeValue>> items = List.of();
      int at;
      @Nullable Map<String, AttributeValue> start;
      boolean read;
      int limit = firstPage;
      long from = after;

      /** Hinted: the last serial of the head that holds nothing deliverable, -1 for none. */
      long hintSerial = -1;

      long hintUntil = Long.MAX_VALUE;

      /** Hinted: whether every item read so far is past delivery (the head is still unbroken). */
      boolean open = true;

      /** As {@link #hintSerial}, counting what the receive's selector does not take as passed. */
      long filterSerial = -1;

      long filterUntil = Long.MAX_VALUE;
      boolean filterOpen;

      Shard(String pk) {
        this.pk = pk;
        filterOpen = filterKey != null;
        if (hinted) {
          HeadHint all = valid(hints.get(pk));
          HeadHint mine = filterKey == null ? null : valid(hints.get(pk + FILTER_KEY + filterKey));
          if (all != null && (mine == null || all.serial() >= mine.serial())) {
            from = all.serial();
            hintSerial = all.serial();
            hintUntil = all.until();
            filterSerial = all.serial();
            filterUntil = all.until();
          } else if (mine != null) {
            from = mine.serial();
            open = false; // the head before the selector's hint is not read: nothing to keep of it
            filterSerial = mine.serial();
            filterUntil = mine.until();
          }
        }
      }

      void passed(long until) {
        advance(Long.parseLong(Store.text(items.get(at - 1), "sk")), until);
      }

      @Nullable Map<String, AttributeValue> head() {
        while (true) {
          while (at < items.size()) {
            Map<String, AttributeValue> item = items.get(at);
            if (Msg.pointer(item)) {
              at++;
              passedHere(item, Long.MAX_VALUE);
              continue;
            }
            if (hinted) {
              if (item.containsKey(Msg.DONE) && Store.num(item, Msg.KEEP) > visibleAt) {
                at++;
                passedHere(item, Store.num(item, Msg.KEEP));
                continue;
              }
              long vis = Store.num(item, Msg.VISIBLE);
              if (!item.containsKey(Msg.DONE) && vis > visibleAt) {
                at++;
                passedHere(item, vis);
                continue;
              }
            }
            return item;
          }
          if (read && start == null) {
            return null;
          }
          QueryResponse page = shardPage(pk, forward, start, from, hinted ? -1 : visibleAt, limit);
          items = page.items();
          at = 0;
          start = DynamoQueueEngine.next(page);
          read = true;
          limit = Math.min(PAGE, limit * 2);
        }
      }

      private void passedHere(Map<String, AttributeValue> item, long until) {
        if (hinted) {
          advance(Long.parseLong(Store.text(item, "sk")), until);
        }
      }

      /**
       * The hints still open move past {@code serial}, holding until {@code until} at the latest.
       */
      private void advance(long serial, long until) {
        if (open) {
          hintSerial = serial;
          hintUntil = Math.min(hintUntil, until);
        }
        if (filterOpen) {
          filterSerial = serial;
          filterUntil = Math.min(filterUntil, until);
        }
      }
    }
  }

  private QueryResponse shardPage(
      String pk,
      boolean forward,
      @Nullable Map<String, AttributeValue> start,
      long after,
      long visibleAt,
      int limit) {
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":p", Store.s(pk));
    String key = "pk = :p";
    if (after >= 0) {
      key += forward ? " AND sk > :after" : " AND sk < :after";
      values.put(":after", Store.s(Msg.sk(after)));
    }
    String condition = key;
    return store.call(
        d ->
            d.query(
                b -> {
                  b.tableName(store.table())
                      .consistentRead(true)
                      .scanIndexForward(forward)
                      .limit(limit)
                      .keyConditionExpression(condition);
                  if (visibleAt >= 0) {
                    b.filterExpression(
                            "vis <= :now AND attribute_not_exists(dn) AND attribute_not_exists(#to)")
                        .expressionAttributeNames(Map.of("#to", Msg.TO));
                    values.put(":now", Store.n(visibleAt));
                  }
                  b.expressionAttributeValues(values);
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
    addPending(q);
    Map<String, AttributeValue> item = store.get("c#" + q.name(), Long.toString(q.gen()));
    long[] c = new long[COUNTER_NAMES.length];
    if (item != null) {
      for (int i = 0; i < c.length; i++) {
        c[i] = Store.num(item, COUNTER_NAMES[i]);
      }
    }
    return new QueueStats.Counters(
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], 0); // no keyLimit here
  }

  /**
   * Adds every queue's pending counts to its counters item: at each sweep and at close, so another
   * server's stats see them without this one being asked for its own. A queue deleted meanwhile
   * drops its counts; a failed write keeps them for the next time.
   */
  private void flushCounters() {
    for (String name : List.copyOf(pending.keySet())) {
      Q q = find(name);
      if (q == null) {
        pending.remove(name);
        continue;
      }
      try {
        addPending(q);
      } catch (RuntimeException e) {
        // kept in pending (addPending put them back): counted at the next flush or stats
      }
    }
  }

  /** Adds this engine's pending counts of {@code q} to its counters item. */
  private void addPending(Q q) {
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
        Map<String, AttributeValue> after;
        try {
          after =
              store
                  .call(
                      d ->
                          d.updateItem(
                              b ->
                                  b.tableName(store.table())
                                      .key(Store.key("c#" + q.name(), Long.toString(q.gen())))
                                      .updateExpression(update.toString())
                                      .expressionAttributeValues(values)
                                      .returnValues(ReturnValue.UPDATED_NEW)))
                  .attributes();
        } catch (RuntimeException e) {
          for (int i = 0; i < taken.length; i++) {
            mine.addAndGet(i, taken[i]); // counted next time
          }
          throw e;
        }
        if (taken[SENT] != 0 && after != null && after.containsKey(COUNTER_NAMES[SENT])) {
          judgeSends(q, Store.num(after, COUNTER_NAMES[SENT]));
        }
      }
    }
  }

  // ---- shards ------------------------------------------------------------------------------

  /**
   * The automatic rule ({@link Builder#shardRate}): {@code sent} is the queue's count of sends
   * after this engine added its own, which every server adds to at its sweeps, so its growth
   * between two of this engine's flushes at least two sweep intervals apart is the queue's send
   * rate (within a sweep's lag of the other servers' counts). A rate above {@code shardRate} a
   * shard raises the count to the power of two that covers it, at most {@code maxShards}; a count
   * never falls by this rule. A failure to raise is left to the next flush.
   */
  private void judgeSends(Q q, long sent) {
    if (shardRate <= 0
        || !q.shards().changeable()
        || q.shards().count() >= maxShards
        || !q.config().indexedAttributes().isEmpty()
        || !q.parts().slots().isEmpty()) {
      return;
    }
    long now = clock.millis();
    String key = q.name() + "#" + q.gen();
    long[] seen = sendsSeen.putIfAbsent(key, new long[] {now, sent});
    if (seen == null || now - seen[0] < 2 * sweepMillis) {
      return;
    }
    double rate = (sent - seen[1]) * 1000.0 / (now - seen[0]);
    sendsSeen.put(key, new long[] {now, sent});
    int needed = (int) Math.min(Shards.MAX, Math.ceil(rate / shardRate));
    if (needed <= q.shards().count()) {
      return;
    }
    int next = Math.min(maxShards, Integer.highestOneBit(needed - 1) << 1);
    try {
      setShards(q.name(), next, true);
    } catch (RuntimeException e) {
      // the store refused or the queue went: judged again at the next flush
    }
  }

  /**
   * Sets a queue's shard count from the next serial on: an entry added to its list, nothing moved
   * ({@link Shards}). With {@code raiseOnly}, a count already at or above it stays. False for a
   * queue made before shards, which keeps one.
   */
  boolean setShards(String name, int count, boolean raiseOnly) {
    Shards.check(count, "shards");
    while (true) {
      Q q = current(name); // not this server's copy: a lost race must read the winner's list
      Shards now = q.shards();
      if (!now.changeable()) {
        return false;
      }
      if (now.count() == count || (raiseOnly && now.count() > count)) {
        return true;
      }
      Shards next = now.withCount(nextSerial(clock.millis()), count);
      if (store.updateIf(
          Store.key(QUEUES, name),
          "SET " + Shards.ATTRIBUTE + " = :new",
          "gen = :gen AND " + Shards.ATTRIBUTE + " = :old",
          Map.of(
              ":new", Store.s(next.encode()),
              ":old", Store.s(now.encode()),
              ":gen", Store.n(q.gen())))) {
        items.forget(name);
        return true;
      }
      // another server changed the list (or the queue went): read it again
    }
  }

  // ---- the rest ----------------------------------------------------------------------------

  @Override
  public void onMessageEvent(java.util.function.Consumer<? super MessageEvent> listener) {
    events.add(listener);
  }

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
    if (closed) {
      return;
    }
    closed = true;
    ticker.close();
    sweeper.close();
    redriver.close();
    flushCounters(); // what this server counted stays counted for the others
    if (ownClient != null) {
      ownClient.close();
    }
    wake();
  }
}
