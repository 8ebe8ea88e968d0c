package io.switchboard.server.api.push;

import io.switchboard.client.PushWire;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.server.api.push.PushStats.Cause;
import io.switchboard.server.dispatch.ConsumeOptions;
import io.switchboard.server.dispatch.Dispatcher;
import io.switchboard.server.dispatch.Subscription;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a server's push subscriptions (docs/design.md, "Push delivery"): each one not paused is a
 * subscription of the shared {@link Dispatcher}, with a {@link PushPace} (concurrency, token
 * bucket, backoff) as its pace and a {@link PushSink} that POSTs what it takes. Subscriptions are
 * read from the engine's system records ({@link PushStore}): a change made here applies at once;
 * one made by another server sharing the store, or a change of routing leader ({@code active}),
 * applies at the next look, every {@link #LOOK} (after every advance of a manual clock).
 *
 * <p>A paused, changed or deleted subscription stops taking messages and lets its deliveries in
 * flight finish ({@link Subscription#stop}); the server's stop releases the leases it holds.
 */
public final class PushDelivery implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PushDelivery.class);

  /** How often the subscriptions stored are compared with those running. */
  static final Duration LOOK = Duration.ofSeconds(5);

  private final QueueEngine engine;
  private final Clock clock;
  private final PushStore store;
  private final OutboundAddresses outbound;
  private final BooleanSupplier active;
  private final Dispatcher dispatcher;
  private final ExecutorService threads =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("switchboard-push-", 0).factory());

  /** Closes a delivery's connection at its deadline ({@link PushClient}). */
  private final ScheduledThreadPoolExecutor deadlines;

  /** How deliveries make HTTPS connections. */
  private final SSLSocketFactory tls;

  private final Scheduler.Repeating look;
  private final Object changes = new Object();

  /** The subscriptions running here, by {@code queue/name}. */
  private final Map<String, Running> running = new ConcurrentHashMap<>();

  /** Their counters, by {@code queue/name}: kept across a pause or a change, dropped on delete. */
  private final Map<String, PushStats> stats = new ConcurrentHashMap<>();

  private record Running(
      PushSpec spec,
      Subscription subscription,
      PushPace pace,
      PushSink sink,
      Optional<PushKeys> keys) {}

  private volatile boolean closed;

  /**
   * @param engine the server's engine, whose system records keep the subscriptions and whose clock
   *     times the deliveries
   * @param outbound where deliveries may be sent, checked when a subscription is set and on every
   *     delivery
   * @param active whether this server runs subscriptions now (the routing leader of a cluster)
   */
  public PushDelivery(QueueEngine engine, OutboundAddresses outbound, BooleanSupplier active) {
    this(engine, outbound, active, defaultTls());
  }

  /**
   * @param tls the TLS of HTTPS endpoints: whom they are trusted by (tests give one that trusts
   *     their own CA)
   */
  PushDelivery(
      QueueEngine engine, OutboundAddresses outbound, BooleanSupplier active, SSLContext tls) {
    this.engine = engine;
    this.clock = engine.clock();
    this.store = new PushStore(engine.systemRecords());
    this.outbound = outbound;
    this.active = active;
    this.dispatcher = new Dispatcher(engine);
    this.tls = tls.getSocketFactory();
    this.deadlines =
        new ScheduledThreadPoolExecutor(
            1, Thread.ofPlatform().daemon().name("switchboard-push-deadlines").factory());
    this.deadlines.setRemoveOnCancelPolicy(true);
    reconcile();
    this.look =
        clock.every(
            "switchboard-push-look",
            LOOK,
            () -> {
              reconcile();
              running.values().forEach(r -> r.sink().closeIdle());
            });
  }

  private static SSLContext defaultTls() {
    try {
      return SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has a default TLS context", e);
    }
  }

  private static String key(String queue, String name) {
    return queue + "/" + name;
  }

  // ---- the API's operations ------------------------------------------------------------------

  /**
   * Creates a subscription of {@code queue}; the answer carries its new secret, the only time it is
   * shown.
   *
   * @throws QueueException {@code QUEUE_NOT_FOUND}, {@code INVALID_ARGUMENT} (a setting, or a URL
   *     the server may not send to)
   * @throws HttpError 409 {@code SUBSCRIPTION_EXISTS} when the name is taken
   */
  public PushWire.Subscription create(String queue, PushWire.Subscription w, int maxSelector) {
    engine.queue(queue);
    refuseSecret(w);
    PushSpec spec =
        PushSpec.of(
            queue,
            w,
            maxSelector,
            Instant.ofEpochMilli(clock.millis()).toString(),
            CallbackSecret.generate());
    checkAddress(spec);
    synchronized (changes) {
      if (!store.create(spec)) {
        throw new HttpError(
            409,
            "SUBSCRIPTION_EXISTS",
            "queue '" + queue + "' has a subscription named '" + spec.name() + "' already");
      }
      reconcile();
    }
    return spec.wire(false, true);
  }

  /**
   * Checks a subscription an init file declares, before anything of the file is applied: its
   * settings as {@link #create} checks them, and its URL against {@code outbound}.
   *
   * @throws QueueException {@code INVALID_ARGUMENT} naming what is wrong
   */
  public static void check(
      String queue,
      PushWire.Subscription w,
      Optional<String> secret,
      int maxSelector,
      OutboundAddresses outbound) {
    PushSpec spec =
        PushSpec.of(
            queue,
            w,
            maxSelector,
            "",
            secret.map(PushDelivery::givenSecret).orElseGet(CallbackSecret::generate));
    checkAddress(spec, outbound);
  }

  private static CallbackSecret givenSecret(String secret) {
    try {
      return new CallbackSecret(secret);
    } catch (RuntimeException e) {
      // the message says the length allowed and the length given, never the secret
      throw QueueException.invalid("secret: " + e.getMessage());
    }
  }

  /** What {@link #declare} did. */
  public enum Declared {
    CREATED,
    CHANGED,
    UNCHANGED
  }

  /**
   * Makes a subscription what an init file declares (docs/deploy.md, "Declare your setup"): creates
   * it (with the file's secret, else a new one nobody is shown: rotate it to learn one), or changes
   * the settings the file gives; a secret the file gives replaces the stored one, and an entry
   * without {@code paused} leaves a pause made over the API as it is.
   */
  public Declared declare(
      String queue, PushWire.Subscription w, Optional<String> secret, int maxSelector) {
    engine.queue(queue);
    synchronized (changes) {
      Optional<PushSpec> old = store.get(queue, w.name());
      CallbackSecret s =
          secret
              .map(PushDelivery::givenSecret)
              .orElseGet(() -> old.map(PushSpec::secret).orElseGet(CallbackSecret::generate));
      String createdAt =
          old.map(PushSpec::createdAt)
              .orElseGet(() -> Instant.ofEpochMilli(clock.millis()).toString());
      PushSpec spec = PushSpec.of(queue, w, maxSelector, createdAt, s);
      if (w.paused() == null && old.isPresent()) {
        spec = spec.paused(old.get().paused());
      }
      checkAddress(spec);
      if (old.isPresent() && old.get().equals(spec)) {
        return Declared.UNCHANGED;
      }
      store.put(spec);
      reconcile();
      return old.isPresent() ? Declared.CHANGED : Declared.CREATED;
    }
  }

  /**
   * Replaces a subscription's settings (its secret and creation time stay).
   *
   * @throws QueueException as {@link #create}
   * @throws HttpError 404 {@code SUBSCRIPTION_NOT_FOUND}
   */
  public PushWire.Subscription update(
      String queue, String name, PushWire.Subscription w, int maxSelector) {
    synchronized (changes) {
      PushSpec old = find(queue, name);
      refuseSecret(w);
      if (!w.name().equals(name)) {
        throw QueueException.invalid(
            "the body's name must be the subscription's, '" + name + "', got '" + w.name() + "'");
      }
      PushSpec spec = PushSpec.of(queue, w, maxSelector, old.createdAt(), old.secret());
      checkAddress(spec);
      store.put(spec);
      reconcile();
      return spec.wire(false, false);
    }
  }

  /** Pauses or resumes a subscription. */
  public PushWire.Subscription paused(String queue, String name, boolean paused) {
    synchronized (changes) {
      PushSpec spec = find(queue, name).paused(paused);
      store.put(spec);
      reconcile();
      return spec.wire(false, false);
    }
  }

  /** Makes a new secret, shown in the answer only; deliveries are signed with it from now on. */
  public PushWire.Subscription rotate(String queue, String name) {
    synchronized (changes) {
      PushSpec spec = find(queue, name).secret(CallbackSecret.generate());
      store.put(spec);
      reconcile();
      return spec.wire(false, true);
    }
  }

  /** Deletes a subscription: nothing new is delivered, deliveries in flight finish or expire. */
  public void delete(String queue, String name) {
    synchronized (changes) {
      find(queue, name);
      store.delete(queue, name);
      stats.remove(key(queue, name));
      reconcile();
    }
  }

  public PushWire.Subscription get(String queue, String name) {
    return find(queue, name).wire(false, false);
  }

  /** The queue's subscriptions, by name. */
  public List<PushWire.Subscription> list(String queue) {
    engine.queue(queue);
    return store.list(queue).stream().map(s -> s.wire(false, false)).toList();
  }

  /** What a subscription did since this server started running it, and its state. */
  public PushWire.Stats stats(String queue, String name) {
    PushSpec spec = find(queue, name);
    Running r = running.get(key(queue, name));
    PushStats s = stats.getOrDefault(key(queue, name), new PushStats());
    Map<String, Long> failures = new LinkedHashMap<>();
    for (Cause c : Cause.values()) {
      failures.put(c.label(), s.failures(c));
    }
    long count = s.latencyCount.get();
    long backlog;
    try {
      backlog = engine.stats(queue).available();
    } catch (QueueException gone) {
      backlog = 0;
    }
    return new PushWire.Stats(
        spec.paused() ? "paused" : r != null ? "running" : "idle",
        s.deliveries.get(),
        s.delivered.get(),
        failures,
        s.deadLettered.get(),
        s.sending.get(),
        r == null ? spec.maxConcurrent() : r.pace().concurrency(),
        r == null
            ? (spec.maxPerSecond().isPresent() ? spec.maxPerSecond().getAsDouble() : null)
            : (r.pace().rate().isPresent() ? r.pace().rate().getAsDouble() : null),
        count == 0 ? 0 : (double) s.latencyMillisSum.get() / count,
        s.latencyMillisMax.get(),
        backlog);
  }

  /**
   * The figures of the first {@code limit} subscriptions running here, by {@code queue/name}: what
   * {@code /metrics} shows of them.
   */
  public Map<String, PushWire.Stats> runningStats(int limit) {
    Map<String, PushWire.Stats> out = new java.util.TreeMap<>();
    List<PushSpec> specs =
        running.values().stream()
            .map(Running::spec)
            .sorted(java.util.Comparator.comparing(PushSpec::queue).thenComparing(PushSpec::name))
            .limit(limit)
            .toList();
    for (PushSpec spec : specs) {
      try {
        out.put(key(spec.queue(), spec.name()), stats(spec.queue(), spec.name()));
      } catch (QueueException | HttpError gone) {
        // deleted meanwhile
      }
    }
    return out;
  }

  private PushSpec find(String queue, String name) {
    engine.queue(queue);
    PushSpec.checkName(name);
    return store.get(queue, name).orElseThrow(() -> notFound(queue, name));
  }

  static HttpError notFound(String queue, String name) {
    return new HttpError(
        404,
        "SUBSCRIPTION_NOT_FOUND",
        "queue '" + queue + "' has no subscription named '" + name + "'");
  }

  /** The secret is the server's to make: a body that gives one is refused, not quietly ignored. */
  private static void refuseSecret(PushWire.Subscription w) {
    if (w.secret() != null) {
      throw QueueException.invalid(
          "secret is made by the server (shown when a subscription is created or its secret"
              + " rotated); a body may not give one");
    }
  }

  private void checkAddress(PushSpec spec) {
    checkAddress(spec, outbound);
  }

  /** Refuses a URL the server may not send to ({@link OutboundAddresses}) as a bad argument. */
  private static void checkAddress(PushSpec spec, OutboundAddresses outbound) {
    try {
      outbound.checkConfigured("url", spec.uri());
    } catch (OutboundAddresses.Refused e) {
      throw QueueException.invalid(String.valueOf(e.getMessage()));
    }
  }

  // ---- running them --------------------------------------------------------------------------

  /**
   * Makes what runs here agree with what is stored: starts what should run and does not, stops what
   * runs and should not (paused, changed, deleted, or this server no longer active).
   */
  private void reconcile() {
    synchronized (changes) {
      if (closed) {
        return;
      }
      Map<String, PushSpec> wanted = new HashMap<>();
      if (active.getAsBoolean()) {
        try {
          for (PushSpec s : store.all()) {
            if (!s.paused()) {
              wanted.put(key(s.queue(), s.name()), s);
            } else if (!queueExists(s.queue())) {
              forgetQueue(s.queue()); // deleted with its queue, paused or not
            }
          }
        } catch (QueueException unavailable) {
          return; // the store cannot be read now: the next look tries again
        }
      }
      for (Map.Entry<String, Running> e : List.copyOf(running.entrySet())) {
        PushSpec w = wanted.get(e.getKey());
        if (w == null || !w.runsLike(e.getValue().spec()) || e.getValue().subscription().closed()) {
          stop(e.getKey(), e.getValue());
        }
      }
      for (Map.Entry<String, PushSpec> e : wanted.entrySet()) {
        if (!running.containsKey(e.getKey())) {
          start(e.getValue());
        }
      }
    }
  }

  private void start(PushSpec spec) {
    String key = key(spec.queue(), spec.name());
    boolean grouped;
    try {
      grouped = engine.queue(spec.queue()).grouped();
    } catch (QueueException e) {
      if (e.code() == ErrorCode.QUEUE_NOT_FOUND) {
        forgetQueue(spec.queue());
      }
      return;
    }
    PushStats counters = stats.computeIfAbsent(key, k -> new PushStats());
    Optional<PushKeys> keys = spec.keyLimit().map(k -> new PushKeys(clock, k));
    PushPace pace = new PushPace(clock, spec, !grouped && spec.batchWindow().isZero(), keys);
    PushClient client = new PushClient(spec.uri(), spec.headers(), tls, deadlines, PushClient.IDLE);
    PushSink sink =
        new PushSink(
            spec,
            grouped,
            clock,
            client,
            threads,
            outbound,
            pace,
            counters,
            keys,
            error -> failed(spec, error));
    ConsumeOptions options =
        ConsumeOptions.credit(spec.maxConcurrent() * spec.batchSize())
            .visibilityTimeout(spec.lease())
            .pace(pace)
            .batchWindow(spec.batchWindow());
    Optional<io.switchboard.queue.MessageFilter> filter =
        keys.isPresent() ? Optional.of(keys.get().filter(spec.filter())) : spec.filter();
    if (filter.isPresent()) {
      options = options.filter(filter.get());
    }
    Subscription s;
    try {
      s = dispatcher.subscribe(spec.queue(), options, sink);
    } catch (QueueException e) {
      pace.close();
      client.close();
      return;
    }
    sink.opened(s);
    running.put(key, new Running(spec, s, pace, sink, keys));
    LOG.atInfo()
        .addKeyValue("queue", spec.queue())
        .addKeyValue("subscription", spec.name())
        .addKeyValue("url", spec.url())
        .log("push subscription running");
  }

  private void stop(String key, Running r) {
    running.remove(key, r);
    r.subscription().stop();
    r.pace().close();
    r.sink().stopped();
  }

  /** The dispatcher ended a subscription: its queue is gone, or the engine refused a receive. */
  private void failed(PushSpec spec, QueueException error) {
    if (closed) {
      return;
    }
    if (error.code() == ErrorCode.QUEUE_NOT_FOUND) {
      forgetQueue(spec.queue());
    } else {
      LOG.atWarn()
          .addKeyValue("queue", spec.queue())
          .addKeyValue("subscription", spec.name())
          .log("push subscription stopped, restarted at the next look: " + error.getMessage());
    }
  }

  private boolean queueExists(String queue) {
    try {
      engine.queue(queue);
      return true;
    } catch (QueueException e) {
      return e.code() != ErrorCode.QUEUE_NOT_FOUND;
    }
  }

  /** Deletes the subscriptions of a queue that no longer exists. */
  private void forgetQueue(String queue) {
    for (PushSpec s : store.list(queue)) {
      store.delete(queue, s.name());
      stats.remove(key(queue, s.name()));
      LOG.atInfo()
          .addKeyValue("queue", queue)
          .addKeyValue("subscription", s.name())
          .log("push subscription deleted with its queue");
    }
  }

  /** The counters of a subscription: for tests. */
  Optional<PushStats> counters(String queue, String name) {
    return Optional.ofNullable(stats.get(key(queue, name)));
  }

  /** The pace of a subscription running here: for tests. */
  Optional<PushPace> pace(String queue, String name) {
    return Optional.ofNullable(running.get(key(queue, name))).map(Running::pace);
  }

  /** The limits per key of a subscription running here: for tests. */
  Optional<PushKeys> keys(String queue, String name) {
    return Optional.ofNullable(running.get(key(queue, name))).flatMap(Running::keys);
  }

  /** How many subscriptions run here. */
  public int running() {
    return running.size();
  }

  /**
   * Stops as a dying process would (a halt: for tests of failover): the subscriptions stop taking
   * and settle nothing more, so the leases of deliveries in flight run out on their own and another
   * server delivers those messages again; the connections close and the threads stop.
   */
  public void halt() {
    synchronized (changes) {
      closed = true;
    }
    look.close();
    for (Running r : running.values()) {
      r.sink().halt();
      r.subscription().stop(); // keeps its leases
      r.pace().close();
    }
    running.clear();
    deadlines.shutdownNow();
    threads.shutdownNow();
  }

  /**
   * Stops every subscription (the leases they hold are released: the server is stopping) and closes
   * their connections.
   */
  @Override
  public void close() {
    synchronized (changes) {
      closed = true;
    }
    look.close();
    List<Running> stopping = List.copyOf(running.values());
    for (Running r : stopping) {
      r.pace().close();
    }
    running.clear();
    dispatcher.close();
    stopping.forEach(r -> r.sink().abort());
    deadlines.shutdownNow();
    threads.shutdownNow();
  }
}
