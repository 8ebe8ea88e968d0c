package io.switchboard.server.api.push;

import io.switchboard.client.PushWire;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.routing.AssignmentCallback;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.RoutingException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A push subscription's settings, checked, with its defaults applied and its secret: what {@link
 * PushStore} keeps and {@link PushDelivery} runs. {@link #of} checks a create or a change and
 * refuses anything out of range with {@code INVALID_ARGUMENT} (the field, what is allowed, the
 * value given); the URL's form as assignment callbacks' ({@code INVALID_CALLBACK_URL}).
 */
record PushSpec(
    String queue,
    String name,
    String url,
    Map<String, String> headers,
    Duration timeout,
    Optional<String> selector,
    int maxConcurrent,
    OptionalDouble maxPerSecond,
    int burst,
    int batchSize,
    Duration batchWindow,
    Duration minBackoff,
    Duration maxBackoff,
    OptionalInt maxAttempts,
    boolean paused,
    String createdAt,
    CallbackSecret secret,
    Optional<KeyLimit> keyLimit) {

  /** Limits per value of one message attribute ({@link PushKeys}). */
  record KeyLimit(String attribute, OptionalInt maxConcurrent, OptionalDouble maxPerSecond) {}

  static final Pattern ATTRIBUTE = Pattern.compile("[A-Za-z0-9_.-]{1,256}");

  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,80}");
  static final int MAX_HEADERS = 20;
  static final int MAX_HEADER_VALUE = 1000;
  static final int DEFAULT_TIMEOUT_SECONDS = 10;
  static final int DEFAULT_MAX_CONCURRENT = 10;
  static final int MAX_CONCURRENT = 1000;
  static final double MAX_PER_SECOND = 100_000;
  static final int MAX_BURST = 10_000;
  static final int MAX_BATCH = 100;
  static final long MAX_BATCH_WINDOW_MILLIS = 60_000;
  static final long MIN_BACKOFF_MILLIS = 100;
  static final long MAX_BACKOFF_MILLIS = 900_000;
  static final long DEFAULT_MIN_BACKOFF_MILLIS = 1_000;
  static final long DEFAULT_MAX_BACKOFF_MILLIS = 60_000;

  /** Headers the server sets itself, which a subscription may not set. */
  private static final Set<String> RESERVED =
      Set.of(
          "host",
          "content-type",
          "content-length",
          "connection",
          "transfer-encoding",
          "user-agent",
          "expect",
          "upgrade",
          "te",
          "trailer");

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");

  /** The margin a delivery's lease keeps beyond its batch window and timeout. */
  static final Duration LEASE_MARGIN = Duration.ofSeconds(5);

  @Override
  public String toString() {
    return "PushSpec[" + queue + "/" + name + " -> " + url + ", secret hidden]";
  }

  /** How long a delivery holds its messages' leases: the window, the timeout and a margin. */
  Duration lease() {
    return batchWindow.plus(timeout).plus(LEASE_MARGIN);
  }

  URI uri() {
    return URI.create(url);
  }

  /** The selector compiled, if it has one. */
  Optional<MessageFilter> filter() {
    return selector.map(SelectorFilter::parse);
  }

  PushSpec paused(boolean paused) {
    return new PushSpec(
        queue,
        name,
        url,
        headers,
        timeout,
        selector,
        maxConcurrent,
        maxPerSecond,
        burst,
        batchSize,
        batchWindow,
        minBackoff,
        maxBackoff,
        maxAttempts,
        paused,
        createdAt,
        secret,
        keyLimit);
  }

  PushSpec secret(CallbackSecret secret) {
    return new PushSpec(
        queue,
        name,
        url,
        headers,
        timeout,
        selector,
        maxConcurrent,
        maxPerSecond,
        burst,
        batchSize,
        batchWindow,
        minBackoff,
        maxBackoff,
        maxAttempts,
        paused,
        createdAt,
        secret,
        keyLimit);
  }

  /** Whether {@code other} runs the same way (everything but the pause flag and creation time). */
  boolean runsLike(PushSpec other) {
    return equals(other.paused(paused));
  }

  /**
   * Checks {@code w} for {@code queue}, its defaults applied.
   *
   * @param maxSelectorLength the server's {@code max-selector-length}
   * @throws QueueException {@code INVALID_ARGUMENT}, {@code INVALID_SELECTOR} or {@code
   *     INVALID_CALLBACK_URL}'s message as {@code INVALID_ARGUMENT}, naming the field
   */
  static PushSpec of(
      String queue,
      PushWire.Subscription w,
      int maxSelectorLength,
      String createdAt,
      CallbackSecret secret) {
    checkName(w.name());
    try {
      AssignmentCallback.checkUrl("url", w.url());
    } catch (RoutingException e) {
      throw QueueException.invalid(String.valueOf(e.getMessage()));
    }
    Map<String, String> headers = headers(w.headers());
    int timeout = range("timeoutSeconds", w.timeoutSeconds(), DEFAULT_TIMEOUT_SECONDS, 1, 60);
    Optional<String> selector = Optional.ofNullable(w.selector());
    if (selector.isPresent()) {
      if (selector.get().length() > maxSelectorLength) {
        throw new QueueException(
            io.switchboard.queue.ErrorCode.INVALID_SELECTOR,
            "selector must be at most "
                + maxSelectorLength
                + " characters, got "
                + selector.get().length());
      }
      SelectorFilter.parse(selector.get()); // INVALID_SELECTOR, saying where
    }
    int concurrent =
        range("maxConcurrent", w.maxConcurrent(), DEFAULT_MAX_CONCURRENT, 1, MAX_CONCURRENT);
    OptionalDouble rate = OptionalDouble.empty();
    if (w.maxPerSecond() != null) {
      double r = w.maxPerSecond();
      if (!(r > 0) || r > MAX_PER_SECOND) {
        throw QueueException.invalid(
            "maxPerSecond must be more than 0 and at most "
                + (long) MAX_PER_SECOND
                + " (or absent: no rate), got "
                + r);
      }
      rate = OptionalDouble.of(r);
    }
    int burst = range("burst", w.burst(), 1, 1, MAX_BURST);
    int batch = range("batchSize", w.batchSize(), 1, 1, MAX_BATCH);
    long window =
        rangeLong("batchWindowMillis", w.batchWindowMillis(), 0, 0, MAX_BATCH_WINDOW_MILLIS);
    long minBackoff =
        rangeLong(
            "minBackoffMillis",
            w.minBackoffMillis(),
            DEFAULT_MIN_BACKOFF_MILLIS,
            MIN_BACKOFF_MILLIS,
            MAX_BACKOFF_MILLIS);
    long maxBackoff =
        rangeLong(
            "maxBackoffMillis",
            w.maxBackoffMillis(),
            Math.max(minBackoff, DEFAULT_MAX_BACKOFF_MILLIS),
            minBackoff,
            MAX_BACKOFF_MILLIS);
    OptionalInt attempts =
        w.maxAttempts() == null
            ? OptionalInt.empty()
            : OptionalInt.of(range("maxAttempts", w.maxAttempts(), 0, 1, 1000));
    Optional<KeyLimit> keyLimit = keyLimit(w.keyLimit());
    return new PushSpec(
        queue,
        w.name(),
        w.url(),
        headers,
        Duration.ofSeconds(timeout),
        selector,
        concurrent,
        rate,
        burst,
        batch,
        Duration.ofMillis(window),
        Duration.ofMillis(minBackoff),
        Duration.ofMillis(maxBackoff),
        attempts,
        Boolean.TRUE.equals(w.paused()),
        createdAt,
        secret,
        keyLimit);
  }

  private static Optional<KeyLimit> keyLimit(PushWire.@Nullable KeyLimit k) {
    if (k == null) {
      return Optional.empty();
    }
    if (k.attribute() == null || !ATTRIBUTE.matcher(k.attribute()).matches()) {
      throw QueueException.invalid(
          "keyLimit.attribute must name a message attribute, [A-Za-z0-9_.-]{1,256}, got '"
              + (k.attribute() == null ? "null" : clip(k.attribute()))
              + "'");
    }
    if (k.maxConcurrent() == null && k.maxPerSecond() == null) {
      throw QueueException.invalid(
          "keyLimit must give maxConcurrent, maxPerSecond or both (a limit per key), got neither");
    }
    OptionalInt concurrent =
        k.maxConcurrent() == null
            ? OptionalInt.empty()
            : OptionalInt.of(
                range("keyLimit.maxConcurrent", k.maxConcurrent(), 0, 1, MAX_CONCURRENT));
    OptionalDouble rate = OptionalDouble.empty();
    if (k.maxPerSecond() != null) {
      double r = k.maxPerSecond();
      if (!(r > 0) || r > MAX_PER_SECOND) {
        throw QueueException.invalid(
            "keyLimit.maxPerSecond must be more than 0 and at most "
                + (long) MAX_PER_SECOND
                + ", got "
                + r);
      }
      rate = OptionalDouble.of(r);
    }
    return Optional.of(new KeyLimit(k.attribute(), concurrent, rate));
  }

  static void checkName(@Nullable String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw QueueException.invalid(
          "a subscription name must match [A-Za-z0-9_-]{1,80}, got '"
              + (name == null ? "null" : clip(name))
              + "'");
    }
  }

  /** What answers show of a header's value: it often carries a credential. */
  static final String HIDDEN = "(hidden)";

  /**
   * The wire form: every setting; header values and the secret only when {@code stored} (what
   * {@link PushStore} writes), else the headers' names with their values hidden and the secret only
   * when {@code withSecret}.
   */
  PushWire.Subscription wire(boolean stored, boolean withSecret) {
    Map<String, String> shown = headers;
    if (!stored) {
      shown = new TreeMap<>();
      for (String h : headers.keySet()) {
        shown.put(h, HIDDEN);
      }
    }
    return new PushWire.Subscription(
        name,
        queue,
        url,
        shown.isEmpty() ? null : shown,
        (int) timeout.toSeconds(),
        selector.orElse(null),
        maxConcurrent,
        maxPerSecond.isPresent() ? maxPerSecond.getAsDouble() : null,
        burst,
        batchSize,
        batchWindow.toMillis(),
        minBackoff.toMillis(),
        maxBackoff.toMillis(),
        maxAttempts.isPresent() ? maxAttempts.getAsInt() : null,
        paused,
        createdAt,
        stored || withSecret ? secret.value() : null,
        keyLimit
            .map(
                k ->
                    new PushWire.KeyLimit(
                        k.attribute(),
                        k.maxConcurrent().isPresent() ? k.maxConcurrent().getAsInt() : null,
                        k.maxPerSecond().isPresent() ? k.maxPerSecond().getAsDouble() : null))
            .orElse(null));
  }

  private static Map<String, String> headers(@Nullable Map<String, String> given) {
    if (given == null || given.isEmpty()) {
      return Map.of();
    }
    if (given.size() > MAX_HEADERS) {
      throw QueueException.invalid(
          "headers may name at most " + MAX_HEADERS + " headers, got " + given.size());
    }
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : given.entrySet()) {
      String n = e.getKey();
      String v = e.getValue();
      if (!TOKEN.matcher(n).matches()) {
        throw QueueException.invalid(
            "a header name must be an HTTP token of 1..100 characters, got '" + clip(n) + "'");
      }
      String lower = n.toLowerCase(Locale.ROOT);
      if (RESERVED.contains(lower) || lower.startsWith("x-switchboard-")) {
        throw QueueException.invalid(
            "header '"
                + n
                + "' is the server's own (Host, Content-Type, Content-Length, Connection,"
                + " User-Agent and X-Switchboard-* are set by the server)");
      }
      if (v == null
          || v.length() > MAX_HEADER_VALUE
          || v.chars().anyMatch(c -> c < 0x20 && c != '\t')
          || v.indexOf(0x7f) >= 0) {
        throw QueueException.invalid(
            "header '"
                + n
                + "' must have a value of at most "
                + MAX_HEADER_VALUE
                + " characters without control characters");
      }
      out.put(n, v);
    }
    return Map.copyOf(out);
  }

  private static int range(String field, @Nullable Integer given, int dflt, int min, int max) {
    if (given == null) {
      return dflt;
    }
    if (given < min || given > max) {
      throw QueueException.invalid(field + " must be " + min + ".." + max + ", got " + given);
    }
    return given;
  }

  private static long rangeLong(String field, @Nullable Long given, long dflt, long min, long max) {
    if (given == null) {
      return dflt;
    }
    if (given < min || given > max) {
      throw QueueException.invalid(field + " must be " + min + ".." + max + ", got " + given);
    }
    return given;
  }

  private static String clip(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }
}
