package io.switchboard.tck.model;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueStats;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A deliberately naive executable reading of docs/design.md "Queue semantics" and the Javadoc of
 * {@code QueueEngine}: every queue is a plain list, every question a linear scan. It is written
 * from the documents, not from any engine, so that the randomized test compares two independent
 * answers.
 *
 * <p>Every operation either refuses with a {@link ModelRefusal} and changes nothing, or succeeds.
 * Time moves only through {@link #advance}. Timers are due when their time is at or before now, and
 * fire in time order; at the same millisecond an expiry fires before a lease or delay ends (an
 * expired message is never visible again), expiries in arrival order, lease ends in creation order.
 * A queue's due timers fire when it is operated on and on every advance, as with lazy engines; the
 * driver reads every queue's stats after each step, so nothing due is left pending between steps.
 *
 * <p>Points the documents leave open and where the model takes a side, so that engines agree:
 *
 * <ul>
 *   <li>A message moved into a queue (dead-lettered, redriven, restored) counts as neither sent nor
 *       received there; its expiry restarts with the target's retention; it gets a new place: a
 *       dead-lettered message is newest, a redriven or restored one goes to the back (for a LIFO
 *       queue: behind everything), as {@code restore} documents.
 *   <li>A move out of the queue and back ends every earlier lease: its receipts are stale.
 *   <li>A receipt whose lease ran out, with no receive since, still acks (only a later receive
 *       makes it stale); release, extend, fail and deadLetter need the lease to be current.
 * </ul>
 */
public final class ReferenceQueueModel {

  static final long DEDUP_WINDOW_MILLIS = Duration.ofMinutes(5).toMillis();
  static final long MAX_VISIBILITY_MILLIS = QueueConfig.MAX_VISIBILITY.toMillis();
  static final long MAX_DELAY_MILLIS = QueueConfig.MAX_DELAY.toMillis();

  /** One entry of a send: the message enqueued, or the original a duplicate refers to. */
  public record SendEntry(ModelMessage message, boolean duplicate) {}

  /** A lease the model handed out; {@code queue} null marks a receipt no queue issued. */
  public record Lease(ModelMessage message, @Nullable String queue, int epoch) {
    // Its null message is never read: checkIssuer refuses a lease without a queue first.
    @SuppressWarnings("NullAway")
    public static Lease bogus() {
      return new Lease(null, null, -1);
    }
  }

  /** A received message: its lease and what the receive must show. */
  public record Received(Lease lease, ModelView view) {}

  /** One page of a browse; {@code next} is where the next page starts. */
  public record BrowsePage(List<ModelView> items, Optional<Cursor> next) {}

  /** A browse position: the delivery-order key of the last item shown. */
  public record Cursor(int priority, long seq, long created) {}

  /** Expected statistics of one queue. */
  public record Stats(
      long available,
      long delayed,
      long inFlight,
      Optional<Duration> oldestAge,
      Map<Integer, Long> byPriority,
      QueueStats.Counters counters) {}

  /** A completed redrive. */
  public record Redrive(long moved, long toMove) {}

  private final Map<String, ModelQueue> queues = new LinkedHashMap<>();
  private long now;
  private long nextCreated = 1;
  private long nextSeq = 1;
  private long nextArrival = 1;

  public ReferenceQueueModel(long startMillis) {
    this.now = startMillis;
  }

  public long now() {
    return now;
  }

  public void createQueue(String name, QueueConfig config) {
    queues.put(name, new ModelQueue(name, config));
  }

  public List<String> queueNames() {
    return List.copyOf(queues.keySet());
  }

  public QueueConfig config(String queue) {
    return queue(queue).config;
  }

  /** Messages now in the queue, in no particular order. */
  public List<ModelMessage> messages(String queue) {
    return List.copyOf(queue(queue).messages);
  }

  /** Moves time forward and fires every queue's due timers, queue by queue. */
  public void advance(long millis) {
    now += millis;
    for (ModelQueue q : queues.values()) {
      fire(q);
    }
  }

  /** The earliest time after now at which anything in the model changes by itself. */
  public long nextDue() {
    long due = Long.MAX_VALUE;
    for (ModelQueue q : queues.values()) {
      for (ModelMessage m : q.messages) {
        due = Math.min(due, m.expiresAt);
        if (m.state != MessageState.AVAILABLE) {
          due = Math.min(due, m.visibleAt);
        }
      }
      for (ModelQueue.DedupEntry e : q.dedup.values()) {
        due = e.until() > now ? Math.min(due, e.until()) : due;
      }
      for (ModelQueue.HistoryEntry e : q.history.values()) {
        due = e.until() > now ? Math.min(due, e.until()) : due;
      }
    }
    return due;
  }

  // ---- send ------------------------------------------------------------------------------

  public List<SendEntry> send(String queueName, List<NewMessage> batch) {
    ModelQueue q = queue(queueName);
    List<String> keys = new ArrayList<>();
    for (NewMessage m : batch) {
      keys.add(validate(q, m));
    }
    fire(q);
    int fresh = 0;
    Set<String> seen = new HashSet<>();
    for (String key : keys) {
      if (key == null || (liveDedup(q, key) == null && seen.add(key))) {
        fresh++;
      }
    }
    makeRoom(q, fresh);
    List<SendEntry> out = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      String key = keys.get(i);
      ModelQueue.DedupEntry dup = key == null ? null : liveDedup(q, key);
      if (dup != null) {
        q.duplicates++;
        out.add(new SendEntry(dup.original(), true));
        continue;
      }
      ModelMessage m = create(q, batch.get(i));
      q.sent++;
      if (key != null) {
        q.dedup.put(key, new ModelQueue.DedupEntry(m, now + DEDUP_WINDOW_MILLIS));
      }
      out.add(new SendEntry(m, false));
    }
    return out;
  }

  /** Checks one message and returns its deduplication key (null: no deduplication). */
  private @Nullable String validate(ModelQueue q, NewMessage m) {
    if (q.grouped && m.groupId().isEmpty()) {
      throw refuse(ErrorCode.INVALID_ARGUMENT, "groupId is required on a grouped queue");
    }
    if (m.delay().isPresent() && m.delay().get().toMillis() > MAX_DELAY_MILLIS) {
      throw refuse(ErrorCode.INVALID_ARGUMENT, "delay beyond 900 s");
    }
    if (m.timeToLive().isPresent()) {
      long ttl = m.timeToLive().get().toMillis();
      if (ttl < 1 || ttl > q.config.retention().toMillis()) {
        throw refuse(ErrorCode.INVALID_ARGUMENT, "timeToLive beyond retention");
      }
    }
    String dedupId = dedupIdOf(q, m);
    if (dedupId == null && q.grouped) {
      throw refuse(ErrorCode.INVALID_ARGUMENT, "deduplicationId is required");
    }
    if (dedupId == null) {
      return null;
    }
    return switch (q.config.dedupScope()) {
      case QUEUE -> dedupId;
      case GROUP -> m.groupId().orElse("") + "/" + dedupId;
    };
  }

  private static @Nullable String dedupIdOf(ModelQueue q, NewMessage m) {
    if (m.deduplicationId().isPresent()) {
      return m.deduplicationId().get();
    }
    return q.config.contentBasedDeduplication() ? sha256(m.body()) : null;
  }

  private ModelQueue.@Nullable DedupEntry liveDedup(ModelQueue q, String key) {
    ModelQueue.DedupEntry e = q.dedup.get(key);
    return e != null && e.until() > now ? e : null;
  }

  private void makeRoom(ModelQueue q, int fresh) {
    if (q.config.maxDepth().isEmpty() || fresh == 0) {
      return;
    }
    long max = q.config.maxDepth().getAsLong();
    long excess = q.messages.size() + fresh - max;
    if (excess <= 0) {
      return;
    }
    long droppable = q.messages.size() - q.count(MessageState.IN_FLIGHT);
    if (q.config.overflow() == Overflow.REJECT || droppable < excess || fresh > max) {
      throw refuse(ErrorCode.QUEUE_FULL, "queue '" + q.name + "' is full");
    }
    for (long i = 0; i < excess; i++) {
      ModelMessage oldest = null;
      for (ModelMessage m : q.messages) {
        if (m.state != MessageState.IN_FLIGHT && (oldest == null || m.arrival < oldest.arrival)) {
          oldest = m;
        }
      }
      q.messages.remove(oldest);
      q.shed++;
    }
  }

  private ModelMessage create(ModelQueue q, NewMessage n) {
    ModelMessage m =
        new ModelMessage(
            nextCreated++,
            n.body(),
            n.attributes(),
            n.priority(),
            n.groupId().orElse(null),
            dedupIdOf(q, n),
            now);
    m.seq = nextSeq++;
    m.arrival = nextArrival++;
    long delay = n.delay().orElse(q.config.delay()).toMillis();
    m.state = delay > 0 ? MessageState.DELAYED : MessageState.AVAILABLE;
    m.visibleAt = delay > 0 ? now + delay : 0;
    m.expiresAt = now + n.timeToLive().orElse(q.config.retention()).toMillis();
    q.messages.add(m);
    return m;
  }

  // ---- receive ---------------------------------------------------------------------------

  /** Leases up to {@code max} eligible messages; {@code visibilityMillis} null: the queue's. */
  public List<Received> receive(
      String queueName,
      int max,
      @Nullable Long visibilityMillis,
      @Nullable AttributeFilter filter) {
    ModelQueue q = queue(queueName);
    fire(q);
    List<ModelMessage> taken = q.grouped ? takeGrouped(q, max, filter) : take(q, max, filter);
    long visibility =
        visibilityMillis != null ? visibilityMillis : q.config.visibilityTimeout().toMillis();
    List<Received> out = new ArrayList<>();
    for (ModelMessage m : taken) {
      m.state = MessageState.IN_FLIGHT;
      m.receiveCount++;
      m.epoch++;
      if (m.firstReceivedAt == 0) {
        m.firstReceivedAt = now;
      }
      m.leasedAt = now;
      m.visibleAt = now + visibility;
      q.received++;
      out.add(new Received(new Lease(m, q.name, m.epoch), m.view(null)));
    }
    return out;
  }

  private List<ModelMessage> take(ModelQueue q, int max, @Nullable AttributeFilter filter) {
    List<ModelMessage> out = new ArrayList<>();
    for (ModelMessage m : sorted(q)) {
      if (out.size() < max && m.state == MessageState.AVAILABLE && accepts(filter, m)) {
        out.add(m);
      }
    }
    return out;
  }

  /**
   * SQS FIFO: the best head among groups whose head is available and accepted, then the available
   * messages right behind it in its group up to the first one that is not, then the next group.
   * Heads go by priority, then their place in time (when last received, or sent if never received;
   * at the same instant one never received first), then send order.
   */
  private List<ModelMessage> takeGrouped(ModelQueue q, int max, @Nullable AttributeFilter filter) {
    List<ModelMessage> out = new ArrayList<>();
    Set<String> used = new HashSet<>();
    while (out.size() < max) {
      ModelMessage best = null;
      for (ModelMessage head : groupHeads(q)) {
        if (!used.contains(head.groupId)
            && accepts(filter, head)
            && (best == null || HEAD_ORDER.compare(head, best) < 0)) {
          best = head;
        }
      }
      if (best == null) {
        break;
      }
      used.add(best.groupId);
      for (ModelMessage m : groupLine(q, best.group())) {
        if (out.size() >= max || m.state != MessageState.AVAILABLE) {
          break;
        }
        out.add(m);
      }
    }
    return out;
  }

  private static final java.util.Comparator<ModelMessage> HEAD_ORDER =
      java.util.Comparator.comparingInt((ModelMessage m) -> -m.priority)
          .thenComparingLong(m -> m.receiveCount > 0 ? m.leasedAt : m.sentAt)
          .thenComparing(m -> m.receiveCount > 0)
          .thenComparingLong(m -> m.seq);

  /** Heads of groups whose first message is available. */
  private List<ModelMessage> groupHeads(ModelQueue q) {
    List<ModelMessage> heads = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (ModelMessage m : q.messages) {
      if (seen.add(m.groupId)) {
        List<ModelMessage> line = groupLine(q, m.group());
        if (line.get(0).state == MessageState.AVAILABLE) {
          heads.add(line.get(0));
        }
      }
    }
    return heads;
  }

  /** A group's messages in send order (arrival in the queue). */
  private static List<ModelMessage> groupLine(ModelQueue q, String groupId) {
    List<ModelMessage> line = new ArrayList<>();
    for (ModelMessage m : q.messages) {
      if (m.group().equals(groupId)) {
        line.add(m);
      }
    }
    line.sort((a, b) -> Long.compare(a.seq, b.seq));
    return line;
  }

  private static boolean accepts(@Nullable AttributeFilter filter, ModelMessage m) {
    return filter == null || filter.test(m.attributes, m.priority);
  }

  // ---- lease operations ------------------------------------------------------------------

  public void ack(String queueName, Lease lease) {
    ModelQueue q = queue(queueName);
    fire(q);
    checkIssuer(q, lease);
    if (!q.contains(lease.message())) {
      return;
    }
    if (lease.message().epoch != lease.epoch()) {
      throw refuse(ErrorCode.RECEIPT_STALE, "received again since");
    }
    if (q.grouped && lease.message().state != MessageState.IN_FLIGHT) {
      throw refuse(ErrorCode.MESSAGE_NOT_IN_FLIGHT, "a grouped queue's lease ended");
    }
    q.messages.remove(lease.message());
    q.acked++;
    remember(q, lease.message(), MessageState.COMPLETED);
  }

  public void release(String queueName, Lease lease, long delayMillis, boolean toBack) {
    ModelQueue q = queue(queueName);
    fire(q);
    if (delayMillis < 0 || delayMillis > MAX_DELAY_MILLIS) {
      throw refuse(ErrorCode.INVALID_ARGUMENT, "delay must be 0..900 s");
    }
    if (toBack && q.grouped) {
      throw refuse(ErrorCode.CONFLICT, "release to the back on a grouped queue");
    }
    ModelMessage m = current(q, lease);
    q.released++;
    if (exhausted(q, m)) {
      deadLetter(q, m);
      return;
    }
    if (toBack) {
      m.seq = backSeq(q);
    }
    if (delayMillis == 0) {
      m.state = MessageState.AVAILABLE;
      m.visibleAt = 0;
    } else {
      m.state = MessageState.DELAYED;
      m.visibleAt = now + delayMillis;
    }
  }

  public ModelView extend(String queueName, Lease lease, long visibilityMillis) {
    ModelQueue q = queue(queueName);
    fire(q);
    if (visibilityMillis < 0 || visibilityMillis > MAX_VISIBILITY_MILLIS) {
      throw refuse(ErrorCode.INVALID_ARGUMENT, "visibilityTimeout must be 0..12 h");
    }
    ModelMessage m = latest(q, lease);
    if (now + visibilityMillis > m.leasedAt + MAX_VISIBILITY_MILLIS) {
      throw refuse(ErrorCode.INVALID_ARGUMENT, "lease would end more than 12 h after receive");
    }
    if (m.state == MessageState.AVAILABLE) {
      // the lease ran out and nobody received it since: the receipt may hide it again (as SQS)
      if (visibilityMillis > 0) {
        m.state = MessageState.IN_FLIGHT;
        m.visibleAt = now + visibilityMillis;
      }
      return m.view(null);
    }
    if (m.state != MessageState.IN_FLIGHT) {
      throw refuse(ErrorCode.MESSAGE_NOT_IN_FLIGHT, "lease ran out");
    }
    if (visibilityMillis > 0) {
      m.visibleAt = now + visibilityMillis;
      return m.view(null);
    }
    q.released++;
    if (exhausted(q, m)) {
      ModelView left = m.view(MessageState.DEAD_LETTERED);
      deadLetter(q, m);
      return q.contains(m) ? m.view(null) : left;
    }
    m.state = MessageState.AVAILABLE;
    m.visibleAt = 0;
    return m.view(null);
  }

  public void fail(String queueName, Lease lease) {
    ModelQueue q = queue(queueName);
    fire(q);
    ModelMessage m = current(q, lease);
    q.messages.remove(m);
    q.failed++;
    remember(q, m, MessageState.FAILED);
  }

  public void deadLetter(String queueName, Lease lease) {
    ModelQueue q = queue(queueName);
    fire(q);
    requireDeadLetterTarget(q);
    deadLetter(q, current(q, lease));
  }

  private static void checkIssuer(ModelQueue q, Lease lease) {
    if (lease.queue() == null || !lease.queue().equals(q.name)) {
      throw refuse(ErrorCode.RECEIPT_INVALID, "receipt not issued by queue '" + q.name + "'");
    }
  }

  /** The message of a lease that is still current and in flight. */
  private ModelMessage current(ModelQueue q, Lease lease) {
    ModelMessage m = latest(q, lease);
    if (m.state != MessageState.IN_FLIGHT) {
      throw refuse(ErrorCode.MESSAGE_NOT_IN_FLIGHT, "lease ran out");
    }
    return m;
  }

  /** The message of the queue's latest lease of it, whatever its state now. */
  private ModelMessage latest(ModelQueue q, Lease lease) {
    checkIssuer(q, lease);
    ModelMessage m = lease.message();
    if (!q.contains(m)) {
      throw refuse(ErrorCode.MESSAGE_NOT_FOUND, "message no longer in the queue");
    }
    if (m.epoch != lease.epoch()) {
      throw refuse(ErrorCode.RECEIPT_STALE, "received again since");
    }
    return m;
  }

  // ---- by-id operations ------------------------------------------------------------------

  public void deadLetterById(String queueName, String id) {
    ModelQueue q = queue(queueName);
    fire(q);
    requireDeadLetterTarget(q);
    deadLetter(q, require(q, id));
  }

  public ModelView update(String queueName, String id, MessageUpdate update) {
    ModelQueue q = queue(queueName);
    fire(q);
    ModelMessage m = require(q, id);
    update.attributes().ifPresent(a -> m.attributes = Map.copyOf(a));
    update.priority().ifPresent(p -> m.priority = p);
    return m.view(null);
  }

  public ModelView touch(String queueName, String id) {
    ModelQueue q = queue(queueName);
    fire(q);
    if (q.grouped) {
      throw refuse(ErrorCode.CONFLICT, "touch on a grouped queue");
    }
    ModelMessage m = require(q, id);
    m.seq = backSeq(q);
    return m.view(null);
  }

  public void remove(String queueName, String id) {
    ModelQueue q = queue(queueName);
    fire(q);
    q.messages.remove(require(q, id));
    q.removed++;
  }

  public ModelView get(String queueName, String id) {
    ModelQueue q = queue(queueName);
    fire(q);
    ModelMessage m = q.byId(id);
    if (m != null) {
      return m.view(null);
    }
    ModelQueue.HistoryEntry h = q.history.get(id);
    if (h != null && h.until() > now) {
      return h.record();
    }
    throw refuse(ErrorCode.MESSAGE_NOT_FOUND, "no message '" + id + "'");
  }

  private static Cursor cursorAt(ModelMessage m) {
    return new Cursor(m.priority, m.seq, m.created);
  }

  public BrowsePage browse(
      String queueName,
      int limit,
      Optional<Cursor> after,
      @Nullable AttributeFilter filter,
      boolean includeInvisible) {
    ModelQueue q = queue(queueName);
    fire(q);
    List<ModelView> items = new ArrayList<>();
    ModelMessage last = null;
    boolean more = false;
    for (ModelMessage m : sorted(q)) {
      if ((!includeInvisible && m.state != MessageState.AVAILABLE)
          || (after.isPresent() && compare(q, m, after.get()) <= 0)
          || !accepts(filter, m)) {
        continue;
      }
      if (items.size() == limit) {
        more = true;
        break;
      }
      items.add(m.view(null));
      last = m;
    }
    return new BrowsePage(
        items, more ? Optional.of(cursorAt(Objects.requireNonNull(last))) : Optional.empty());
  }

  private static int compare(ModelQueue q, ModelMessage m, Cursor c) {
    int byPriority = Integer.compare(c.priority(), m.priority);
    if (byPriority != 0) {
      return byPriority;
    }
    int bySeq = Long.compare(m.seq, c.seq());
    if (!q.grouped && q.config.order() == Order.LIFO) {
      bySeq = -bySeq;
    }
    return bySeq != 0 ? bySeq : Long.compare(m.created, c.created());
  }

  public long purge(String queueName) {
    ModelQueue q = queue(queueName);
    fire(q);
    long n = q.messages.size();
    q.messages.clear();
    q.dedup.clear(); // a message sent again after a purge is delivered (as SQS)
    q.removed += n;
    return n;
  }

  public Stats stats(String queueName) {
    ModelQueue q = queue(queueName);
    fire(q);
    Map<Integer, Long> byPriority = new TreeMap<>((a, b) -> Integer.compare(b, a));
    long oldest = Long.MAX_VALUE;
    for (ModelMessage m : q.messages) {
      byPriority.merge(m.priority, 1L, Long::sum);
      oldest = Math.min(oldest, m.sentAt);
    }
    return new Stats(
        q.count(MessageState.AVAILABLE),
        q.count(MessageState.DELAYED),
        q.count(MessageState.IN_FLIGHT),
        q.messages.isEmpty() ? Optional.empty() : Optional.of(Duration.ofMillis(now - oldest)),
        new LinkedHashMap<>(byPriority),
        q.counters());
  }

  // ---- dead-letter queues ----------------------------------------------------------------

  /** Moves every message now in {@code source} that is not leased, in delivery order. */
  public Redrive redrive(String sourceName, Optional<String> destination) {
    ModelQueue source = queue(sourceName);
    if (destination.isPresent()) {
      ModelQueue target = queue(destination.get());
      if (target.grouped != source.grouped || target == source) {
        throw refuse(ErrorCode.INVALID_ARGUMENT, "destination of another kind or itself");
      }
    }
    fire(source);
    List<ModelMessage> snapshot = sorted(source);
    long moved = 0;
    for (ModelMessage m : snapshot) {
      if (m.state == MessageState.IN_FLIGHT) {
        continue;
      }
      String target = destination.orElse(m.deadLetterSource);
      if (target == null || !queues.containsKey(target)) {
        continue;
      }
      source.messages.remove(m);
      moveIn(queues.get(target), m, true);
      moved++;
    }
    return new Redrive(moved, snapshot.size());
  }

  public ModelView restore(String deadLetterQueue, String id) {
    ModelQueue q = queue(deadLetterQueue);
    fire(q);
    ModelMessage m = require(q, id);
    if (m.deadLetterSource == null) {
      throw refuse(ErrorCode.CONFLICT, "not dead-lettered from another queue");
    }
    ModelQueue target = queue(m.deadLetterSource);
    if (m.state == MessageState.IN_FLIGHT) {
      throw refuse(ErrorCode.CONFLICT, "leased");
    }
    q.messages.remove(m);
    moveIn(target, m, true);
    return m.view(null);
  }

  private void requireDeadLetterTarget(ModelQueue q) {
    if (q.config.deadLetter().isEmpty()) {
      throw refuse(ErrorCode.CONFLICT, "queue '" + q.name + "' has no dead-letter target");
    }
  }

  private static boolean exhausted(ModelQueue q, ModelMessage m) {
    return q.config.deadLetter().isPresent()
        && m.receiveCount >= q.config.deadLetter().get().maxReceiveCount();
  }

  /** Takes {@code m} out of {@code q} and into q's dead-letter queue. */
  private void deadLetter(ModelQueue q, ModelMessage m) {
    if (q.config.deadLetter().get().target().equals(q.name)) {
      // its own target: the message stays in its place, available, its receive count reset
      q.deadLettered++;
      m.receiveCount = 0;
      m.state = MessageState.AVAILABLE;
      m.visibleAt = 0;
      return;
    }
    q.messages.remove(m);
    q.deadLettered++;
    remember(q, m, MessageState.DEAD_LETTERED);
    m.deadLetterSource = q.name;
    moveIn(queue(q.config.deadLetter().get().target()), m, false);
  }

  private void moveIn(ModelQueue target, ModelMessage m, boolean redrive) {
    fire(target);
    m.seq = redrive ? backSeq(target) : nextSeq++;
    m.arrival = nextArrival++;
    m.epoch++;
    m.state = MessageState.AVAILABLE;
    m.visibleAt = 0;
    m.expiresAt = now + target.config.retention().toMillis();
    if (redrive) {
      m.receiveCount = 0;
      m.deadLetterSource = null;
    }
    target.messages.add(m);
  }

  // ---- timers ----------------------------------------------------------------------------

  /** Fires the queue's due timers one by one in time order. */
  private void fire(ModelQueue q) {
    while (true) {
      ModelMessage expiring = null;
      ModelMessage returning = null;
      for (ModelMessage m : q.messages) {
        if (m.expiresAt <= now
            && (expiring == null
                || m.expiresAt < expiring.expiresAt
                || (m.expiresAt == expiring.expiresAt && m.arrival < expiring.arrival))) {
          expiring = m;
        }
        if (m.state != MessageState.AVAILABLE
            && m.visibleAt <= now
            && (returning == null
                || m.visibleAt < returning.visibleAt
                || (m.visibleAt == returning.visibleAt && m.created < returning.created))) {
          returning = m;
        }
      }
      if (expiring != null && (returning == null || expiring.expiresAt <= returning.visibleAt)) {
        q.expired++;
        if (q.config.onExpire() == ExpiryAction.DEAD_LETTER) {
          deadLetter(q, expiring);
        } else {
          q.messages.remove(expiring);
        }
      } else if (returning != null) {
        if (returning.state == MessageState.IN_FLIGHT) {
          q.released++;
          if (exhausted(q, returning)) {
            deadLetter(q, returning);
            continue;
          }
        }
        returning.state = MessageState.AVAILABLE;
        returning.visibleAt = 0;
      } else {
        return;
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

  private ModelQueue queue(String name) {
    ModelQueue q = queues.get(name);
    if (q == null) {
      throw refuse(ErrorCode.QUEUE_NOT_FOUND, "queue '" + name + "' does not exist");
    }
    return q;
  }

  private static ModelMessage require(ModelQueue q, String id) {
    ModelMessage m = q.byId(id);
    if (m == null) {
      throw refuse(ErrorCode.MESSAGE_NOT_FOUND, "no message '" + id + "'");
    }
    return m;
  }

  private List<ModelMessage> sorted(ModelQueue q) {
    List<ModelMessage> all = new ArrayList<>(q.messages);
    all.sort(q.order());
    return all;
  }

  /** "To the back": behind every message of equal priority now in the queue. */
  private long backSeq(ModelQueue q) {
    return !q.grouped && q.config.order() == Order.LIFO ? --q.backSeq : nextSeq++;
  }

  private void remember(ModelQueue q, ModelMessage m, MessageState state) {
    long keep = q.config.historyRetention().toMillis();
    if (keep > 0) {
      q.history.put(m.id, new ModelQueue.HistoryEntry(m.view(state), now + keep));
    }
  }

  private static ModelRefusal refuse(ErrorCode code, String message) {
    return new ModelRefusal(code, message);
  }

  static String sha256(String body) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** For failure messages: the model's view of every queue. */
  public String dump() {
    StringBuilder sb = new StringBuilder();
    for (ModelQueue q : queues.values()) {
      sb.append("  ").append(q.name).append(":");
      for (ModelMessage m : sorted(q)) {
        sb.append(' ').append(m.body).append('/').append(m.state.wireName().charAt(0));
        sb.append("/p").append(m.priority).append("/rc").append(m.receiveCount);
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
