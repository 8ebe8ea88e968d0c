package io.switchboard.server.cluster;

import io.switchboard.routing.spi.RoutingLeader;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.security.ForwardedCalls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends a routing call that reached a follower on to the routing leader, and its answer back: same
 * method, path, query and body, the headers that matter ({@code Content-Type}, {@code Accept},
 * {@code Last-Event-ID}), and an event stream passed through as it comes. The client's credentials
 * stay here: the follower has checked them, and the leader is told the key the call was admitted as
 * under the cluster's server-to-server credential ({@link ForwardedCalls}), whatever the client
 * used (a SigV4 signature covers the follower's host and could not be checked at the leader). One
 * hop at most: a call forwarded to a server that is not the leader (the leadership just moved)
 * answers 503 rather than travelling on.
 *
 * <p>When the leader cannot be reached before the call is sent (connection refused or timed out),
 * the lease is read again and the call goes to the new leader if there is one; otherwise the answer
 * is 503 {@code UNAVAILABLE} naming the leader and what failed. A call that fails after it was sent
 * may or may not have taken effect; the answer says so.
 */
public final class RoutingForwarder implements AutoCloseable {

  /** The id of the server whose router decided, on every routing answer. */
  public static final String ROUTED_BY = "X-Switchboard-Routed-By";

  private static final List<String> REQUEST_HEADERS =
      List.of("Content-Type", "Accept", "Last-Event-ID");
  private static final List<String> RESPONSE_HEADERS = List.of(ROUTED_BY, "Allow");
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final RoutingLeader leadership;
  private final ForwardedCalls forwarded;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final Set<InputStream> streams = ConcurrentHashMap.newKeySet();

  RoutingForwarder(RoutingLeader leadership, ForwardedCalls forwarded) {
    this.leadership = leadership;
    this.forwarded = forwarded;
  }

  /** Answers {@code call} with the leader's answer to it. */
  void forward(Call call) {
    Optional<String> hop = call.header(ForwardedCalls.FORWARDED_BY);
    if (hop.isPresent()) {
      throw unavailable(
          "this server ("
              + leadership.serverId()
              + ") got a routing call forwarded by "
              + hop.get()
              + " but is not the routing leader: the leadership is moving; retry");
    }
    byte[] body = call.bytes();
    RoutingLeader.Leader leader = leader();
    try {
      send(call, leader, body);
    } catch (ConnectException | HttpConnectTimeoutException notSent) {
      Optional<RoutingLeader.Leader> now = leadership.refresh();
      if (now.isEmpty() || now.get().epoch() == leader.epoch() || isSelf(now.get())) {
        throw unreachable(leader, notSent);
      }
      try {
        send(call, now.get(), body);
      } catch (IOException e) {
        throw unreachable(now.get(), e);
      }
    } catch (IOException e) {
      throw unreachable(leader, e);
    }
  }

  /** The leader to send to; 503 when there is none, or when it would be this server. */
  private RoutingLeader.Leader leader() {
    Optional<RoutingLeader.Leader> known = leadership.leader();
    String lease = leadership.lease().toMillis() + " ms";
    if (known.isEmpty()) {
      throw unavailable(
          "no server is the routing leader yet"
              + leadership.lastError().map(e -> " (" + e + ")").orElse("")
              + "; one takes over within the routing lease ("
              + lease
              + ")");
    }
    if (isSelf(known.get())) {
      throw unavailable(
          "this server ("
              + leadership.serverId()
              + ") was the routing leader but its lease lapsed"
              + leadership.lastError().map(e -> " (" + e + ")").orElse("")
              + "; a server that reaches the database takes over within "
              + lease);
    }
    return known.get();
  }

  private boolean isSelf(RoutingLeader.Leader leader) {
    return leader.id().equals(leadership.serverId());
  }

  private void send(Call call, RoutingLeader.Leader leader, byte[] body) throws IOException {
    var req = call.request();
    String query = req.query().rawValue();
    URI target =
        URI.create(
            leader.url()
                + req.path().rawPath()
                + (query == null || query.isEmpty() ? "" : "?" + query));
    HttpRequest.Builder b =
        HttpRequest.newBuilder(target)
            .timeout(TIMEOUT)
            .method(
                req.prologue().method().text(),
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body))
            .header(ForwardedCalls.FORWARDED_BY, leadership.serverId());
    for (String name : REQUEST_HEADERS) {
      call.header(name).ifPresent(v -> b.header(name, v));
    }
    forwarded
        .headers(
            req.prologue().method().text(),
            req.path().rawPath() + (query == null || query.isEmpty() ? "" : "?" + query),
            call.principal().map(io.switchboard.server.auth.Principal::keyId),
            leadership.serverId(),
            body)
        .forEach(b::header);
    HttpResponse<InputStream> r;
    try {
      r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    answer(call, leader, r);
  }

  private void answer(Call call, RoutingLeader.Leader leader, HttpResponse<InputStream> r) {
    for (String name : RESPONSE_HEADERS) {
      r.headers().firstValue(name).ifPresent(v -> call.response().header(name, v));
    }
    String type = r.headers().firstValue("Content-Type").orElse("application/json");
    try (InputStream in = r.body()) {
      if (type.startsWith("text/event-stream")) {
        pipe(call, in, type);
      } else if (r.statusCode() == 204) {
        call.noContent();
      } else {
        call.send(r.statusCode(), type, in.readAllBytes());
      }
    } catch (IOException e) {
      throw unavailable(
          "the routing leader "
              + leader.id()
              + " at "
              + leader.url()
              + " failed while answering ("
              + e
              + "); the call may or may not have taken effect: look before retrying");
    }
  }

  /** Passes an event stream through as it comes, until either side ends it. */
  private void pipe(Call call, InputStream in, String type) {
    streams.add(in);
    try (OutputStream out = call.stream(type)) {
      byte[] buf = new byte[8192];
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException | UncheckedIOException ended) {
      // the leader or the client went away; the client reconnects with Last-Event-ID
    } finally {
      streams.remove(in);
    }
  }

  private static HttpError unreachable(RoutingLeader.Leader leader, IOException e) {
    return unavailable(
        "the routing leader "
            + leader.id()
            + " at "
            + leader.url()
            + " is unreachable ("
            + e
            + "); routing resumes when it answers again or another server takes over its lease");
  }

  private static HttpError unavailable(String message) {
    return new HttpError(503, "UNAVAILABLE", message);
  }

  /** Ends the event streams passed through now (this server stops, or the leadership moved). */
  void endStreams() {
    for (InputStream in : streams) {
      try {
        in.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  @Override
  public void close() {
    endStreams();
    client.shutdownNow();
  }
}
