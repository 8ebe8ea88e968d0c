package io.switchboard.server.http;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.util.HashMap;
import java.util.Map;

/**
 * The caps on routing event streams (docs/operations.md, "Connections"): {@code max-event-streams}
 * open at once, and {@code max-event-streams-per-key} of one client ({@link ClientKey}: its
 * credential's key id, else its address). A stream over a cap is refused before it starts: 503 (the
 * server is full) or 429 (this client holds its share), code {@code TOO_MANY_EVENT_STREAMS}, with
 * {@code Retry-After}. A stream holds its place until its handler returns: when the client leaves,
 * that is at the first write that fails, an event or the probe a quiet stream writes every second
 * ({@link RoutingEventStreams}), so within about two seconds. Streams passed through to the routing
 * leader count on the server the client is connected to.
 */
public final class EventStreamLimits {

  private final int max;
  private final int maxPerKey;
  private final Map<ClientKey, Integer> perKey = new HashMap<>();
  private int open;
  private long refusedTotal;
  private long refusedPerKey;

  EventStreamLimits(int max, int maxPerKey) {
    this.max = max;
    this.maxPerKey = maxPerKey;
  }

  public static EventStreamLimits of(ServerConfig config) {
    return new EventStreamLimits(
        config.get(Settings.MAX_EVENT_STREAMS), config.get(Settings.MAX_EVENT_STREAMS_PER_KEY));
  }

  /** {@code stream}'s route, its handler holding a place while it streams. */
  public Route limited(Route stream) {
    Route.Endpoint endpoint = stream.endpoint();
    return stream.withEndpoint(
        call -> {
          ClientKey key = ClientKey.of(call);
          enter(key);
          try {
            endpoint.handle(call);
          } finally {
            exit(key);
          }
        });
  }

  private synchronized void enter(ClientKey key) {
    if (open >= max) {
      refusedTotal++;
      throw new HttpError(
          503,
          "TOO_MANY_EVENT_STREAMS",
          "the server holds its maximum of "
              + max
              + " event streams (max-event-streams); retry later");
    }
    int mine = perKey.getOrDefault(key, 0);
    if (mine >= maxPerKey) {
      refusedPerKey++;
      throw new HttpError(
          429,
          "TOO_MANY_EVENT_STREAMS",
          "this client holds its maximum of "
              + maxPerKey
              + " event streams (max-event-streams-per-key); close one (the events of all agents"
              + " come in /v1/routing/events) or retry later");
    }
    perKey.put(key, mine + 1);
    open++;
  }

  private synchronized void exit(ClientKey key) {
    perKey.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    open--;
  }

  public synchronized int open() {
    return open;
  }

  /** The most streams one client ({@link ClientKey}) holds open now. */
  public synchronized int mostOfOneKey() {
    int most = 0;
    for (int n : perKey.values()) {
      most = Math.max(most, n);
    }
    return most;
  }

  public int max() {
    return max;
  }

  public int maxPerKey() {
    return maxPerKey;
  }

  public synchronized long refusedTotal() {
    return refusedTotal;
  }

  public synchronized long refusedPerKey() {
    return refusedPerKey;
  }
}
