package io.switchboard.server.observability;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.switchboard.client.PushWire;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.QueueOverview;
import io.switchboard.queue.QueueStats;
import io.switchboard.routing.RoutingStats;
import io.switchboard.server.api.routing.AssignmentCallbacks;
import io.switchboard.server.auth.MoveRights;
import io.switchboard.server.http.ConnectionLimits;
import io.switchboard.server.http.EventStreamLimits;
import io.switchboard.server.http.ReadTimeouts;
import io.switchboard.server.http.RequestGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The server's Prometheus metrics. Request latencies are timed as they happen, per operation and
 * status. Queue figures are read from the engine when scraped, not kept twice: a scrape takes the
 * engine's {@link QueueOverview} (totals over every queue, without a snapshot of each) and the
 * stats of the queues its {@link MetricsScope} shows (the deepest, the oldest and the named),
 * registers meters for queues it starts showing and removes those of queues it no longer shows.
 *
 * <p>Names: {@code switchboard_queues}, {@code switchboard_messages{state}} (all queues), {@code
 * switchboard_http_requests_seconds{operation,status}}, {@code
 * switchboard_queue_messages{queue,state}}, {@code switchboard_queue_oldest_age_seconds{queue}},
 * {@code switchboard_queue_waiting_receivers{queue}}, {@code
 * switchboard_queue_events_total{queue,event}}, the routing figures of {@link RoutingMetrics},
 * {@code switchboard_routing_leader} (1 while this server runs the router), plus JVM and process
 * meters.
 *
 * <p>Limits ({@code docs/operations.md}, "Limits"), one scheme for all of them: {@code
 * switchboard_limit{limit}} is each limit's value (the setting's key as {@code limit}), {@code
 * switchboard_limit_used{limit}} its use: the server's, and for a per-queue (per-client) limit the
 * use of the queue (client) nearest to it; the caps on connections, long polls and event streams
 * also count what they refused in {@code switchboard_limit_refused_total{limit}} ({@link #limits}).
 * {@code switchboard_queue_bytes{queue}} is each queue's queued bytes, {@code
 * switchboard_queue_lock_hold_longest_seconds} the longest hold of a queue's lock since the start
 * and {@code switchboard_queue_lock_hold_examined_most} the most entries one hold examined.
 */
public final class ServerMetrics {

  private static final Duration[] LATENCY_BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(25),
    Duration.ofMillis(100),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(21)
  };

  private final PrometheusMeterRegistry registry = registry();

  /** Sources of meters that nothing else holds (a meter holds its source weakly). */
  private final List<Object> held = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final Map<String, OperationTimers> operations = new ConcurrentHashMap<>();
  private final Map<String, QueueMeters> queues = new HashMap<>();
  private final ReentrantLock scrapeLock = new ReentrantLock();
  private final RoutingMetrics routing = new RoutingMetrics(registry);

  /** The engine's figures the limit gauges read, taken at each scrape. */
  private final LimitUse limitUse = new LimitUse();

  private boolean engineMeters;

  private volatile MetricsScope scope = MetricsScope.DEFAULT;

  /** The most push subscriptions with series of their own on one scrape. */
  public static final int MAX_PUSH_SERIES = 100;

  private volatile java.util.function.IntFunction<Map<String, PushWire.Stats>> push =
      limit -> Map.of();
  private final Map<String, PushMeters> pushMeters = new HashMap<>();

  /** The totals over every queue the gauges show, taken at each scrape. */
  private volatile QueueOverview totals =
      new QueueOverview(0, 0, 0, 0, 0, 0, 0, 0, List.of(), List.of());

  /**
   * The registry, its filters set before any meter is registered. Two of Micrometer's names fail
   * Prometheus's own lint (promtool check metrics, which PromtoolLintTest runs on a scrape): a
   * counter in nanoseconds (process_cpu_time_ns_total; the base unit must be seconds;
   * process_cpu_usage stays) is left out, and a gauge named like a histogram's count
   * (system_cpu_count) is system_cpus.
   */
  private static PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry
        .config()
        .meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"))
        .meterFilter(
            new MeterFilter() {
              @Override
              public Meter.Id map(Meter.Id id) {
                return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
              }
            });
    return registry;
  }

  public ServerMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
  }

  public void record(String operation, int status, long nanos) {
    operations
        .computeIfAbsent(operation, OperationTimers::new)
        .timer(status)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * One operation's timers by status, looked up without making a key per request (a status string
   * and a concatenated key were most of what recording a request allocated): an operation sees a
   * handful of statuses, scanned in an array that is replaced, under a lock, when one is added.
   */
  private final class OperationTimers {
    private record ByStatus(int status, Timer timer) {}

    private final String operation;
    private volatile ByStatus[] timers = new ByStatus[0];

    OperationTimers(String operation) {
      this.operation = operation;
    }

    Timer timer(int status) {
      for (ByStatus t : timers) {
        if (t.status() == status) {
          return t.timer();
        }
      }
      return add(status);
    }

    private synchronized Timer add(int status) {
      for (ByStatus t : timers) {
        if (t.status() == status) {
          return t.timer();
        }
      }
      Timer timer =
          Timer.builder("switchboard.http.requests")
              .description("HTTP requests by operation and status")
              .tags("operation", operation, "status", Integer.toString(status))
              .serviceLevelObjectives(LATENCY_BUCKETS)
              .register(registry);
      ByStatus[] more = Arrays.copyOf(timers, timers.length + 1);
      more[more.length - 1] = new ByStatus(status, timer);
      timers = more;
      return timer;
    }
  }

  /**
   * {@code switchboard_routing_leader}: 1 while this server runs the router (always, on a server of
   * its own; on a shared database while it is the routing leader), 0 while it forwards.
   */
  public void routingLeader(java.util.function.BooleanSupplier leading) {
    Gauge.builder("switchboard.routing.leader", leading, l -> l.getAsBoolean() ? 1 : 0)
        .description("1 while this server runs the router, 0 while it forwards routing calls")
        .strongReference(true) // the supplier lives nowhere else
        .register(registry);
  }

  /**
   * {@code switchboard_dead_letter_moves_refused_total}: dead-letter moves the engine would have
   * made on its own, refused because the key that set the target may no longer send there (the
   * messages stay in their queues; docs/security.md, "Moving messages between queues").
   */
  public void moveRights(MoveRights rights) {
    FunctionCounter.builder(
            "switchboard.dead.letter.moves.refused", rights, MoveRights::deadLetterRefusals)
        .description("dead-letter moves refused: the key that set the target may not send there")
        .register(registry);
  }

  /**
   * {@code switchboard_routing_callbacks_total{outcome}}: assignment callbacks by how they ended
   * ({@link AssignmentCallbacks.Outcome}); {@code switchboard_routing_callback_retries_total} the
   * attempts retried; {@code switchboard_routing_callbacks_pending} those between offer and
   * decision now.
   */
  public void callbacks(AssignmentCallbacks callbacks) {
    for (AssignmentCallbacks.Outcome o : AssignmentCallbacks.Outcome.values()) {
      FunctionCounter.builder("switchboard.routing.callbacks", callbacks, c -> c.count(o))
          .description("assignment callbacks by how they ended")
          .tags("outcome", o.label())
          .register(registry);
    }
    FunctionCounter.builder(
            "switchboard.routing.callback.retries", callbacks, AssignmentCallbacks::retries)
        .description("assignment callback attempts retried")
        .register(registry);
    Gauge.builder("switchboard.routing.callbacks.pending", callbacks, AssignmentCallbacks::pending)
        .description("assignment callbacks between offer and decision")
        .register(registry);
  }

  /**
   * The gRPC API's (docs/api.md#grpc): {@code switchboard_grpc_streams{rpc}} the {@code Publish}
   * and {@code Consume} streams open now; {@code switchboard_grpc_messages_total{direction}} the
   * messages sent through it ({@code sent}: {@code Publish} and {@code Send}) and pushed to {@code
   * Consume} streams ({@code pushed}).
   */
  public void grpc(
      java.util.function.LongSupplier publishStreams,
      java.util.function.LongSupplier consumeStreams,
      java.util.function.LongSupplier sent,
      java.util.function.LongSupplier pushed) {
    // a meter holds its source weakly, and these are method references nothing else holds
    held.add(sent);
    held.add(pushed);
    Gauge.builder("switchboard.grpc.streams", publishStreams, LongSupplier::getAsLong)
        .description("gRPC streams open")
        .tags("rpc", "Publish")
        .strongReference(true) // the suppliers are method references nothing else holds
        .register(registry);
    Gauge.builder("switchboard.grpc.streams", consumeStreams, LongSupplier::getAsLong)
        .description("gRPC streams open")
        .tags("rpc", "Consume")
        .strongReference(true) // the suppliers are method references nothing else holds
        .register(registry);
    FunctionCounter.builder("switchboard.grpc.messages", sent, LongSupplier::getAsLong)
        .description("messages sent through the gRPC API, or pushed to its Consume streams")
        .tags("direction", "sent")
        .register(registry);
    FunctionCounter.builder("switchboard.grpc.messages", pushed, LongSupplier::getAsLong)
        .description("messages sent through the gRPC API, or pushed to its Consume streams")
        .tags("direction", "pushed")
        .register(registry);
  }

  /**
   * {@code switchboard_health_problems}: how many problems {@code /health} reports now (0 while
   * healthy; a store that cannot write, a background thread that died, ...), so that an alert can
   * watch what {@code /health} says without polling it.
   */
  public void health(HealthRegistry health) {
    Gauge.builder("switchboard.health.problems", health, h -> h.problems().size())
        .description("Problems /health reports now: 0 while healthy")
        .strongReference(true)
        .register(registry);
  }

  /** Which queues and workspaces have series of their own from the next scrape on. */
  /**
   * The push subscriptions' figures ({@code docs/server.md}, "Metrics"): {@code stats} gives those
   * of at most its argument's subscriptions, by {@code queue/name}; each scrape shows those, so a
   * scrape's size stays bounded whatever the number of subscriptions.
   */
  public void push(java.util.function.IntFunction<Map<String, PushWire.Stats>> stats) {
    this.push = stats;
  }

  public void scope(MetricsScope scope) {
    this.scope = scope;
  }

  public MetricsScope scope() {
    return scope;
  }

  /**
   * Takes the routing figures, by workspace, that the next scrape shows ({@link RoutingMetrics}).
   */
  public void routing(Map<String, RoutingStats> byWorkspace) {
    scrapeLock.lock();
    try {
      routing.refresh(byWorkspace);
    } finally {
      scrapeLock.unlock();
    }
  }

  /** The Prometheus text exposition, with queue figures read now. */
  public String scrape(@Nullable QueueEngine engine) {
    scrapeLock.lock();
    try {
      if (engine != null) {
        refresh(engine);
      }
      return registry.scrape();
    } finally {
      scrapeLock.unlock();
    }
  }

  /**
   * Reads the engine's {@link QueueOverview} (totals and limit use over every queue, the names of
   * the deepest and the oldest) and the stats of the queues shown ({@link #shown}) that exist. The
   * meters of queues no longer shown are removed, so a scrape's size stays bounded by the scope,
   * whatever the number of queues.
   */
  private void refresh(QueueEngine engine) {
    if (!engineMeters) {
      registerEngine(engine);
      engineMeters = true;
    }
    refreshPush();
    MetricsScope shownNow = scope;
    QueueOverview overview = engine.overview(shownNow.topQueues());
    LimitUse use = new LimitUse();
    use.queuedBytes = engine.queuedBytes();
    use.lockHold = engine.longestLockHold();
    use.lockHoldExamined = engine.mostExaminedInOneLockHold();
    use.largestQueueBytes = overview.mostBytes();
    use.largestDefaultDepth = overview.mostAtDefaultDepth();
    use.largestInFlight = overview.mostInFlight();
    use.largestInFlightFifo = overview.mostInFlightGrouped();
    limitUse.copy(use);
    totals = overview;
    Set<String> seen = new HashSet<>();
    for (String name : shown(overview, shownNow)) {
      QueueStats stats;
      long bytes;
      try {
        stats = engine.stats(name);
        bytes = engine.queuedBytes(name);
      } catch (QueueException absent) {
        continue; // a named queue that does not exist, or one deleted meanwhile
      }
      seen.add(name);
      QueueMeters q = queues.computeIfAbsent(name, this::register);
      q.stats = stats;
      q.bytes = bytes;
    }
    queues
        .entrySet()
        .removeIf(
            e -> {
              if (seen.contains(e.getKey())) {
                return false;
              }
              e.getValue().meters.forEach(registry::remove);
              return true;
            });
  }

  /**
   * The queues with series of their own: the deepest and those with the oldest message taken in
   * turn, {@code topQueues} in all, then the named ones.
   */
  static Set<String> shown(QueueOverview overview, MetricsScope scope) {
    Set<String> shown = new LinkedHashSet<>();
    List<String> deepest = overview.deepest();
    List<String> oldest = overview.oldest();
    for (int i = 0;
        shown.size() < scope.topQueues() && (i < deepest.size() || i < oldest.size());
        i++) {
      if (i < deepest.size()) {
        shown.add(deepest.get(i));
      }
      if (i < oldest.size() && shown.size() < scope.topQueues()) {
        shown.add(oldest.get(i));
      }
    }
    shown.addAll(scope.queues());
    return shown;
  }

  /** The limit gauges and the engine's longest lock hold, registered at the first scrape. */
  private void registerEngine(QueueEngine engine) {
    QueueLimits l = engine.limits();
    limit("max-queued-bytes", l.maxQueuedBytes(), u -> u.queuedBytes);
    limit("max-queue-bytes", l.maxQueueBytes(), u -> u.largestQueueBytes);
    limit("default-max-depth", l.defaultMaxDepth(), u -> u.largestDefaultDepth);
    limit("max-in-flight", l.maxInFlight(), u -> u.largestInFlight);
    limit("max-in-flight-fifo", l.maxInFlightGrouped(), u -> u.largestInFlightFifo);
    limit("max-answer-bytes", l.maxAnswerBytes(), null);
    Gauge.builder("switchboard.queues", this, m -> m.totals.queues())
        .description("queues on the server, each shown on its own or not")
        .register(registry);
    total("available", QueueOverview::available);
    total("delayed", QueueOverview::delayed);
    total("in_flight", QueueOverview::inFlight);
    Gauge.builder("switchboard.queue.lock.hold.longest", limitUse, u -> u.lockHold.toNanos() / 1e9)
        .description("the longest time one operation held a queue's lock since the server started")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder("switchboard.queue.lock.hold.examined.most", limitUse, u -> u.lockHoldExamined)
        .description(
            "the most entries (messages tested, passed over or read) one hold of a queue's lock"
                + " examined since the server started")
        .register(registry);
  }

  private void total(String state, ToDoubleFunction<QueueOverview> f) {
    Gauge.builder("switchboard.messages", this, m -> f.applyAsDouble(m.totals))
        .description("messages in all queues by state, each queue shown on its own or not")
        .tags("state", state)
        .register(registry);
  }

  private void limit(String key, long value, @Nullable ToDoubleFunction<LimitUse> use) {
    Gauge.builder("switchboard.limit", () -> value)
        .description("a limit's value (docs/operations.md, Limits)")
        .tags("limit", key)
        .strongReference(true)
        .register(registry);
    if (use != null) {
      Gauge.builder("switchboard.limit.used", limitUse, use)
          .description(
              "a limit's use: the server's, or for a per-queue limit the queue nearest to it")
          .tags("limit", key)
          .register(registry);
    }
  }

  private void refreshPush() {
    Map<String, PushWire.Stats> now = push.apply(MAX_PUSH_SERIES);
    for (Map.Entry<String, PushWire.Stats> e : now.entrySet()) {
      pushMeters.computeIfAbsent(e.getKey(), this::registerPush).stats = e.getValue();
    }
    pushMeters
        .entrySet()
        .removeIf(
            e -> {
              if (now.containsKey(e.getKey())) {
                return false;
              }
              e.getValue().meters.forEach(registry::remove);
              return true;
            });
  }

  private PushMeters registerPush(String key) {
    PushMeters p = new PushMeters();
    int slash = key.indexOf('/');
    String queue = key.substring(0, Math.max(slash, 0));
    String name = key.substring(slash + 1);
    p.meters.add(
        FunctionCounter.builder("switchboard.push.deliveries", p, m -> m.stats.deliveries())
            .description("push deliveries (requests) sent")
            .tags("queue", queue, "subscription", name)
            .register(registry));
    p.meters.add(
        FunctionCounter.builder("switchboard.push.delivered", p, m -> m.stats.delivered())
            .description("messages acknowledged after a push delivery's 2xx")
            .tags("queue", queue, "subscription", name)
            .register(registry));
    for (String cause :
        List.of("throttled", "timeout", "connection", "status", "refused", "item")) {
      p.meters.add(
          FunctionCounter.builder(
                  "switchboard.push.failures", p, m -> m.stats.failures().getOrDefault(cause, 0L))
              .description("messages whose push delivery failed, by cause")
              .tags("queue", queue, "subscription", name, "cause", cause)
              .register(registry));
    }
    p.meters.add(
        Gauge.builder("switchboard.push.in.flight", p, m -> m.stats.inFlight())
            .description("push deliveries in flight now")
            .tags("queue", queue, "subscription", name)
            .register(registry));
    p.meters.add(
        Gauge.builder("switchboard.push.concurrency.limit", p, m -> m.stats.concurrencyLimit())
            .description("the concurrency a push subscription allows itself now (adaptive)")
            .tags("queue", queue, "subscription", name)
            .register(registry));
    p.meters.add(
        Gauge.builder(
                "switchboard.push.rate.limit",
                p,
                m -> m.stats.rateLimit() == null ? Double.NaN : m.stats.rateLimit())
            .description("the deliveries per second a push subscription allows itself now")
            .tags("queue", queue, "subscription", name)
            .register(registry));
    p.meters.add(
        Gauge.builder(
                "switchboard.push.latency.average", p, m -> m.stats.latencyMillisAvg() / 1000.0)
            .description("mean time from a push delivery's request to its answer")
            .baseUnit("seconds")
            .tags("queue", queue, "subscription", name)
            .register(registry));
    return p;
  }

  private static final class PushMeters {
    // set by the refresh right after registerPush makes it, before a scrape can read it
    @SuppressWarnings("NullAway.Init")
    volatile PushWire.Stats stats;

    final List<Meter> meters = new ArrayList<>();
  }

  private QueueMeters register(String queue) {
    QueueMeters q = new QueueMeters();
    q.meters.add(
        Gauge.builder("switchboard.queue.bytes", q, m -> m.bytes)
            .description("queued bytes of the queue: bodies, attributes and bookkeeping")
            .baseUnit("bytes")
            .tags("queue", queue)
            .register(registry));
    gauge(q, queue, "switchboard.queue.messages", "state", "available", s -> s.available());
    gauge(q, queue, "switchboard.queue.messages", "state", "delayed", s -> s.delayed());
    gauge(q, queue, "switchboard.queue.messages", "state", "in_flight", s -> s.inFlight());
    q.meters.add(
        Gauge.builder(
                "switchboard.queue.oldest.age",
                q,
                m -> m.stats.oldestAge().map(a -> a.toMillis() / 1000.0).orElse(0.0))
            .description("age of the oldest message in the queue, any state")
            .baseUnit("seconds")
            .tags("queue", queue)
            .register(registry));
    q.meters.add(
        Gauge.builder("switchboard.queue.waiting.receivers", q, m -> m.stats.waitingReceivers())
            .description("long polls blocked on the queue")
            .tags("queue", queue)
            .register(registry));
    counter(q, queue, "sent", c -> c.sent());
    counter(q, queue, "duplicates", c -> c.duplicates());
    counter(q, queue, "received", c -> c.received());
    counter(q, queue, "acked", c -> c.acked());
    counter(q, queue, "released", c -> c.released());
    counter(q, queue, "failed", c -> c.failed());
    counter(q, queue, "expired", c -> c.expired());
    counter(q, queue, "shed", c -> c.shed());
    counter(q, queue, "dead_lettered", c -> c.deadLettered());
    counter(q, queue, "removed", c -> c.removed());
    counter(q, queue, "key_limited", c -> c.keyLimited());
    return q;
  }

  private void gauge(
      QueueMeters q,
      String queue,
      String name,
      String tag,
      String value,
      ToDoubleFunction<QueueStats> f) {
    q.meters.add(
        Gauge.builder(name, q, m -> f.applyAsDouble(m.stats))
            .description("messages in the queue by state")
            .tags("queue", queue, tag, value)
            .register(registry));
  }

  private void counter(
      QueueMeters q, String queue, String event, ToDoubleFunction<QueueStats.Counters> f) {
    q.meters.add(
        FunctionCounter.builder(
                "switchboard.queue.events", q, m -> f.applyAsDouble(m.stats.counters()))
            .description("message events since the queue was created")
            .tags("queue", queue, "event", event)
            .register(registry));
  }

  /** What the limit gauges show, taken from the engine at each scrape. */
  private static final class LimitUse {
    volatile long queuedBytes;
    volatile long largestQueueBytes;
    volatile long largestDefaultDepth;
    volatile long largestInFlight;
    volatile long largestInFlightFifo;
    volatile Duration lockHold = Duration.ZERO;
    volatile long lockHoldExamined;

    void copy(LimitUse u) {
      queuedBytes = u.queuedBytes;
      largestQueueBytes = u.largestQueueBytes;
      largestDefaultDepth = u.largestDefaultDepth;
      largestInFlight = u.largestInFlight;
      largestInFlightFifo = u.largestInFlightFifo;
      lockHold = u.lockHold;
      lockHoldExamined = u.lockHoldExamined;
    }
  }

  /** The latest snapshot of one queue and the meters that read it. */
  private static final class QueueMeters {
    // set by the refresh right after register makes it, before a scrape can read it
    @SuppressWarnings("NullAway.Init")
    volatile QueueStats stats;

    volatile long bytes;
    final List<Meter> meters = new ArrayList<>();
  }

  // ---- caps on connections, long polls and event streams (docs/operations.md) -------------

  /**
   * The caps on connections, long polls and event streams, in the same names as the message limits
   * ({@link #registerEngine}): {@code switchboard_limit{limit}} each cap's value, {@code
   * switchboard_limit_used{limit}} its use (for a per-client cap, the client nearest to it) and
   * {@code switchboard_limit_refused_total{limit}} what it refused; {@code limit} is the setting's
   * key. Plus {@code switchboard_read_timeouts_total}, connections closed by {@code read-timeout}.
   */
  public void limits(
      ConnectionLimits connections,
      RequestGate gate,
      EventStreamLimits streams,
      ReadTimeouts readTimeouts) {
    cap(
        "max-connections",
        connections,
        ConnectionLimits::max,
        ConnectionLimits::open,
        ConnectionLimits::refusedTotal);
    cap(
        "max-connections-per-address",
        connections,
        ConnectionLimits::maxPerAddress,
        ConnectionLimits::mostFromOneAddress,
        ConnectionLimits::refusedPerAddress);
    cap(
        "max-long-polls",
        gate,
        RequestGate::maxPolls,
        RequestGate::polls,
        RequestGate::pollsRefused);
    cap(
        "max-event-streams",
        streams,
        EventStreamLimits::max,
        EventStreamLimits::open,
        EventStreamLimits::refusedTotal);
    cap(
        "max-event-streams-per-key",
        streams,
        EventStreamLimits::maxPerKey,
        EventStreamLimits::mostOfOneKey,
        EventStreamLimits::refusedPerKey);
    FunctionCounter.builder("switchboard.read.timeouts", readTimeouts, ReadTimeouts::cut)
        .description("connections closed because a request paused longer than read-timeout")
        .register(registry);
  }

  private <T> void cap(
      String key,
      T source,
      ToDoubleFunction<T> value,
      ToDoubleFunction<T> used,
      ToDoubleFunction<T> refused) {
    Gauge.builder("switchboard.limit", source, value)
        .description("a limit's value (docs/operations.md, Limits)")
        .tags("limit", key)
        .register(registry);
    Gauge.builder("switchboard.limit.used", source, used)
        .description(
            "a limit's use: the server's, or for a per-queue limit the queue nearest to it")
        .tags("limit", key)
        .register(registry);
    FunctionCounter.builder("switchboard.limit.refused", source, refused)
        .description("requests or connections a limit refused since the start")
        .tags("limit", key)
        .register(registry);
  }
}
