package io.switchboard.server.api.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueException;
import io.switchboard.server.api.push.PushStats.Cause;
import io.switchboard.server.dispatch.Sink;
import io.switchboard.server.dispatch.Subscription;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.server.security.RequestSignature;
import io.switchboard.time.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One push subscription's HTTP side: the dispatcher hands it each receive's messages ({@link
 * #deliverBatch}), it POSTs them as one signed delivery on a virtual thread and settles them by the
 * answer (docs/design.md, "Push delivery": 2xx acknowledges all but {@code batchItemFailures}; 429
 * and 503 release them after {@code Retry-After} and slow the subscription; anything else releases
 * them after the backoff). Settling goes through the dispatcher's subscription, so its credit comes
 * back; the pace's slot comes back when the delivery ends.
 */
final class PushSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(PushSink.class);

  /** The delivery id's header. */
  static final String DELIVERY = "X-Switchboard-Delivery";

  /** The most of an answer's body read; a longer answer lists no failures. */
  static final int MAX_ANSWER_BYTES = 256 * 1024;

  private final PushSpec spec;
  private final boolean grouped;
  private final Clock clock;
  private final HttpClient http;
  private final ExecutorService threads;
  private final OutboundAddresses outbound;
  private final PushPace pace;
  private final PushStats stats;
  private final Consumer<QueueException> onFailed;
  private final Optional<PushKeys> keys;
  private final CompletableFuture<Subscription> subscription = new CompletableFuture<>();
  private volatile boolean halted;

  /** Receipts of delivered messages not yet acknowledged, and whether a thread acks them now. */
  private final java.util.concurrent.ConcurrentLinkedQueue<String> toAck =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  private final java.util.concurrent.atomic.AtomicBoolean acking =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** The most receipts one engine call acknowledges. */
  static final int MAX_ACKS = 1000;

  PushSink(
      PushSpec spec,
      boolean grouped,
      Clock clock,
      HttpClient http,
      ExecutorService threads,
      OutboundAddresses outbound,
      PushPace pace,
      PushStats stats,
      Optional<PushKeys> keys,
      Consumer<QueueException> onFailed) {
    this.keys = keys;
    this.spec = spec;
    this.grouped = grouped;
    this.clock = clock;
    this.http = http;
    this.threads = threads;
    this.outbound = outbound;
    this.pace = pace;
    this.stats = stats;
    this.onFailed = onFailed;
  }

  /** The dispatcher's subscription this sink settles through, once it is open. */
  void opened(Subscription s) {
    subscription.complete(s);
  }

  @Override
  public void deliver(Message message) {
    deliverBatch(List.of(message));
  }

  /**
   * Sends what a receive took: as one delivery, or where the pace let the receive take several
   * deliveries' worth ({@link PushPace}), as batches of the batch size, each its own delivery.
   */
  @Override
  public void deliverBatch(List<Message> messages) {
    keys.ifPresent(k -> k.taken(messages, clock.millis()));
    int size = spec.batchSize();
    try {
      if (messages.size() <= size) {
        List<Message> batch = List.copyOf(messages);
        threads.execute(() -> send(batch));
        return;
      }
      for (int i = 0; i < messages.size(); i += size) {
        List<Message> batch = List.copyOf(messages.subList(i, Math.min(messages.size(), i + size)));
        threads.execute(() -> send(batch));
      }
    } catch (RejectedExecutionException stopping) {
      // the server is stopping: the dispatcher's close releases these leases
    }
  }

  /**
   * The server halts (a process dying, for tests of failover): from now on nothing is settled, so
   * the messages of deliveries in flight keep their leases until those run out, as a dead server's
   * do.
   */
  void halt() {
    halted = true;
  }

  @Override
  public void failed(QueueException error) {
    onFailed.accept(error);
  }

  private void send(List<Message> messages) {
    stats.sending.incrementAndGet();
    try {
      sendNow(messages);
    } finally {
      stats.sending.decrementAndGet();
      keys.ifPresent(k -> k.ended(messages, clock.millis()));
    }
  }

  private void sendNow(List<Message> messages) {
    Subscription sub = subscription.join();
    stats.deliveries.incrementAndGet();
    try {
      outbound.checkSend("url", spec.uri());
    } catch (OutboundAddresses.Refused e) {
      LOG.atWarn()
          .addKeyValue("queue", spec.queue())
          .addKeyValue("subscription", spec.name())
          .log("push delivery not sent: " + e.getMessage());
      failAll(sub, messages, Cause.REFUSED, Optional.empty());
      return;
    }
    String deliveryId = UUID.randomUUID().toString();
    byte[] body = body(deliveryId, messages);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(spec.uri())
            .timeout(spec.timeout())
            .header("Content-Type", "application/json")
            .header("User-Agent", "switchboard-push")
            .header(DELIVERY, deliveryId)
            .header(
                RequestSignature.HEADER,
                RequestSignature.sign(spec.secret(), clock.millis() / 1000, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    spec.headers().forEach(request::header);
    long started = System.nanoTime();
    int status;
    byte[] answer;
    Optional<String> retryAfter;
    try {
      HttpResponse<InputStream> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      status = response.statusCode();
      retryAfter = response.headers().firstValue("Retry-After");
      try (InputStream in = response.body()) {
        answer = in.readNBytes(MAX_ANSWER_BYTES + 1);
      }
    } catch (HttpConnectTimeoutException e) {
      failAll(sub, messages, Cause.CONNECTION, Optional.empty());
      return;
    } catch (HttpTimeoutException e) {
      failAll(sub, messages, Cause.TIMEOUT, Optional.empty());
      return;
    } catch (IOException e) {
      failAll(sub, messages, Cause.CONNECTION, Optional.empty());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failAll(sub, messages, Cause.CONNECTION, Optional.empty());
      return;
    } finally {
      stats.latency((System.nanoTime() - started) / 1_000_000);
    }
    if (halted) {
      return; // a dead server settles nothing: the leases run out
    }
    if (status == 429 || status == 503) {
      failAll(sub, messages, Cause.THROTTLED, retryAfter.flatMap(this::retryAfterMillis));
    } else if (status < 200 || status > 299) {
      failAll(sub, messages, Cause.STATUS, Optional.empty());
    } else {
      succeeded(sub, messages, itemFailures(answer));
    }
  }

  /** The delivery's body: the subscription, the queue, the delivery id and the messages. */
  private byte[] body(String deliveryId, List<Message> messages) {
    ObjectNode root = Json.tree(Map.of());
    root.put("subscription", spec.name());
    root.put("queue", spec.queue());
    root.put("deliveryId", deliveryId);
    ArrayNode list = root.putArray("messages");
    for (Message m : messages) {
      ObjectNode o = list.addObject();
      o.put("id", m.id());
      o.put("body", m.body());
      o.set("attributes", WireFormat.attributes(m.attributes()));
      o.put("priority", m.priority());
      m.groupId().ifPresent(g -> o.put("groupId", g));
      o.put("receiveCount", m.receiveCount());
      o.put("sentAt", m.sentAt().toString());
    }
    return Json.bytes(root);
  }

  /** The ids a 2xx answer lists as failed ({@code {"batchItemFailures":[{"itemIdentifier"}]}}). */
  private static Set<String> itemFailures(byte[] answer) {
    if (answer.length == 0 || answer.length > MAX_ANSWER_BYTES) {
      return Set.of();
    }
    JsonNode node;
    try {
      node = Json.LENIENT.readTree(answer);
    } catch (IOException e) {
      return Set.of(); // not JSON: a plain 2xx
    }
    Set<String> ids = new HashSet<>();
    if (node != null && node.get("batchItemFailures") instanceof ArrayNode items) {
      for (JsonNode item : items) {
        JsonNode id = item.get("itemIdentifier");
        if (id != null && id.isTextual()) {
          ids.add(id.asText());
        }
      }
    }
    return ids;
  }

  private void succeeded(Subscription sub, List<Message> messages, Set<String> failedIds) {
    pace.delivered();
    Set<String> blockedGroups = new HashSet<>();
    List<Message> failed = new ArrayList<>();
    for (Message m : messages) {
      Optional<String> group = grouped ? m.groupId() : Optional.empty();
      boolean fails =
          failedIds.contains(m.id()) || (group.isPresent() && blockedGroups.contains(group.get()));
      if (fails) {
        group.ifPresent(blockedGroups::add); // order within a group: nothing behind it is acked
        failed.add(m);
        continue;
      }
      toAck.add(m.receipt().orElseThrow());
    }
    ackPending(sub);
    if (!failed.isEmpty()) {
      stats.failed(Cause.ITEM, failed.size());
      for (Message m : failed) {
        retry(sub, m, backoffMillis(m.receiveCount()));
      }
    }
  }

  /**
   * Acknowledges the delivered messages waiting for it, many in one engine call ({@link
   * Subscription#ackAll}: one durable write), as a group commit: whichever delivery finds no other
   * thread acknowledging takes every receipt waiting, and again while more arrived meanwhile; the
   * others return at once. A message gone meanwhile (expired, removed, its lease ran out) counts as
   * delivered: the endpoint had it.
   */
  private void ackPending(Subscription sub) {
    while (!toAck.isEmpty() && acking.compareAndSet(false, true)) {
      try {
        List<String> receipts = new ArrayList<>();
        for (String r = toAck.poll(); r != null; r = toAck.poll()) {
          receipts.add(r);
          if (receipts.size() == MAX_ACKS) {
            break;
          }
        }
        if (!receipts.isEmpty()) {
          sub.ackAll(receipts);
          stats.delivered.addAndGet(receipts.size());
        }
      } finally {
        acking.set(false);
      }
    }
  }

  private void failAll(
      Subscription sub, List<Message> messages, Cause cause, Optional<Long> after) {
    if (halted) {
      return;
    }
    stats.failed(cause, messages.size());
    if (cause == Cause.THROTTLED) {
      long now = clock.millis();
      pace.throttled(
          after.isPresent()
              ? java.util.OptionalLong.of(now + after.get())
              : java.util.OptionalLong.empty(),
          this::backoffMillis);
      for (Message m : messages) {
        retry(sub, m, after.orElseGet(() -> backoffMillis(m.receiveCount())));
      }
      return;
    }
    pace.failed(this::backoffMillis);
    for (Message m : messages) {
      retry(sub, m, backoffMillis(m.receiveCount()));
    }
  }

  /**
   * Hands a failed message back after {@code delayMillis}, at its place; to the dead-letter queue
   * once it failed {@code maxAttempts} times (a queue without one gets it back after the longest
   * backoff instead).
   */
  private void retry(Subscription sub, Message m, long delayMillis) {
    String receipt = m.receipt().orElseThrow();
    try {
      if (spec.maxAttempts().isPresent() && m.receiveCount() >= spec.maxAttempts().getAsInt()) {
        try {
          sub.deadLetter(receipt);
          stats.deadLettered.incrementAndGet();
          return;
        } catch (QueueException e) {
          if (e.code() == ErrorCode.RECEIPT_STALE
              || e.code() == ErrorCode.MESSAGE_NOT_FOUND
              || e.code() == ErrorCode.MESSAGE_NOT_IN_FLIGHT) {
            return;
          }
          delayMillis = spec.maxBackoff().toMillis(); // no dead-letter queue: never dropped
        }
      }
      long capped = Math.min(delayMillis, io.switchboard.queue.QueueConfig.MAX_DELAY.toMillis());
      sub.release(receipt, Duration.ofMillis(capped), false);
    } catch (QueueException e) {
      // its lease ran out or it is gone: the queue has it back already, or it has ended
    }
  }

  /**
   * The backoff before retry {@code n} (1 for the first): {@code minBackoff · 2^(n-1)}, at most
   * {@code maxBackoff}, with full jitter over its upper half.
   */
  long backoffMillis(int n) {
    long min = spec.minBackoff().toMillis();
    long max = spec.maxBackoff().toMillis();
    long b = Math.min(max, min << Math.min(Math.max(n, 1) - 1, 30));
    return b / 2 + ThreadLocalRandom.current().nextLong(b / 2 + 1);
  }

  /**
   * {@code Retry-After} in seconds or as an HTTP date, as milliseconds from now; at most an hour.
   */
  private Optional<Long> retryAfterMillis(String value) {
    String v = value.strip();
    try {
      long seconds = Long.parseLong(v);
      return Optional.of(Math.min(3_600_000L, Math.max(0, seconds) * 1000));
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        long ms = at.toEpochMilli() - clock.millis();
        return Optional.of(Math.min(3_600_000L, Math.max(0, ms)));
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
  }
}
