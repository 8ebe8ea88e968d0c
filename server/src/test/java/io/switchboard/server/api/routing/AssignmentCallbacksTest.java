package io.switchboard.server.api.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.routing.Activity;
import io.switchboard.routing.AssignmentCallback;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowTarget;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.testing.Await;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Assignment callbacks (docs/routing.md, "Assignment callbacks") against a receiver on an ephemeral
 * port, with the routers and the callbacks' retries on a manual clock: accept assigns, reject moves
 * the contact to the next agent, 5xx is retried with backoff as the clock advances, a receiver that
 * never answers costs an offer timeout (and its late accept assigns nothing), every request is
 * signed with the workspace's secret, and a full queue of pending callbacks drops instead of
 * growing.
 */
class AssignmentCallbacksTest {

  private static final long WAIT_SECONDS = 10;

  private final ManualClock clock = ManualClock.create();
  private final AtomicReference<Workspaces> registry = new AtomicReference<>();
  private AssignmentCallbacks callbacks;
  private Router defaultRouter;
  private Workspaces workspaces;
  private Workspace centre;
  private HttpServer receiver;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
  private final BlockingQueue<Step> script = new LinkedBlockingQueue<>();
  private final BlockingQueue<RoutingEvent> events = new LinkedBlockingQueue<>();

  /** A request the receiver got. */
  private record Received(String signature, byte[] body) {
    JsonNode json() {
      return WireFormat.parse(body);
    }
  }

  /** What the receiver answers next: a status and body, after {@code hold} opens. */
  private record Step(int status, String body, CountDownLatch hold) {
    static Step answer(int status, String body) {
      return new Step(status, body, new CountDownLatch(0));
    }
  }

  @BeforeEach
  void start() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext("/offers", this::receive);
    receiver.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    receiver.start();
    start(AssignmentCallbacks.DEFAULT_MAX_PENDING);
  }

  private void start(int maxPending) {
    start(maxPending, OutboundAddresses.privateAllowed(), url());
  }

  private void start(int maxPending, OutboundAddresses outbound, String callbackUrl) {
    callbacks = new AssignmentCallbacks(registry::get, clock, maxPending, 4, outbound);
    defaultRouter =
        Router.builder().clock(clock).onEvent(callbacks.listener(Workspaces.DEFAULT)).build();
    workspaces =
        new Workspaces(
            defaultRouter,
            WorkspaceSettings.DEFAULTS,
            WorkspaceStore.memory(),
            WorkspaceRouters.memory(
                w ->
                    w.settings()
                        .applyTo(Router.builder().clock(clock))
                        .onEvent(callbacks.listener(w.name()))));
    registry.set(workspaces);
    centre =
        workspaces.create(
            WorkspaceDefinition.create(
                "centre",
                WorkspaceSettings.DEFAULTS,
                List.of(new Activity("Ready", true), new Activity("offline", false))));
    centre.putQueue(TaskQueue.named("general"));
    centre.putWorkflow(
        new Workflow(
                "support", List.of(), List.of(WorkflowTarget.queue("general")), Optional.empty())
            .withAssignmentCallback(Optional.of(AssignmentCallback.to(callbackUrl))));
    centre.router().onEvent(events::add);
  }

  @AfterEach
  void stop() {
    script.clear();
    stopRouting();
    receiver.stop(0);
  }

  private void stopRouting() {
    callbacks.close();
    workspaces.close();
    defaultRouter.close();
  }

  private String url() {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/offers";
  }

  private void receive(HttpExchange ex) throws IOException {
    byte[] body = ex.getRequestBody().readAllBytes();
    received.add(new Received(ex.getRequestHeaders().getFirst("X-Switchboard-Signature"), body));
    Step step = script.poll();
    if (step == null) {
      step = Step.answer(200, "");
    }
    try {
      step.hold().await(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    byte[] answer = step.body().getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(step.status(), answer.length == 0 ? -1 : answer.length);
    if (answer.length > 0) {
      ex.getResponseBody().write(answer);
    }
    ex.close();
  }

  private void agent(String id) {
    centre.createAgent(NewAgent.builder(id).capacity("voice", 1).build(), Optional.of("Ready"));
  }

  private Contact call(String id) {
    return centre.createContact(
        NewContact.builder(id, "voice").attributes(Map.of("topic", "billing")).build(),
        Optional.empty(),
        Optional.of("support"));
  }

  private Received request() throws InterruptedException {
    Received r = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertNotNull(r, "the receiver got no callback");
    return r;
  }

  private RoutingEvent event(Predicate<RoutingEvent> wanted, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (true) {
      RoutingEvent e = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertNotNull(e, "no event: " + what);
      if (wanted.test(e)) {
        return e;
      }
    }
  }

  private static String hmac(String secret, String text) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return java.util.HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void accept_assignsTheContact_andTheRequestIsSignedWithTheWorkspaceSecret() throws Exception {
    agent("ana");
    script.add(Step.answer(200, "{\"instruction\":\"accept\"}"));
    call("c1");

    Received r = request();
    JsonNode body = r.json();
    assertEquals("centre", body.get("workspace").asText());
    assertEquals("support", body.get("workflow").asText());
    assertEquals("general", body.get("taskQueue").asText());
    assertEquals(1, body.get("attempt").asInt());
    assertEquals("c1", body.at("/contact/id").asText());
    assertEquals("billing", body.at("/contact/attributes/topic").asText());
    assertEquals("ana", body.at("/agent/id").asText());
    String reservation = body.get("reservationId").asText();

    CallbackSecret secret = centre.definition().callbackSecret().orElseThrow();
    String[] parts = r.signature().split(",");
    assertTrue(parts[0].startsWith("t=") && parts[1].startsWith("v1="), r.signature());
    String t = parts[0].substring(2);
    assertEquals(clock.millis() / 1000, Long.parseLong(t));
    String signed = t + "." + new String(r.body(), StandardCharsets.UTF_8);
    assertEquals(hmac(secret.value(), signed), parts[1].substring(3));

    event(e -> e instanceof RoutingEvent.ReservationAccepted, "accepted");
    assertEquals(ContactState.ASSIGNED, centre.router().contact("c1").state());
    assertEquals(ReservationState.ACCEPTED, centre.router().reservation(reservation).state());
    Await.until(() -> callbacks.count(AssignmentCallbacks.Outcome.ACCEPTED) == 1, "accepted count");
  }

  @Test
  void reject_rejectsTheOffer_andTheContactGoesToTheNextAgent() throws Exception {
    agent("ana");
    agent("bo");
    script.add(Step.answer(200, "{\"instruction\":\"reject\"}"));
    script.add(Step.answer(200, "{\"instruction\":\"accept\"}"));
    call("c1");

    String first = request().json().at("/agent/id").asText();
    event(e -> e instanceof RoutingEvent.ReservationRejected, "rejected");
    String second = request().json().at("/agent/id").asText();
    assertTrue(!first.equals(second), "offered to " + first + " then " + second);
    event(e -> e instanceof RoutingEvent.ReservationAccepted, "accepted");
    assertEquals(Optional.of(second), centre.router().contact("c1").agentId());
  }

  @Test
  void alwaysReject_theOnlyAgentIsOfferedTheContactOncePerRestPeriod_noStorm() throws Exception {
    agent("ana");
    for (int i = 0; i < 20; i++) {
      script.add(Step.answer(200, "{\"instruction\":\"reject\"}"));
    }
    call("c1");
    for (int round = 0; round < 5; round++) {
      assertEquals("ana", request().json().at("/agent/id").asText());
      event(e -> e instanceof RoutingEvent.ReservationRejected, "rejected");
      // the reject and any new offer are one router call: a re-offer would show now
      assertEquals(ContactState.QUEUED, centre.router().contact("c1").state(), "round " + round);
      clock.advanceSeconds(29);
      assertEquals(ContactState.QUEUED, centre.router().contact("c1").state(), "resting");
      clock.advanceSeconds(1); // the rest period (30 s) is over: offered again, called back again
      // offered again at once: seen by its event, not by the contact's state, which the scripted
      // reject may already have turned back to QUEUED on a loaded machine
      event(e -> e instanceof RoutingEvent.ReservationOffered, "offered again, round " + round);
    }
    long offers =
        centre.router().events(0, 1000).events().stream()
            .filter(e -> e instanceof RoutingEvent.ReservationOffered)
            .count();
    assertEquals(6, offers, "one offer, then one per rest period: 5 × 30 s");
  }

  @Test
  void serverErrors_areRetriedWithBackoffOnTheClock_thenAccepted() throws Exception {
    agent("ana");
    script.add(Step.answer(500, "down"));
    script.add(Step.answer(503, ""));
    script.add(Step.answer(200, "{\"instruction\":\"accept\"}"));
    call("c1");

    assertEquals(1, request().json().get("attempt").asInt());
    Await.until(() -> callbacks.retries() == 1, "the first retry scheduled");
    clock.advance(Duration.ofMillis(999)); // the first backoff is 1 s
    assertTrue(received.isEmpty(), "retried before its backoff: " + received);
    clock.advance(Duration.ofMillis(1));
    assertEquals(2, request().json().get("attempt").asInt());
    Await.until(() -> callbacks.retries() == 2, "the second retry scheduled");
    clock.advance(Duration.ofMillis(1999)); // the second is 2 s
    assertTrue(received.isEmpty(), "retried before its backoff: " + received);
    clock.advance(Duration.ofMillis(1));
    assertEquals(3, request().json().get("attempt").asInt());

    event(e -> e instanceof RoutingEvent.ReservationAccepted, "accepted");
    assertEquals(ContactState.ASSIGNED, centre.router().contact("c1").state());
  }

  @Test
  void noAnswer_theOfferTimesOutAsAnAgentsWould_andALateAcceptAssignsNothing() throws Exception {
    agent("ana");
    CountDownLatch hold = new CountDownLatch(1);
    script.add(new Step(200, "{\"instruction\":\"accept\"}", hold));
    call("c1");
    String reservation = request().json().get("reservationId").asText();

    clock.advance(WorkspaceSettings.DEFAULTS.offerTimeout());
    event(e -> e instanceof RoutingEvent.ReservationTimedOut, "timed out");
    assertEquals(ReservationState.TIMED_OUT, centre.router().reservation(reservation).state());

    hold.countDown(); // the receiver answers, too late
    Await.until(
        () -> callbacks.count(AssignmentCallbacks.Outcome.UNDECIDED) >= 1,
        "the late answer counted as undecided");
    assertEquals(ReservationState.TIMED_OUT, centre.router().reservation(reservation).state());
    assertTrue(
        centre.router().contact("c1").state() != ContactState.ASSIGNED
            || !centre.router().contact("c1").reservationId().orElse("").equals(reservation),
        "the late accept assigned the timed-out offer");
  }

  @Test
  void emptyAnswer_leavesTheOfferToTheAgent() throws Exception {
    agent("ana");
    script.add(Step.answer(204, ""));
    Contact c = call("c1");
    request();
    Await.until(
        () -> callbacks.count(AssignmentCallbacks.Outcome.NO_INSTRUCTION) == 1, "no instruction");
    String reservation = centre.router().contact(c.id()).reservationId().orElseThrow();
    assertEquals(ReservationState.PENDING, centre.router().reservation(reservation).state());
    centre.router().accept(reservation); // the agent answers
    assertEquals(ContactState.ASSIGNED, centre.router().contact("c1").state());
  }

  /**
   * A name that resolves, when the callback is sent, to a link-local address (a cloud's metadata
   * service) is not called: whatever it resolved to when the workflow was configured, DNS may
   * answer differently now. The callback counts as failed and the offer is left to the agent.
   */
  @Test
  void aHostResolvingToAMetadataAddressAtSendTime_isNotCalled_andCountsAsFailed() throws Exception {
    stopRouting();
    InetAddress metadata = InetAddress.getByName("169.254.169.254");
    start(
        AssignmentCallbacks.DEFAULT_MAX_PENDING,
        new OutboundAddresses(() -> true, host -> new InetAddress[] {metadata}),
        "http://callbacks.example.test/offers");
    agent("ana");
    Contact c = call("c1");

    Await.until(() -> callbacks.count(AssignmentCallbacks.Outcome.FAILED) == 1, "failed");
    assertEquals(0, callbacks.pending());
    String reservation = centre.router().contact(c.id()).reservationId().orElseThrow();
    assertEquals(ReservationState.PENDING, centre.router().reservation(reservation).state());
    centre.router().accept(reservation); // the agent answers
    assertEquals(ContactState.ASSIGNED, centre.router().contact("c1").state());
  }

  /** With private addresses refused, a loopback receiver that listens gets no request. */
  @Test
  void aLoopbackReceiver_isNotCalled_whenPrivateAddressesAreRefused() throws Exception {
    stopRouting();
    start(
        AssignmentCallbacks.DEFAULT_MAX_PENDING,
        new OutboundAddresses(() -> false, InetAddress::getAllByName),
        url());
    agent("ana");
    call("c1");

    Await.until(() -> callbacks.count(AssignmentCallbacks.Outcome.FAILED) == 1, "failed");
    assertTrue(received.isEmpty(), "the loopback receiver was called: " + received);
    assertEquals(ContactState.OFFERED, centre.router().contact("c1").state());
  }

  @Test
  void fullQueueOfPendingCallbacks_dropsTheNewOne_whichTimesOutAsUsual() throws Exception {
    stopRouting();
    start(1);
    agent("ana");
    agent("bo");
    CountDownLatch hold = new CountDownLatch(1);
    script.add(new Step(200, "", hold));
    call("c1");
    request();
    call("c2"); // one callback is pending already: no callback for this offer
    Await.until(() -> callbacks.count(AssignmentCallbacks.Outcome.DROPPED) == 1, "dropped");
    assertEquals(1, callbacks.pending());
    hold.countDown();
    Await.until(() -> callbacks.pending() == 0, "the held callback finished");
    assertTrue(received.isEmpty(), "the dropped offer was called back: " + received);
    assertEquals(ContactState.OFFERED, centre.router().contact("c2").state());
  }

  /**
   * Whether a workspace has a callback workflow is worked out once per definition, not on every
   * offer: a workflow that gains a callback is called back from the next offer on, and one that
   * loses it is not.
   */
  @Test
  void workflowUpdated_gainingOrLosingItsCallback_isSeenAtTheNextOffer() throws Exception {
    Workflow plain =
        new Workflow(
            "support", List.of(), List.of(WorkflowTarget.queue("general")), Optional.empty());
    centre.putWorkflow(plain);
    agent("ana");
    call("c1");
    event(e -> e instanceof RoutingEvent.ReservationOffered, "c1 offered");
    Await.until(() -> callbacks.pending() == 0, "nothing pending");
    assertTrue(received.isEmpty(), "called back without a callback: " + received);

    centre.putWorkflow(plain.withAssignmentCallback(Optional.of(AssignmentCallback.to(url()))));
    agent("bo");
    call("c2");
    assertEquals("c2", request().json().at("/contact/id").asText());
    Await.until(() -> callbacks.pending() == 0, "the callback finished");

    centre.putWorkflow(plain);
    agent("cy");
    call("c3");
    event(
        e ->
            e instanceof RoutingEvent.ReservationOffered o
                && o.reservation().contactId().equals("c3"),
        "c3 offered");
    Await.until(() -> callbacks.pending() == 0, "nothing pending");
    assertTrue(received.isEmpty(), "called back after the callback was removed: " + received);
  }

  @Test
  void contactsOfWorkflowsWithoutCallback_areNotCalledBack() throws Exception {
    centre.putWorkflow(
        new Workflow(
            "plain", List.of(), List.of(WorkflowTarget.queue("general")), Optional.empty()));
    agent("ana");
    centre.createContact(
        NewContact.builder("c1", "voice").build(), Optional.empty(), Optional.of("plain"));
    event(e -> e instanceof RoutingEvent.ReservationOffered, "offered");
    Await.until(() -> callbacks.pending() == 0, "nothing pending");
    assertTrue(received.isEmpty(), "called back: " + received);
  }
}
