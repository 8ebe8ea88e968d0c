package io.switchboard.client;

import io.switchboard.client.wire.Json.Required;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The push-subscription API's bodies ({@code /v1/queues/{queue}/subscriptions}, {@code
 * docs/api.md}, "Push subscriptions"), shared by the client and the server. {@code null} is an
 * absent field; the server fills in the defaults it applies.
 */
public final class PushWire {

  private PushWire() {}

  /**
   * A subscription: how a create or a change gives it, and how the API shows it. {@code secret} is
   * in the answer to its creation and to a rotation only, never again; {@code queue}, {@code
   * createdAt} are the server's.
   *
   * @param name {@code [A-Za-z0-9_-]{1,80}}, unique within its queue
   * @param url the endpoint: absolute {@code http} or {@code https}, no user info or fragment
   * @param headers extra request headers (at most 20; none of the server's own)
   * @param timeoutSeconds how long one delivery waits for its answer, 1..60 (default 10)
   * @param selector only messages it matches (the selector language), or every message
   * @param maxConcurrent deliveries in flight at once, 1..1000 (default 10)
   * @param maxPerSecond deliveries started per second, more than 0 up to 100,000; none: no rate
   * @param burst how many deliveries may start at once after a quiet spell, 1..10,000 (default 1)
   * @param batchSize messages per delivery, 1..100 (default 1)
   * @param batchWindowMillis how long a delivery waits to fill its batch, 0..60,000 (default 0)
   * @param minBackoffMillis the first retry's delay, 100..900,000 (default 1,000)
   * @param maxBackoffMillis the longest retry delay, minBackoff..900,000 (the longest delay of a
   *     release; default 60,000)
   * @param maxAttempts failed deliveries after which a message goes to the dead-letter queue,
   *     1..1000; none: the queue's maxReceiveCount decides
   * @param paused whether it is paused (default false)
   * @param keyLimit limits per value of one message attribute (a tenant, say); none: no such limit
   */
  public record Subscription(
      @Required String name,
      @Nullable String queue,
      @Required String url,
      @Nullable Map<String, String> headers,
      @Nullable Integer timeoutSeconds,
      @Nullable String selector,
      @Nullable Integer maxConcurrent,
      @Nullable Double maxPerSecond,
      @Nullable Integer burst,
      @Nullable Integer batchSize,
      @Nullable Long batchWindowMillis,
      @Nullable Long minBackoffMillis,
      @Nullable Long maxBackoffMillis,
      @Nullable Integer maxAttempts,
      @Nullable Boolean paused,
      @Nullable String createdAt,
      @Nullable String secret,
      @Nullable KeyLimit keyLimit) {

    /** A subscription of {@code name} to {@code url} with every other setting its default. */
    public static Subscription to(String name, String url) {
      return new Subscription(
          name, null, url, null, null, null, null, null, null, null, null, null, null, null, null,
          null, null, null);
    }

    /** This one without its secret: how every answer but a creation's or a rotation's shows it. */
    public Subscription withoutSecret() {
      return withSecret(null);
    }

    public Subscription withSecret(@Nullable String secret) {
      return new Subscription(
          name,
          queue,
          url,
          headers,
          timeoutSeconds,
          selector,
          maxConcurrent,
          maxPerSecond,
          burst,
          batchSize,
          batchWindowMillis,
          minBackoffMillis,
          maxBackoffMillis,
          maxAttempts,
          paused,
          createdAt,
          secret,
          keyLimit);
    }

    /** This one with {@code headers} instead of its own. */
    public Subscription withHeaders(@Nullable Map<String, String> headers) {
      return new Subscription(
          name,
          queue,
          url,
          headers,
          timeoutSeconds,
          selector,
          maxConcurrent,
          maxPerSecond,
          burst,
          batchSize,
          batchWindowMillis,
          minBackoffMillis,
          maxBackoffMillis,
          maxAttempts,
          paused,
          createdAt,
          secret,
          keyLimit);
    }

    @Override
    public String toString() {
      return "Subscription[" + queue + "/" + name + " -> " + url + ", secret hidden]";
    }
  }

  /**
   * A subscription's limits per key: the messages with one value of {@code attribute} (a string or
   * a number; a message without it is not limited by key) have at most {@code maxConcurrent} in
   * flight and start at most {@code maxPerSecond} per second. At least one of the two.
   *
   * @param attribute the message attribute whose value is the key, {@code [A-Za-z0-9_.-]{1,256}}
   * @param maxConcurrent messages of one key in flight at once, 1..1000
   * @param maxPerSecond messages of one key started per second, more than 0 up to 100,000
   */
  public record KeyLimit(
      @Required String attribute, @Nullable Integer maxConcurrent, @Nullable Double maxPerSecond) {}

  /** {@code GET /v1/queues/{queue}/subscriptions}: the queue's subscriptions, by name. */
  public record SubscriptionList(@Required List<Subscription> subscriptions) {
    public SubscriptionList {
      subscriptions = List.copyOf(subscriptions);
    }
  }

  /**
   * {@code GET .../subscriptions/{name}/stats}: what it did since this server started running it.
   *
   * @param state {@code running}, {@code paused}, or {@code idle} (another server runs it)
   * @param deliveries requests sent
   * @param delivered messages acknowledged after a 2xx
   * @param failures failed messages by cause: {@code throttled} (429/503), {@code timeout}, {@code
   *     connection}, {@code status} (other non-2xx), {@code refused} (an address the server does
   *     not send to), {@code item} (listed in {@code batchItemFailures})
   * @param deadLettered messages sent to the dead-letter queue after {@code maxAttempts}
   * @param inFlight deliveries in flight now
   * @param concurrencyLimit the concurrency it allows itself now (adapted down after 429/503)
   * @param rateLimit the deliveries per second it allows itself now, when it has a rate
   * @param latencyMillisAvg the mean time from request to answer
   * @param latencyMillisMax the longest
   * @param backlog messages available in the queue now
   */
  public record Stats(
      @Required String state,
      long deliveries,
      long delivered,
      @Required Map<String, Long> failures,
      long deadLettered,
      int inFlight,
      int concurrencyLimit,
      @Nullable Double rateLimit,
      double latencyMillisAvg,
      long latencyMillisMax,
      long backlog) {}
}
