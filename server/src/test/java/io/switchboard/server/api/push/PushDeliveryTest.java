package io.switchboard.server.api.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.client.PushWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueStats;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.testing.Await;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Push delivery (docs/design.md, "Push delivery") from an in-memory engine on a manual clock to a
 * receiver on an ephemeral port: the rate, burst and concurrency are the clock's, so the test moves
 * time itself and only waits (bounded) for what the delivery threads do at each instant.
 */
class PushDeliveryTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();
  private PushDelivery push;
  private HttpServer receiver;

  /** What the receiver answers, by the request's body and the clock's time. */
  private volatile Function<Request, Answer> answer = r -> new Answer(200, "", null);

  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger concurrent = new AtomicInteger();
  private final AtomicInteger maxConcurrent = new AtomicInteger();

  /** A request the receiver got: at what clock time, its body, its signature. */
  private record Request(long atMillis, JsonNode body, byte[] raw, String signature) {
    List<String> ids() {
      List<String> ids = new ArrayList<>();
      body.get("messages").forEach(m -> ids.add(m.get("id").asText()));
      return ids;
    }
  }

  private record Answer(int status, String body, String retryAfter) {}

  @BeforeEach
  void start() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext("/push", this::receive);
    receiver.setExecutor(Executors.newCachedThreadPool());
    receiver.start();
    push = new PushDelivery(engine, OutboundAddresses.privateAllowed(), () -> true);
  }

  @AfterEach
  void stop() {
    push.close();
    engine.close();
    receiver.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/push";
  }

  private void receive(HttpExchange x) throws IOException {
    int now = concurrent.incrementAndGet();
    maxConcurrent.accumulateAndGet(now, Math::max);
    try {
      byte[] raw = x.getRequestBody().readAllBytes();
      Request r =
          new Request(
              clock.millis(),
              WireFormat.parse(raw),
              raw,
              x.getRequestHeaders().getFirst("X-Switchboard-Signature"));
      Answer a = answer.apply(r);
      requests.add(r);
      concurrent.decrementAndGet(); // answered: the client may send its next request now
      if (a.retryAfter() != null) {
        x.getResponseHeaders().add("Retry-After", a.retryAfter());
      }
      byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        x.getResponseBody().write(body);
      }
    } finally {
      x.close();
    }
  }

  private static PushWire.Subscription subscription(
      String url, int concurrent, Double perSecond, int burst, int batch) {
    return new PushWire.Subscription(
        "hook",
        null,
        url,
        null,
        5,
        null,
        concurrent,
        perSecond,
        burst,
        batch,
        0L,
        1000L,
        8000L,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * Waits until the subscription has nothing in flight and waits for time (a token or a hold) or
   * for messages (in its long poll: a grouped queue's waiting messages may all be blocked): what
   * the clock's present instant allows has happened.
   */
  private void settle(String queue) {
    Await.until(
        () -> {
          PushPace pace = push.pace(queue, "hook").orElseThrow();
          QueueStats s = engine.stats(queue);
          return push.counters(queue, "hook").orElseThrow().sending.get() == 0
              && s.inFlight() == 0
              && (pace.waitingForTime() || s.waitingReceivers() > 0 || s.available() == 0);
        },
        "the subscription to settle at this instant");
  }

  /**
   * Seed 002: tasks arrive at 1,000/s into a LIFO queue whose messages live 60 s; the receiver is
   * limited to 50/s with concurrency 1. It never sees two requests at once, never more than 50 ± 1
   * in any second of the clock, always gets the newest pending task next, gets nothing twice, and
   * the queue counts what expired unsent.
   */
  @Test
  void seed002_lifoWithTtl_receiverAt50PerSecondAndConcurrency1_getsTheNewestWithinItsLimits() {
    engine.createQueue(
        "tasks", QueueConfig.builder().order(Order.LIFO).retention(Duration.ofSeconds(60)).build());
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      sent.add(engine.send("tasks", NewMessage.of("t" + sent.size())).id());
    }
    push.create("tasks", subscription(url(), 1, 50.0, 1, 1), 4096);
    Await.until(() -> requests.size() == 1, "the first delivery");
    List<String> newestBefore = new ArrayList<>(List.of(sent.get(sent.size() - 1)));
    int steps = 65 * 50; // 65 s of 20 ms steps: past the 60 s the first tasks live
    for (int step = 1; step <= steps; step++) {
      for (int i = 0; i < 20; i++) { // 1,000 a second
        sent.add(engine.send("tasks", NewMessage.of("t" + sent.size())).id());
      }
      newestBefore.add(sent.get(sent.size() - 1));
      clock.advanceMillis(20);
      int expected = step + 1;
      Await.until(() -> requests.size() == expected, "delivery " + expected);
    }
    assertEquals(1, maxConcurrent.get(), "never two requests at once");
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < requests.size(); i++) {
      Request r = requests.get(i);
      assertEquals(1, r.ids().size());
      String id = r.ids().get(0);
      assertEquals(newestBefore.get(i), id, "delivery " + i + " is the newest pending task");
      assertTrue(seen.add(id), "nothing is delivered twice: " + id);
    }
    for (int i = 0; i < requests.size(); i++) {
      long from = requests.get(i).atMillis();
      long inWindow =
          requests.stream().filter(r -> r.atMillis() >= from && r.atMillis() < from + 1000).count();
      assertTrue(inWindow <= 51, "at most 50 ± 1 in the second from " + from + ": " + inWindow);
      if (from + 1000 <= requests.get(requests.size() - 1).atMillis()) {
        assertTrue(
            inWindow >= 49, "the limit is used: " + inWindow + " in the second from " + from);
      }
    }
    QueueStats stats = engine.stats("tasks");
    assertTrue(stats.counters().expired() > 0, "tasks older than 60 s expired unsent: " + stats);
    assertEquals(
        sent.size(),
        stats.counters().expired() + stats.counters().acked() + stats.depth(),
        "every task is delivered, expired or still waiting: " + stats);
  }

  /**
   * A receiver that answers 503 for 10 s and then 200: the subscription backs off (a few probes,
   * not 50 a second), loses nothing, dead-letters nothing, and its rate recovers within its limit.
   */
  @Test
  void a503ForTenSeconds_thenHealthy_backsOff_losesNothing_andRecoversItsRate() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("jobs", QueueConfig.builder().deadLetter("dlq", 10).build());
    for (int i = 0; i < 200; i++) {
      engine.send("jobs", NewMessage.of("j" + i));
    }
    long healthyAt = clock.millis() + 10_000;
    answer = r -> r.atMillis() < healthyAt ? new Answer(503, "", null) : new Answer(200, "", null);
    push.create("jobs", subscription(url(), 4, 50.0, 5, 1), 4096);
    for (int i = 0; i < 30_000 / 20 && engine.stats("jobs").depth() > 0; i++) {
      settle("jobs");
      clock.advanceMillis(20);
    }
    settle("jobs");
    List<Request> failed = requests.stream().filter(r -> r.atMillis() < healthyAt).toList();
    assertTrue(failed.size() >= 2, "the endpoint was tried while down: " + failed.size());
    assertTrue(
        failed.size() <= 20,
        "it backed off while the endpoint answered 503 (not 50 a second): " + failed.size());
    assertEquals(
        0,
        engine.stats("jobs").depth(),
        "every job delivered: "
            + engine.stats("jobs")
            + " "
            + push.stats("jobs", "hook")
            + " requests "
            + requests.size()
            + " pace waiting "
            + push.pace("jobs", "hook").map(PushPace::waitingForTime));
    assertEquals(0, engine.stats("dlq").depth(), "nothing dead-lettered");
    assertEquals(200, engine.stats("jobs").counters().acked());
    List<Request> healthy = requests.stream().filter(r -> r.atMillis() >= healthyAt).toList();
    for (Request r : healthy) {
      long inWindow =
          healthy.stream()
              .filter(o -> o.atMillis() >= r.atMillis() && o.atMillis() < r.atMillis() + 1000)
              .count();
      assertTrue(inWindow <= 55, "within 50/s and its burst of 5: " + inWindow);
    }
    long last = healthy.get(healthy.size() - 1).atMillis();
    long inLastSeconds = healthy.stream().filter(r -> r.atMillis() > last - 1000).count();
    assertTrue(inLastSeconds >= 40, "the rate came back near 50/s: " + inLastSeconds);
    PushWire.Stats stats = push.stats("jobs", "hook");
    assertEquals(4, stats.concurrencyLimit(), "the concurrency recovered: " + stats);
    assertTrue(stats.failures().get("throttled") >= 2, stats.toString());
  }

  /**
   * A batch whose 2xx answer lists one id in {@code batchItemFailures}: the others are
   * acknowledged, the failed one comes back after its backoff with its receive count raised; every
   * request is signed with the secret shown at the subscription's creation.
   */
  @Test
  void aBatchWithOneItemFailure_acksTheRest_andRetriesTheFailedOne() throws Exception {
    engine.createQueue("orders", QueueConfig.defaults());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(engine.send("orders", NewMessage.of("o" + i)).id());
    }
    String failing = ids.get(2);
    answer =
        r ->
            requests.isEmpty()
                ? new Answer(
                    200, "{\"batchItemFailures\":[{\"itemIdentifier\":\"" + failing + "\"}]}", null)
                : new Answer(200, "", null);
    PushWire.Subscription created = push.create("orders", subscription(url(), 1, null, 1, 5), 4096);
    String secret = created.secret();
    assertTrue(secret != null && secret.length() >= 16, "the secret is shown at creation");
    assertNull(push.get("orders", "hook").secret(), "and never after");
    Await.until(() -> requests.size() == 1, "the batch");
    assertEquals(ids, requests.get(0).ids(), "one request carries the five, in order");
    settle("orders");
    assertEquals(1, engine.stats("orders").depth(), "four acknowledged, one back in the queue");
    clock.advanceMillis(1000); // the first backoff is at most minBackoff
    Await.until(() -> requests.size() == 2, "the retry");
    JsonNode retried = requests.get(1).body().get("messages").get(0);
    assertEquals(failing, retried.get("id").asText());
    assertEquals(2, retried.get("receiveCount").asInt());
    settle("orders");
    assertEquals(0, engine.stats("orders").depth());
    for (Request r : requests) {
      assertTrue(signedWith(secret, r), "signed with the subscription's secret: " + r.signature());
    }
    assertFalse(signedWith(secret + "x", requests.get(0)));
    assertEquals(1, push.stats("orders", "hook").failures().get("item"));
  }

  /**
   * An endpoint that does not answer within the subscription's timeout (1 s): the delivery counts
   * as a timeout and its message comes back after the backoff, to be delivered by the next attempt
   * (a new delivery id); the first request's late answer changes nothing.
   */
  @Test
  void anEndpointSilentPastTheTimeout_countsATimeout_andTheMessageIsDeliveredByTheRetry()
      throws Exception {
    engine.createQueue("jobs", QueueConfig.defaults());
    String id = engine.send("jobs", NewMessage.of("slow")).id();
    java.util.concurrent.CountDownLatch late = new java.util.concurrent.CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    answer =
        r -> {
          if (calls.incrementAndGet() == 1) {
            try {
              late.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return new Answer(200, "", null);
        };
    push.create(
        "jobs",
        new PushWire.Subscription(
            "hook", null, url(), null, 1, null, 1, null, 1, 1, 0L, 1000L, 8000L, null, null, null,
            null, null),
        4096);
    Await.until(
        () -> push.stats("jobs", "hook").failures().get("timeout") == 1, "the first attempt's end");
    late.countDown();
    assertEquals(1, engine.stats("jobs").depth(), "not lost: back in the queue after the backoff");
    Await.until(() -> push.pace("jobs", "hook").orElseThrow().waitingForTime(), "the backoff");
    clock.advanceMillis(1000);
    Await.until(() -> engine.stats("jobs").depth() == 0, "delivered by the retry");
    Request retry =
        requests.stream()
            .filter(r -> r.body().get("messages").get(0).get("receiveCount").asInt() == 2)
            .findFirst()
            .orElseThrow();
    assertEquals(List.of(id), retry.ids());
    Request first =
        Await.value(
            () ->
                requests.stream()
                    .filter(r -> r.body().get("messages").get(0).get("receiveCount").asInt() == 1)
                    .findFirst(),
            () -> "the first request's late answer",
            Await.LIMIT);
    assertFalse(
        first.body().get("deliveryId").asText().equals(retry.body().get("deliveryId").asText()),
        "each attempt has its own delivery id");
    assertEquals(1, push.stats("jobs", "hook").delivered());
  }

  /**
   * Nothing listening at the URL's port: the deliveries fail as connection failures, the
   * subscription holds off by its backoff, and the message waits in the queue.
   */
  @Test
  void nothingListening_countsConnectionFailures_andLosesNothing() {
    engine.createQueue("jobs", QueueConfig.defaults());
    engine.send("jobs", NewMessage.of("waits"));
    push.create(
        "jobs",
        subscription(
            "http://127.0.0.1:" + io.switchboard.testing.FreePorts.free() + "/", 1, null, 1, 1),
        4096);
    Await.until(
        () -> push.stats("jobs", "hook").failures().get("connection") == 1, "the failed attempt");
    Await.until(() -> push.pace("jobs", "hook").orElseThrow().waitingForTime(), "the backoff");
    assertEquals(1, engine.stats("jobs").depth(), "the message waits");
    assertEquals(0, push.stats("jobs", "hook").delivered());
  }

  /**
   * A batch window longer than a receive's longest wait (20 s): the delivery waits the whole window
   * to fill its batch, then sends what it has as one request.
   */
  @Test
  void aBatchWindow_fillsTheBatchForTheWholeWindow_thenSendsWhatItHas() {
    engine.createQueue("events", QueueConfig.defaults());
    push.create(
        "events",
        new PushWire.Subscription(
            "hook", null, url(), null, 5, null, 1, null, 1, 10, 30_000L, 1000L, 8000L, null, null,
            null, null, null),
        4096);
    List<String> ids = new ArrayList<>();
    ids.add(engine.send("events", NewMessage.of("e0")).id());
    Await.until(
        () ->
            engine.stats("events").inFlight() == 1
                && engine.stats("events").waitingReceivers() == 1,
        "the first message taken, and the batch waiting for more");
    clock.advanceMillis(25_000); // past one receive's longest wait, inside the window
    ids.add(engine.send("events", NewMessage.of("e1")).id());
    ids.add(engine.send("events", NewMessage.of("e2")).id());
    // the batch's next receive waits (its wait reckoned before the clock moves again)
    Await.until(
        () ->
            engine.stats("events").inFlight() == 3
                && engine.stats("events").waitingReceivers() == 1,
        "the batch topped up, and waiting for more");
    assertTrue(requests.isEmpty(), "nothing sent before the window ends");
    clock.advanceMillis(5_000);
    Await.until(() -> requests.size() == 1, "the batch");
    assertEquals(ids, requests.get(0).ids());
    settle("events");
    assertEquals(0, engine.stats("events").depth());
  }

  /**
   * A paused subscription takes nothing; resumed, it delivers what waited. Deleting the queue
   * deletes its subscriptions, paused ones too: a queue made again under the name has none.
   */
  @Test
  void pause_takesNothing_resumeDelivers_andTheQueuesDeletionDeletesItsSubscriptions() {
    engine.createQueue("jobs", QueueConfig.defaults());
    PushWire.Subscription paused =
        new PushWire.Subscription(
            "hook", null, url(), null, 5, null, 1, null, 1, 1, 0L, 1000L, 8000L, null, true, null,
            null, null);
    push.create("jobs", paused, 4096);
    engine.send("jobs", NewMessage.of("waits"));
    clock.advanceMillis(1000);
    assertEquals(1, engine.stats("jobs").available(), "paused: nothing taken");
    assertEquals("paused", push.stats("jobs", "hook").state());
    push.paused("jobs", "hook", false);
    Await.until(() -> requests.size() == 1, "delivered once resumed");
    push.paused("jobs", "hook", true);
    engine.deleteQueue("jobs");
    clock.advanceMillis(PushDelivery.LOOK.toMillis());
    engine.createQueue("jobs", QueueConfig.defaults());
    assertEquals(List.of(), push.list("jobs"), "deleted with its queue");
  }

  private static PushWire.Subscription keyed(
      String url, int concurrent, Double perSecond, PushWire.KeyLimit keyLimit) {
    return new PushWire.Subscription(
        "hook",
        null,
        url,
        null,
        5,
        null,
        concurrent,
        perSecond,
        1,
        1,
        0L,
        1000L,
        8000L,
        null,
        null,
        null,
        null,
        keyLimit);
  }

  private static String tenantOf(Request r) {
    return r.body().get("messages").get(0).get("body").asText().split("-")[0];
  }

  /**
   * A key at its concurrency limit (tenant {@code a}, two in flight of its six) leaves the
   * subscription's other slots to the messages behind it (tenant {@code b}'s two start at once, not
   * after {@code a}'s); once {@code a}'s deliveries end, the rest of {@code a} follows, never more
   * than two at a time; every message is delivered once and the keys are forgotten afterwards.
   */
  @Test
  void aKeyAtItsConcurrencyLimit_leavesTheOthersToTheRest_andIsForgottenWhenIdle()
      throws Exception {
    engine.createQueue("jobs", QueueConfig.defaults());
    for (int i = 0; i < 6; i++) {
      engine.send("jobs", NewMessage.builder("a-" + i).attribute("tenant", "a").build());
    }
    for (int i = 0; i < 2; i++) {
      engine.send("jobs", NewMessage.builder("b-" + i).attribute("tenant", "b").build());
    }
    java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(0);
    java.util.Map<String, AtomicInteger> perTenant = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.Map<String, AtomicInteger> perTenantMax =
        new java.util.concurrent.ConcurrentHashMap<>();
    List<String> started = new CopyOnWriteArrayList<>();
    answer =
        r -> {
          String t = tenantOf(r);
          int now = perTenant.computeIfAbsent(t, k -> new AtomicInteger()).incrementAndGet();
          perTenantMax
              .computeIfAbsent(t, k -> new AtomicInteger())
              .accumulateAndGet(now, Math::max);
          started.add(r.body().get("messages").get(0).get("body").asText());
          try {
            gate.acquire();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          perTenant.get(t).decrementAndGet();
          return new Answer(200, "", null);
        };
    push.create("jobs", keyed(url(), 10, null, new PushWire.KeyLimit("tenant", 2, null)), 4096);
    Await.until(() -> started.size() == 4, "a's two and b's two in flight");
    assertEquals(
        Set.of("a-0", "a-1", "b-0", "b-1"), Set.copyOf(started), "b is not held up behind a");
    assertEquals(4, engine.stats("jobs").available(), "a's other four wait");
    assertEquals(2, push.keys("jobs", "hook").orElseThrow().inFlight("a"));
    gate.release(1000);
    for (int i = 0; i < 50 && engine.stats("jobs").depth() > 0; i++) {
      // what this instant allows has happened: the deliveries ended and the subscription waits in
      // its receive (the short wait of a key at its limit), which the clock's step then ends
      Await.until(
          () ->
              push.counters("jobs", "hook").orElseThrow().sending.get() == 0
                  && engine.stats("jobs").inFlight() == 0
                  && (engine.stats("jobs").waitingReceivers() > 0
                      || engine.stats("jobs").depth() == 0),
          "the deliveries of this instant");
      clock.advanceMillis(PushKeys.BLOCKED_WAIT_MILLIS);
    }
    assertEquals(0, engine.stats("jobs").depth(), "every job delivered");
    assertEquals(8, requests.size(), "each once");
    assertEquals(2, perTenantMax.get("a").get(), "never more than two of a at once");
    assertEquals(0, push.keys("jobs", "hook").orElseThrow().remembered(), "idle keys forgotten");
  }

  /**
   * The queue's own limit per key (its {@code keyLimit}: one message of a group in flight) holds
   * for a push subscription as for any receive: group {@code a}'s next message is delivered only
   * once the one before is acknowledged, {@code b}'s goes beside it, and the acknowledgement wakes
   * the subscription's waiting receive at once: the clock never moves.
   */
  @Test
  void theQueuesKeyLimit_holdsForPushDeliveries_andAnAckWakesTheNextAtOnce() throws Exception {
    engine.createQueue("jobs", QueueConfig.builder().keyLimit(1).build());
    for (int i = 0; i < 3; i++) {
      engine.send("jobs", NewMessage.builder("a-" + i).groupId("a").build());
    }
    engine.send("jobs", NewMessage.builder("b-0").groupId("b").build());
    java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(0);
    AtomicInteger inFlightA = new AtomicInteger();
    AtomicInteger maxInFlightA = new AtomicInteger();
    List<String> started = new CopyOnWriteArrayList<>();
    answer =
        r -> {
          boolean a = tenantOf(r).equals("a");
          if (a) {
            maxInFlightA.accumulateAndGet(inFlightA.incrementAndGet(), Math::max);
          }
          started.add(r.body().get("messages").get(0).get("body").asText());
          try {
            gate.acquire();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          if (a) {
            inFlightA.decrementAndGet();
          }
          return new Answer(200, "", null);
        };
    long at = clock.millis();
    push.create("jobs", subscription(url(), 10, null, 1, 1), 4096);
    Await.until(() -> started.size() == 2, "a's first and b's in flight");
    assertEquals(Set.of("a-0", "b-0"), Set.copyOf(started), "a holds one, b is not held up");
    assertEquals(2, engine.stats("jobs").available(), "a's other two wait in the queue");
    gate.release(1000);
    Await.until(() -> engine.stats("jobs").depth() == 0, "every job delivered");
    assertEquals(
        List.of("a-0", "a-1", "a-2"), started.stream().filter(b -> b.startsWith("a")).toList());
    assertEquals(1, maxInFlightA.get(), "never two of a at once");
    assertEquals(at, clock.millis(), "no step of the clock was needed");
    assertTrue(engine.stats("jobs").counters().keyLimited() >= 1);
  }

  /**
   * A rate per key (tenant {@code a} at 2/s, a bucket of one): {@code a}'s messages start at most
   * two in any second while {@code b}'s go at once; nothing is lost, and once every bucket is full
   * again no key is remembered.
   */
  @Test
  void aRatePerKey_spacesThatKeysDeliveries_andNotTheOthers() {
    engine.createQueue("jobs", QueueConfig.defaults());
    for (int i = 0; i < 5; i++) {
      engine.send("jobs", NewMessage.builder("a-" + i).attribute("tenant", "a").build());
    }
    for (int i = 0; i < 3; i++) {
      engine.send("jobs", NewMessage.builder("b-" + i).attribute("tenant", "b").build());
    }
    engine.send("jobs", NewMessage.of("untagged-0")); // no key: only the subscription's limits
    push.create("jobs", keyed(url(), 10, null, new PushWire.KeyLimit("tenant", null, 2.0)), 4096);
    long start = clock.millis();
    for (int i = 0; i < 60 && engine.stats("jobs").depth() > 0; i++) {
      settle("jobs");
      clock.advanceMillis(PushKeys.BLOCKED_WAIT_MILLIS);
    }
    settle("jobs");
    assertEquals(0, engine.stats("jobs").depth(), "every job delivered");
    assertEquals(9, requests.size(), "each once");
    List<Long> aTimes =
        requests.stream().filter(r -> tenantOf(r).equals("a")).map(Request::atMillis).toList();
    for (long from : aTimes) {
      long inWindow = aTimes.stream().filter(t -> t >= from && t < from + 1000).count();
      assertTrue(inWindow <= 2, "at most 2 of a in the second from " + from + ": " + aTimes);
    }
    assertTrue(
        aTimes.get(4) - aTimes.get(0) >= 1500, "a's five spread over two seconds: " + aTimes);
    long bDone =
        requests.stream()
            .filter(r -> tenantOf(r).equals("b"))
            .mapToLong(Request::atMillis)
            .max()
            .orElseThrow();
    assertTrue(bDone - start <= 1000, "b's three (1 at once, then 2/s) are not held up by a");
    clock.advanceMillis(1000);
    settle("jobs");
    PushKeys keys = push.keys("jobs", "hook").orElseThrow();
    assertTrue(!keys.anyAtLimit(clock.millis()), "every bucket full again");
    assertEquals(0, keys.remembered(), "and no key remembered");
  }

  /** A key limit that names no attribute or no limit is refused, saying what is allowed. */
  @Test
  void aKeyLimitWithoutAnAttributeOrALimit_isRefused() {
    engine.createQueue("q", QueueConfig.defaults());
    io.switchboard.queue.QueueException noLimit =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.switchboard.queue.QueueException.class,
            () ->
                push.create(
                    "q", keyed(url(), 1, null, new PushWire.KeyLimit("tenant", null, null)), 4096));
    assertTrue(
        noLimit.getMessage().contains("maxConcurrent, maxPerSecond or both"), noLimit.getMessage());
    io.switchboard.queue.QueueException badName =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.switchboard.queue.QueueException.class,
            () ->
                push.create(
                    "q", keyed(url(), 1, null, new PushWire.KeyLimit("a b", 1, null)), 4096));
    assertTrue(badName.getMessage().contains("got 'a b'"), badName.getMessage());
    io.switchboard.queue.QueueException zero =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.switchboard.queue.QueueException.class,
            () ->
                push.create(
                    "q", keyed(url(), 1, null, new PushWire.KeyLimit("tenant", 0, null)), 4096));
    assertTrue(
        zero.getMessage().contains("keyLimit.maxConcurrent must be 1..1000, got 0"),
        zero.getMessage());
    assertEquals(List.of(), push.list("q"), "nothing made");
  }

  /** The secret is the server's: a body that names one is refused and nothing is made. */
  @Test
  void aBodyGivingASecret_isRefused() {
    engine.createQueue("q", QueueConfig.defaults());
    PushWire.Subscription withSecret =
        PushWire.Subscription.to("hook", url()).withSecret("mine-and-sixteen-chars");
    io.switchboard.queue.QueueException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.switchboard.queue.QueueException.class, () -> push.create("q", withSecret, 4096));
    assertEquals(io.switchboard.queue.ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("secret"), e.getMessage());
    assertEquals(List.of(), push.list("q"));
  }

  /**
   * A grouped queue keeps order within a group whatever the concurrency: a group's next message is
   * not delivered while one of it is in flight, and a failed delivery of a group's head holds the
   * group until that head is delivered; other groups go on meanwhile.
   */
  @Test
  void aGroupedQueue_deliversEachGroupInOrder_andAFailedHeadHoldsItsGroup() {
    engine.createQueue(
        "orders.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    for (String body : List.of("A1", "A2", "A3")) {
      engine.send("orders.fifo", NewMessage.builder(body).groupId("A").build());
    }
    engine.send("orders.fifo", NewMessage.builder("B1").groupId("B").build());
    java.util.concurrent.atomic.AtomicBoolean failedOnce =
        new java.util.concurrent.atomic.AtomicBoolean();
    answer =
        r -> {
          String body = r.body().at("/messages/0/body").asText();
          return body.equals("A1") && failedOnce.compareAndSet(false, true)
              ? new Answer(500, "", null)
              : new Answer(200, "", null);
        };
    push.create("orders.fifo", subscription(url(), 4, null, 1, 1), 4096);
    for (int i = 0; i < 100 && engine.stats("orders.fifo").depth() > 0; i++) {
      settle("orders.fifo");
      clock.advanceMillis(100);
    }
    settle("orders.fifo");
    assertEquals(0, engine.stats("orders.fifo").depth(), "every message delivered");
    List<String> groupA =
        requests.stream()
            .map(r -> r.body().at("/messages/0/body").asText())
            .filter(b -> b.startsWith("A"))
            .toList();
    assertEquals(
        List.of("A1", "A1", "A2", "A3"), groupA, "group A in order, its head retried first");
    assertTrue(
        requests.stream().anyMatch(r -> r.body().at("/messages/0/body").asText().equals("B1")));
  }

  private static boolean signedWith(String secret, Request r) throws Exception {
    String[] parts = r.signature().split(",");
    String t = parts[0].substring(2);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
    return parts[1].equals("v1=" + java.util.HexFormat.of().formatHex(mac.doFinal(r.raw())));
  }
}
