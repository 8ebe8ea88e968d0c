package io.switchboard.server.api.push;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.StreamedAnswers;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueException;
import io.switchboard.server.api.push.PushStats.Cause;
import io.switchboard.server.dispatch.Sink;
import io.switchboard.server.dispatch.Subscription;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.server.security.RequestSignature;
import io.switchboard.time.Clock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
 * #deliverBatch}), it POSTs them as one signed delivery on a virtual thread ({@link PushClient}: a
 * kept-alive connection of the subscription's) and settles them by the answer (docs/design.md,
 * "Push delivery": 2xx acknowledges all but {@code batchItemFailures}; 429 and 503 release them
 * after {@code Retry-After} and slow the subscription; anything else releases them after the
 * backoff). Settling goes through the dispatcher's subscription, so its credit comes back; the
 * pace's slot comes back when the delivery ends.
 */
final class PushSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(PushSink.class);

  /** The delivery id's header. */
  static final String DELIVERY = "X-Switchboard-Delivery";

  private final PushSpec spec;
  private final boolean grouped;
  private final Clock clock;
  private final PushClient client;
  private final RequestSignature.Signer signer;
  private final ExecutorService threads;
  private final OutboundAddresses outbound;
  private final PushPace pace;
  private final PushStats stats;
  private final Consumer<QueueException> onFailed;
  private final Optional<PushKeys> keys;
  private final CompletableFuture<Subscription> subscription = new CompletableFuture<>();

  /** The endpoint's URL, parsed once. */
  private final URI uri;

  /**
   * Delivery ids: UUIDs (version 4's form) whose 122 free bits are a random number drawn once per
   * sink and a count of its deliveries, so no two deliveries of a server share one and a delivery
   * takes no read of the system's random source (a lock and a system call each).
   */
  private final long idHigh;

  private final long idLowBase;
  private final java.util.concurrent.atomic.AtomicLong idCount =
      new java.util.concurrent.atomic.AtomicLong();
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
      PushClient client,
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
    this.client = client;
    this.signer = RequestSignature.signer(spec.secret());
    this.uri = spec.uri();
    UUID seed = UUID.randomUUID();
    this.idHigh = seed.getMostSignificantBits();
    this.idLowBase = seed.getLeastSignificantBits();
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
    client.abort();
  }

  /**
   * The subscription stopped (paused, changed, deleted): its idle connections close now, those of
   * deliveries in flight when these end.
   */
  void stopped() {
    client.close();
  }

  /** The server stops: every connection closes now, those of deliveries in flight too. */
  void abort() {
    client.abort();
  }

  /** Closes the connections unused for longer than {@link PushClient#IDLE}. */
  void closeIdle() {
    client.closeIdle();
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
    InetAddress address;
    try {
      address = outbound.checkSend("url", uri)[0];
    } catch (OutboundAddresses.Refused e) {
      LOG.atWarn()
          .addKeyValue("queue", spec.queue())
          .addKeyValue("subscription", spec.name())
          .log("push delivery not sent: " + e.getMessage());
      failAll(sub, messages, Cause.REFUSED, Optional.empty());
      return;
    }
    String deliveryId = nextDeliveryId();
    byte[] body = body(deliveryId, messages);
    byte[] request =
        client.request(
            DELIVERY + ": " + deliveryId,
            RequestSignature.HEADER + ": " + signer.sign(clock.millis() / 1000, body),
            body);
    long started = System.nanoTime();
    PushClient.Answer answer;
    try {
      answer = client.post(address, request, spec.timeout());
    } catch (PushClient.Failed e) {
      failAll(
          sub,
          messages,
          e.failure == PushClient.Failure.TIMEOUT ? Cause.TIMEOUT : Cause.CONNECTION,
          Optional.empty());
      return;
    } finally {
      stats.latency((System.nanoTime() - started) / 1_000_000);
    }
    if (halted) {
      return; // a dead server settles nothing: the leases run out
    }
    int status = answer.status();
    if (status == 429 || status == 503) {
      failAll(sub, messages, Cause.THROTTLED, answer.retryAfter().flatMap(this::retryAfterMillis));
    } else if (status < 200 || status > 299) {
      failAll(sub, messages, Cause.STATUS, Optional.empty());
    } else {
      succeeded(sub, messages, itemFailures(answer.body()));
    }
  }

  /** A delivery id no other delivery of this server has: a UUID (version 4's form). */
  private String nextDeliveryId() {
    long low = idLowBase + idCount.incrementAndGet();
    // the variant bits (10) of an RFC 9562 UUID; the version (4) is the random seed's own
    return new UUID(idHigh, (low & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L).toString();
  }

  /**
   * The delivery's body: the subscription, the queue, the delivery id and the messages, written as
   * it is generated.
   */
  private byte[] body(String deliveryId, List<Message> messages) {
    int size = 160;
    for (Message m : messages) {
      size += 200 + m.body().length();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
    try (JsonGenerator g = Json.STRICT.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("subscription", spec.name());
      g.writeStringField("queue", spec.queue());
      g.writeStringField("deliveryId", deliveryId);
      g.writeArrayFieldStart("messages");
      for (Message m : messages) {
        g.writeStartObject();
        g.writeStringField("id", m.id());
        g.writeStringField("body", m.body());
        StreamedAnswers.attributes(g, m.attributes());
        g.writeNumberField("priority", m.priority());
        if (m.groupId().isPresent()) {
          g.writeStringField("groupId", m.groupId().get());
        }
        g.writeNumberField("receiveCount", m.receiveCount());
        g.writeStringField("sentAt", m.sentAt().toString());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }

  /** The ids a 2xx answer lists as failed ({@code {"batchItemFailures":[{"itemIdentifier"}]}}). */
  private static Set<String> itemFailures(byte[] answer) {
    if (answer.length == 0 || answer.length > PushClient.MAX_ANSWER_BYTES) {
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
