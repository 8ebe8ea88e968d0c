package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.WireFormat;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A server-sent event stream read on a background thread; every wait for an event or for the end is
 * bounded.
 */
final class SseStream implements AutoCloseable {

  private static final long DEFAULT_TIMEOUT_SECONDS = 15;
  private static final Object END = new Object();

  /** One event as read: its id (0 when it has none), type and data. */
  record Event(long id, String type, JsonNode data) {}

  private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
  private final Stream<String> lines;
  private final long timeoutSeconds;
  final HttpResponse<Stream<String>> response;

  SseStream(HttpClient client, URI uri, Map<String, String> headers) throws Exception {
    this(client, uri, headers, DEFAULT_TIMEOUT_SECONDS);
  }

  /** Opens the stream; every later wait for an event or for the end gives up after the timeout. */
  SseStream(HttpClient client, URI uri, Map<String, String> headers, long timeoutSeconds)
      throws Exception {
    this.timeoutSeconds = timeoutSeconds;
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).GET();
    headers.forEach(b::header);
    response =
        client
            .sendAsync(b.build(), HttpResponse.BodyHandlers.ofLines())
            .get(timeoutSeconds, TimeUnit.SECONDS);
    lines = response.body();
    Thread.ofVirtual().start(this::pump);
  }

  private void pump() {
    Map<String, String> fields = new HashMap<>();
    try {
      lines.forEach(
          line -> {
            if (line.isEmpty()) {
              if (fields.containsKey("data")) {
                events.add(
                    new Event(
                        Long.parseLong(fields.getOrDefault("id", "0")),
                        fields.get("event"),
                        WireFormat.parse(fields.get("data").getBytes(StandardCharsets.UTF_8))));
              }
              fields.clear();
            } else if (!line.startsWith(":")) {
              int colon = line.indexOf(':');
              fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
          });
    } catch (RuntimeException closed) {
      // the stream broke: the same as its end for the reader
    }
    events.add(END);
  }

  /** The next event; fails if none comes within the timeout or the stream ended. */
  Event next() throws InterruptedException {
    Object e = events.poll(timeoutSeconds, TimeUnit.SECONDS);
    assertNotNull(e, "no event within " + timeoutSeconds + " s");
    assertTrue(e instanceof Event, "stream ended");
    return (Event) e;
  }

  /** The next {@code n} events, each within the timeout. */
  List<Event> next(int n) throws InterruptedException {
    List<Event> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(next());
    }
    return out;
  }

  /** Reads events until one matches, handing every event read to {@code seen}. */
  Event until(Predicate<Event> wanted, java.util.function.Consumer<Event> seen)
      throws InterruptedException {
    while (true) {
      Event e = next();
      seen.accept(e);
      if (wanted.test(e)) {
        return e;
      }
    }
  }

  /** Waits for the stream to end, handing every event still read to {@code seen}. */
  void awaitEnd(java.util.function.Consumer<Event> seen) throws InterruptedException {
    while (true) {
      Object e = events.poll(timeoutSeconds, TimeUnit.SECONDS);
      assertNotNull(e, "stream did not end within " + timeoutSeconds + " s");
      if (e == END) {
        return;
      }
      seen.accept((Event) e);
    }
  }

  /** Waits for the server to end the stream. */
  void awaitEnd() throws InterruptedException {
    awaitEnd(e -> {});
  }

  @Override
  public void close() {
    lines.close();
  }
}
