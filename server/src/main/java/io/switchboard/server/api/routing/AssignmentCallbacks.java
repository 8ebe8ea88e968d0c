package io.switchboard.server.api.routing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json;
import io.switchboard.routing.Agent;
import io.switchboard.routing.AssignmentCallback;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.Contact;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.Workspaces;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.server.security.RequestSignature;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the assignment callbacks of workflows that name one ({@code docs/routing.md}, "Assignment
 * callbacks"): each offer of a contact such a workflow routes is POSTed to the workflow's URL,
 * signed with the workspace's {@link CallbackSecret}; the answer {@code {"instruction":"accept"}}
 * accepts the offer, {@code {"instruction":"reject"}} rejects it, anything else 2xx leaves it to
 * the agent. Connection failures, timeouts, 408, 429 and 5xx are retried with exponential backoff
 * on the injected clock while the offer is pending; when the offer times out first it times out as
 * any other does (the router's own timer), so a receiver that never answers costs an offer timeout.
 *
 * <p>Only routers built by this server produce the offers ({@link #listener}), so on servers
 * sharing PostgreSQL only the routing leader sends callbacks. The router's thread only counts and
 * hands the offer over: lookups, signing and the request run on virtual threads, at most {@code
 * maxInFlight} requests at once, at most {@code maxPending} callbacks between offer and decision.
 * An offer past that bound gets no callback (a warning and the {@code dropped} count say so): it is
 * left to the agent and times out as usual.
 */
public final class AssignmentCallbacks implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AssignmentCallbacks.class);

  /** The signature header: {@code t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">}. */
  static final String SIGNATURE = RequestSignature.HEADER;

  static final int DEFAULT_MAX_PENDING = 10_000;
  static final int DEFAULT_MAX_IN_FLIGHT = 64;
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** The most of an answer's body read; a longer answer is not an instruction. */
  static final int MAX_ANSWER_BYTES = 64 * 1024;

  /** How callbacks ended, counted in {@code switchboard_routing_callbacks_total{outcome}}. */
  public enum Outcome {
    /** The answer accepted the offer. */
    ACCEPTED,
    /** The answer rejected the offer. */
    REJECTED,
    /** 2xx without an instruction: the agent answers. */
    NO_INSTRUCTION,
    /** An answer that is no instruction the server reads, or a 4xx: left to the agent. */
    INVALID,
    /** No decisive answer before the offer ended (it timed out, or the agent answered). */
    UNDECIDED,
    /** Not sent: {@code maxPending} callbacks were pending. */
    DROPPED,
    /**
     * Not sent: the URL's host resolved to an address the server does not send to ({@link
     * OutboundAddresses}), or did not resolve; left to the agent.
     */
    FAILED;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Supplier<Workspaces> workspaces;
  private final Clock clock;
  private final OutboundAddresses outbound;
  private final HttpClient http;
  private final int maxPending;
  private final Semaphore inFlight;
  private final ExecutorService threads;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicLong retries = new AtomicLong();

  /** How many callbacks ended with each outcome, by its ordinal. */
  private final AtomicLongArray outcomes = new AtomicLongArray(Outcome.values().length);

  private final PriorityQueue<Retry> due = new PriorityQueue<>();
  private final Scheduler.Repeating timers;

  /**
   * Per workspace, the last definition seen at an offer and whether a workflow of it names a
   * callback; compared by identity, as the definition is immutable and replaced on each change.
   */
  private final Map<String, CallbackWorkflows> callbackWorkflows = new ConcurrentHashMap<>();

  private record CallbackWorkflows(WorkspaceDefinition definition, boolean any) {}

  /** One callback: the offer it is about, and how many attempts were made. */
  private record Delivery(String workspace, String reservationId, Instant expiresAt) {}

  private record Retry(long dueMillis, Delivery delivery, int attempt)
      implements Comparable<Retry> {
    @Override
    public int compareTo(Retry o) {
      return Long.compare(dueMillis, o.dueMillis);
    }
  }

  /**
   * @param outbound the addresses callbacks may be sent to, checked on every attempt against what
   *     the URL's host resolves to then
   */
  public AssignmentCallbacks(
      Supplier<Workspaces> workspaces, Clock clock, OutboundAddresses outbound) {
    this(workspaces, clock, DEFAULT_MAX_PENDING, DEFAULT_MAX_IN_FLIGHT, outbound);
  }

  public AssignmentCallbacks(
      Supplier<Workspaces> workspaces,
      Clock clock,
      int maxPending,
      int maxInFlight,
      OutboundAddresses outbound) {
    this.workspaces = workspaces;
    this.clock = clock;
    this.outbound = outbound;
    this.maxPending = maxPending;
    this.inFlight = new Semaphore(maxInFlight);
    this.threads =
        Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("switchboard-callback-", 0).factory());
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(threads)
            .build();
    this.timers = clock.timers("switchboard-callback-retries", this::fireDue);
  }

  /**
   * The event listener of workspace {@code workspace}'s router ({@link Router.Builder#onEvent}):
   * hands each offer of a workspace with a callback workflow to the callbacks, quickly.
   */
  public Consumer<RoutingEvent> listener(String workspace) {
    return e -> {
      if (e instanceof RoutingEvent.ReservationOffered offered) {
        offered(workspace, offered.reservation());
      }
    };
  }

  private void offered(String workspace, Reservation r) {
    Optional<Workspace> ws = workspace(workspace);
    if (ws.isEmpty()) {
      callbackWorkflows.remove(workspace);
      return;
    }
    if (!anyCallback(ws.get().definition())) {
      return; // the common case: nothing to call, nothing to look up
    }
    if (pending.incrementAndGet() > maxPending) {
      pending.decrementAndGet();
      outcomes.incrementAndGet(Outcome.DROPPED.ordinal());
      LOG.atWarn()
          .addKeyValue("workspace", workspace)
          .addKeyValue("reservation", r.id())
          .addKeyValue("pending", maxPending)
          .log(
              "assignment callback not sent: too many pending; the offer is left to the agent"
                  + " and times out as usual");
      return;
    }
    start(new Delivery(workspace, r.id(), r.expiresAt()), 1);
  }

  /**
   * Whether a workflow of {@code def} names a callback: worked out once per definition (a change of
   * the workspace makes a new one, so a workflow that gains or loses its callback is seen at the
   * next offer), not on every offer.
   */
  private boolean anyCallback(WorkspaceDefinition def) {
    CallbackWorkflows known = callbackWorkflows.get(def.name());
    if (known != null && known.definition() == def) {
      return known.any();
    }
    boolean any = def.workflows().stream().anyMatch(w -> w.assignmentCallback().isPresent());
    callbackWorkflows.put(def.name(), new CallbackWorkflows(def, any));
    return any;
  }

  private void start(Delivery d, int attempt) {
    try {
      threads.execute(() -> attempt(d, attempt));
    } catch (RejectedExecutionException closed) {
      pending.decrementAndGet();
    }
  }

  private Optional<Workspace> workspace(String name) {
    try {
      Workspaces all = workspaces.get();
      return all == null ? Optional.empty() : Optional.of(all.get(name));
    } catch (RuntimeException gone) { // deleted, or no longer leading
      return Optional.empty();
    }
  }

  /** What an attempt found: the offer is still pending and its workflow has a callback. */
  private record Target(
      Router router,
      Reservation reservation,
      Contact contact,
      Agent agent,
      Workflow workflow,
      AssignmentCallback callback,
      CallbackSecret secret) {}

  private Optional<Target> target(Delivery d) {
    Optional<Workspace> ws = workspace(d.workspace());
    if (ws.isEmpty()) {
      return Optional.empty();
    }
    try {
      Router router = ws.get().router();
      Reservation r = router.reservation(d.reservationId());
      if (r.state() != ReservationState.PENDING) {
        return Optional.empty();
      }
      Contact contact = router.contact(r.contactId());
      WorkspaceDefinition def = ws.get().definition();
      Optional<Workflow> workflow = contact.workflow().flatMap(def::workflow);
      if (workflow.isEmpty()
          || workflow.get().assignmentCallback().isEmpty()
          || def.callbackSecret().isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          new Target(
              router,
              r,
              contact,
              router.agent(r.agentId()),
              workflow.get(),
              workflow.get().assignmentCallback().get(),
              def.callbackSecret().get()));
    } catch (RoutingException gone) { // the offer, contact or agent is gone: nothing to decide
      return Optional.empty();
    }
  }

  private void attempt(Delivery d, int attempt) {
    Optional<Target> found = target(d);
    if (found.isEmpty()) {
      if (attempt == 1) {
        pending.decrementAndGet(); // nothing to call: answered at once, or no callback workflow
      } else {
        finish(Outcome.UNDECIDED);
      }
      return;
    }
    Target t = found.get();
    long now = clock.millis();
    long left = d.expiresAt().toEpochMilli() - now;
    if (left <= 0) {
      finish(Outcome.UNDECIDED);
      return;
    }
    try {
      outbound.checkSend("assignmentCallbackUrl", t.callback().uri());
    } catch (OutboundAddresses.Refused e) {
      LOG.atWarn()
          .addKeyValue("workspace", d.workspace())
          .addKeyValue("workflow", t.workflow().name())
          .addKeyValue("reservation", d.reservationId())
          .addKeyValue("url", t.callback().url())
          .log("assignment callback not sent, the offer is left to the agent: " + e.getMessage());
      finish(Outcome.FAILED);
      return;
    }
    byte[] body = body(d, t, attempt);
    long seconds = now / 1000;
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(t.callback().url()))
            .timeout(Duration.ofMillis(Math.min(t.callback().timeout().toMillis(), left)))
            .header("Content-Type", "application/json")
            .header("User-Agent", "switchboard-assignment-callback")
            .header(SIGNATURE, signature(t.secret(), seconds, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    int status;
    byte[] answer;
    try {
      inFlight.acquire();
      try {
        HttpResponse<InputStream> response =
            http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        status = response.statusCode();
        try (InputStream in = response.body()) {
          answer = in.readNBytes(MAX_ANSWER_BYTES + 1);
        }
      } finally {
        inFlight.release();
      }
    } catch (IOException e) {
      retry(d, attempt, t, "no answer (" + e.getClass().getSimpleName() + ")");
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      finish(Outcome.UNDECIDED);
      return;
    }
    if (status >= 500 || status == 408 || status == 429) {
      retry(d, attempt, t, "status " + status);
    } else if (status < 200 || status > 299) {
      invalid(d, t, "status " + status + " is neither 2xx nor worth a retry");
    } else {
      decide(d, t, answer);
    }
  }

  /**
   * The callback's body: the workspace, workflow, offer, contact (id, channel, priority, task
   * queue, attributes), agent (id, attributes) and the attempt, from 1.
   */
  private static byte[] body(Delivery d, Target t, int attempt) {
    ObjectNode body = Json.tree(Map.of());
    body.put("workspace", d.workspace());
    body.put("workflow", t.workflow().name());
    body.put("reservationId", t.reservation().id());
    if (t.contact().queue().isPresent()) {
      body.put("taskQueue", t.contact().queue().get());
    } else {
      body.putNull("taskQueue");
    }
    body.put("offeredAt", t.reservation().offeredAt().toString());
    body.put("expiresAt", t.reservation().expiresAt().toString());
    body.put("attempt", attempt);
    ObjectNode contact = body.putObject("contact");
    contact.put("id", t.contact().id());
    contact.put("channel", t.contact().channel());
    contact.put("priority", t.contact().priority());
    contact.set("attributes", Json.tree(t.contact().attributes()));
    ObjectNode agent = body.putObject("agent");
    agent.put("id", t.agent().id());
    agent.set("attributes", Json.tree(t.agent().attributes()));
    return Json.bytes(body);
  }

  /** The signature of {@link RequestSignature}, the one every outbound request carries. */
  static String signature(CallbackSecret secret, long seconds, byte[] body) {
    return RequestSignature.sign(secret, seconds, body);
  }

  private void decide(Delivery d, Target t, byte[] answer) {
    if (answer.length > MAX_ANSWER_BYTES) {
      invalid(d, t, "the answer is longer than " + MAX_ANSWER_BYTES + " bytes");
      return;
    }
    String text = new String(answer, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      finish(Outcome.NO_INSTRUCTION);
      return;
    }
    JsonNode node;
    try {
      node = Json.LENIENT.readTree(text);
    } catch (IOException e) {
      invalid(d, t, "the answer is not JSON");
      return;
    }
    JsonNode instruction = node == null ? null : node.get("instruction");
    if (instruction == null || instruction.isNull()) {
      finish(Outcome.NO_INSTRUCTION);
      return;
    }
    String said = instruction.asText("");
    try {
      switch (said) {
        case "accept" -> {
          t.router().accept(d.reservationId());
          finish(Outcome.ACCEPTED);
        }
        case "reject" -> {
          t.router().reject(d.reservationId());
          finish(Outcome.REJECTED);
        }
        default ->
            invalid(
                d,
                t,
                "instruction must be \"accept\" or \"reject\", got '"
                    + (said.length() > 40 ? said.substring(0, 40) + "..." : said)
                    + "'");
      }
    } catch (RoutingException late) { // the agent answered first, or the offer timed out
      LOG.atDebug()
          .addKeyValue("reservation", d.reservationId())
          .addKeyValue("instruction", said)
          .log("assignment callback answered after the offer ended: " + late.getMessage());
      finish(Outcome.UNDECIDED);
    }
  }

  private void invalid(Delivery d, Target t, String why) {
    LOG.atWarn()
        .addKeyValue("workspace", d.workspace())
        .addKeyValue("workflow", t.workflow().name())
        .addKeyValue("reservation", d.reservationId())
        .addKeyValue("url", t.callback().url())
        .log("assignment callback answer ignored, the offer is left to the agent: " + why);
    finish(Outcome.INVALID);
  }

  /**
   * Schedules attempt {@code attempt + 1} after {@code FIRST_BACKOFF * 2^(attempt-1)} (at most
   * {@code MAX_BACKOFF}) on the clock, unless the offer expires first.
   */
  private void retry(Delivery d, int attempt, Target t, String why) {
    long backoff =
        Math.min(MAX_BACKOFF.toMillis(), FIRST_BACKOFF.toMillis() << Math.min(attempt - 1, 20));
    long at = clock.millis() + backoff;
    if (at >= d.expiresAt().toEpochMilli()) {
      LOG.atWarn()
          .addKeyValue("workspace", d.workspace())
          .addKeyValue("workflow", t.workflow().name())
          .addKeyValue("reservation", d.reservationId())
          .addKeyValue("url", t.callback().url())
          .addKeyValue("attempts", attempt)
          .log(
              "assignment callback got "
                  + why
                  + "; no time to retry before the offer times out, which it will as usual");
      finish(Outcome.UNDECIDED);
      return;
    }
    LOG.atInfo()
        .addKeyValue("workspace", d.workspace())
        .addKeyValue("reservation", d.reservationId())
        .addKeyValue("attempt", attempt)
        .addKeyValue("retryInMillis", backoff)
        .log("assignment callback got " + why + "; retrying");
    retries.incrementAndGet();
    synchronized (due) {
      due.add(new Retry(at, d, attempt + 1));
    }
    timers.wakeBy(at);
  }

  /** Starts the retries that fell due; the time of the next, or {@code Long.MAX_VALUE}. */
  private long fireDue() {
    long now = clock.millis();
    while (true) {
      Retry next;
      synchronized (due) {
        next = due.peek();
        if (next == null) {
          return Long.MAX_VALUE;
        }
        if (next.dueMillis() > now) {
          return next.dueMillis();
        }
        due.poll();
      }
      start(next.delivery(), next.attempt());
    }
  }

  private void finish(Outcome outcome) {
    outcomes.incrementAndGet(outcome.ordinal());
    pending.decrementAndGet();
  }

  /** How many callbacks ended with {@code outcome} since the start. */
  public long count(Outcome outcome) {
    return outcomes.get(outcome.ordinal());
  }

  /** How many attempts were retried since the start. */
  public long retries() {
    return retries.get();
  }

  /** Callbacks between offer and decision now. */
  public int pending() {
    return pending.get();
  }

  @Override
  public void close() {
    timers.close();
    threads.shutdownNow();
    http.shutdownNow(); // not close(), which would wait for a receiver that does not answer
  }
}
