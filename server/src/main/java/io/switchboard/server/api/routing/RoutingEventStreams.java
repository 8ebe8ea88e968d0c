package io.switchboard.server.api.routing;

import io.helidon.webserver.ServerConnectionException;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.RoutingWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.routing.EventPage;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingException;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.HttpError;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing event streams ({@code text/event-stream}): every event, or one agent's, each with
 * {@code id:} the router's event id, so a client that reconnects with {@code Last-Event-ID} (or
 * {@code ?after=}) misses nothing the router still keeps.
 *
 * <p>Resuming without a gap or a duplicate: the stream subscribes to live events first (into a
 * bounded queue), then pages through the history after the requested id, then forwards the queued
 * live events, skipping ids it already wrote. A subscriber that falls {@value #BACKLOG} events
 * behind is ended rather than buffered without bound; it reconnects and resumes from its last id.
 * If the history no longer reaches back to the requested id, a {@code missed} event says so before
 * the oldest event kept, and the client should resynchronize its view.
 *
 * <p>{@code ?from=now} starts at the tail instead (a wallboard that loads a snapshot first, then
 * follows): a {@code start} event with {@code id:} the newest event id comes first, so a browser
 * that reconnects resumes from there. A stream ends when its router is no longer the one served
 * (the routing leadership moved, the workspace was reconfigured: the client resumes with {@code
 * Last-Event-ID}), or, with a {@code workspace.deleted} event, when its workspace was deleted.
 */
public final class RoutingEventStreams implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RoutingEventStreams.class);
  static final int BACKLOG = 10_000;
  private static final int PAGE = 1_000;
  private static final long KEEPALIVE_SECONDS = 15;

  /**
   * How often a quiet stream writes a comment line ({@code ":"}, which clients ignore) to learn
   * whether its client is still there: a write to a connection the client closed fails at the
   * latest on the second try, so a client that left frees its place within about two probes ({@link
   * EventStreamLimits}), not at the next keepalive.
   */
  private static final long PROBE_MILLIS = 1000;

  private static final RoutingEvent END =
      new RoutingEvent.ContactAbandoned(-1, java.time.Instant.EPOCH, "end of stream");

  private final Set<BlockingQueue<RoutingEvent>> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** Every event of the router {@code source} gives (a workspace's). */
  void all(Call call, Supplier<Router> source) {
    stream(call, source, e -> true);
  }

  /** The events concerning one agent of the router {@code source} gives. */
  void agent(Call call, Supplier<Router> source, String agentId) {
    Start start = start(call);
    source.get().agent(agentId);
    Optional<String> id = Optional.of(agentId);
    stream(call, start, source, e -> e.agentConcerned().equals(id));
  }

  /**
   * Where a stream's events go: the HTTP API's {@code text/event-stream} ({@link Sse}), or the gRPC
   * API's {@code Routing.Events} stream. A method that finds the client gone throws {@link
   * IOException}, which ends the stream.
   */
  public interface Feed {
    /** A router event. */
    void event(RoutingEvent e) throws IOException;

    /** The history no longer reaches back to {@code after}: it starts at {@code oldestKept}. */
    void missed(long after, long oldestKept) throws IOException;

    /** A stream that starts at the tail: {@code last} is the newest event id. */
    void start(long last) throws IOException;

    /** The workspace was deleted: the stream ends after this. */
    void deleted() throws IOException;

    /** No event for a while; {@code keepalive} once every keepalive period. */
    void quiet(boolean keepalive) throws IOException;

    /** What was given so far goes to the client now. */
    void flush() throws IOException;
  }

  /**
   * Feeds {@code feed} the events {@code wanted} of the router {@code source} gives, after {@code
   * after} (or from the tail, {@code fromNow}), until the stream is ended, the router is no longer
   * the one served, or the feed throws; the gRPC API's event stream, with the same resumption as
   * the HTTP one.
   */
  public void feed(
      Supplier<Router> source,
      Predicate<RoutingEvent> wanted,
      long after,
      boolean fromNow,
      Feed feed)
      throws IOException {
    Router r = source.get();
    BlockingQueue<RoutingEvent> live = new ArrayBlockingQueue<>(BACKLOG + 1);
    open.add(live);
    try (Router.Subscription sub = r.onEvent(e -> enqueue(live, e, wanted))) {
      if (closed) {
        return;
      }
      run(source, r, live, new Start(after, fromNow), wanted, feed);
    } finally {
      open.remove(live);
    }
  }

  /** An event's type and JSON, as the HTTP stream's {@code event:} and {@code data:} lines. */
  public static String json(RoutingEvent e) {
    return eventJson(e);
  }

  private void run(
      Supplier<Router> source,
      Router r,
      BlockingQueue<RoutingEvent> live,
      Start start,
      Predicate<RoutingEvent> wanted,
      Feed feed)
      throws IOException {
    long last;
    if (start.fromNow()) {
      last = r.events(Long.MAX_VALUE - 1, 1).lastId();
      feed.start(last);
      feed.flush();
    } else {
      last = replay(r, feed, start.after(), wanted);
    }
    follow(source, r, live, feed, last);
  }

  /** The HTTP API's feed: {@code text/event-stream} frames. */
  private static final class Sse implements Feed {
    private final OutputStream out;

    Sse(OutputStream out) {
      this.out = out;
    }

    @Override
    public void event(RoutingEvent e) throws IOException {
      write(out, frame(e));
    }

    @Override
    public void missed(long after, long oldest) throws IOException {
      write(
          out,
          "event: missed\ndata: "
              + WireFormat.object()
                  .put("type", "missed")
                  .put("after", after)
                  .put("oldestKept", oldest)
              + "\n\n");
    }

    @Override
    public void start(long last) throws IOException {
      write(
          out,
          "id: "
              + last
              + "\nevent: start\ndata: "
              + WireFormat.object().put("type", "start").put("after", last)
              + "\n\n");
    }

    @Override
    public void deleted() throws IOException {
      write(
          out,
          "event: workspace.deleted\ndata: "
              + WireFormat.object().put("type", "workspace.deleted")
              + "\n\n");
    }

    @Override
    public void quiet(boolean keepalive) throws IOException {
      write(out, keepalive ? ": keepalive\n\n" : ":\n"); // a probe: an empty comment line
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }
  }

  /** Ends every open stream; new ones end at once. */
  @Override
  public void close() {
    closed = true;
    endOpen();
  }

  /** Ends the streams open now; new ones may start. */
  void endOpen() {
    open.forEach(
        q -> {
          if (!q.offer(END)) {
            q.clear();
            q.offer(END);
          }
        });
  }

  private void stream(Call call, Supplier<Router> source, Predicate<RoutingEvent> wanted) {
    Start start = start(call);
    stream(call, start, source, wanted);
  }

  private void stream(
      Call call, Start start, Supplier<Router> source, Predicate<RoutingEvent> wanted) {
    Router r = source.get();
    BlockingQueue<RoutingEvent> live = new ArrayBlockingQueue<>(BACKLOG + 1);
    open.add(live);
    try (Router.Subscription sub = r.onEvent(e -> enqueue(live, e, wanted))) {
      if (closed) {
        return;
      }
      try (OutputStream out = call.stream("text/event-stream")) {
        write(out, ": switchboard routing events\n\n");
        run(source, r, live, start, wanted, new Sse(out));
      } catch (IOException | UncheckedIOException | ServerConnectionException clientLeft) {
        // The client went away (Helidon reports a failed write as ServerConnectionException):
        // routine, so DEBUG without a stack trace; nothing to answer.
        LOG.atDebug().addKeyValue("reason", clientLeft.toString()).log("event stream client left");
      }
    } finally {
      open.remove(live);
    }
  }

  /**
   * Where a stream starts: after an event id ({@code Last-Event-ID}, else {@code ?after=}, else 0),
   * or at the tail ({@code ?from=now}, which a {@code Last-Event-ID} overrides: a reconnection).
   */
  private record Start(long after, boolean fromNow) {}

  private static Start start(Call call) {
    call.discardBody();
    Optional<String> from = call.query("from");
    if (from.isPresent() && !from.get().equals("now")) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", "from must be 'now' (or left out), got '" + from.get() + "'");
    }
    if (from.isPresent() && call.query("after").isPresent()) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "give either after (an event id) or from=now, not both; got after="
              + call.query("after").get());
    }
    long after = resumeAfter(call);
    return new Start(after, from.isPresent() && call.header("Last-Event-ID").isEmpty());
  }

  private static long resumeAfter(Call call) {
    Optional<String> header = call.header("Last-Event-ID");
    if (header.isPresent()) {
      try {
        return Math.max(0, Long.parseLong(header.get().trim()));
      } catch (NumberFormatException e) {
        throw new HttpError(
            400,
            "INVALID_ARGUMENT",
            "Last-Event-ID must be an event id (an integer), got '" + header.get() + "'");
      }
    }
    var after = call.queryInt("after");
    if (after.isPresent() && after.getAsInt() < 0) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", "after must be an event id >= 0, got " + after.getAsInt());
    }
    return after.orElse(0);
  }

  private void enqueue(
      BlockingQueue<RoutingEvent> live, RoutingEvent e, Predicate<RoutingEvent> w) {
    if (w.test(e) && !live.offer(e)) {
      live.clear();
      live.offer(END);
    }
  }

  /** Writes the kept events after {@code after}; returns the last id looked at. */
  private static long replay(Router r, Feed out, long after, Predicate<RoutingEvent> wanted)
      throws IOException {
    long last = after;
    boolean first = true;
    while (true) {
      EventPage page = r.events(last, PAGE);
      // An id beyond the newest is from a router whose history is gone (an in-memory one that
      // restarted): what it names is not here, so the client resynchronizes from the newest.
      boolean beyond = after > page.lastId();
      if (first && (page.missed() || beyond)) {
        long oldest = page.events().isEmpty() ? page.lastId() : page.events().get(0).id();
        out.missed(after, oldest);
      }
      first = false;
      if (beyond) {
        return page.lastId();
      }
      for (RoutingEvent e : page.events()) {
        if (wanted.test(e)) {
          out.event(e);
        }
        last = e.id();
      }
      out.flush();
      if (page.events().isEmpty() || last >= page.lastId()) {
        return Math.max(last, page.lastId());
      }
    }
  }

  /**
   * Writes live events until the stream is ended, or until a probe finds that {@code r} is no
   * longer the router {@code source} serves (the routing leadership moved on, the workspace was
   * reconfigured or deleted). While no event comes, a probe every {@link #PROBE_MILLIS} finds a
   * client that left, and a keepalive every {@link #KEEPALIVE_SECONDS} probes' worth keeps proxies
   * from closing the stream.
   */
  private void follow(
      Supplier<Router> source, Router r, BlockingQueue<RoutingEvent> live, Feed out, long last)
      throws IOException {
    long quietProbes = 0;
    long probesPerKeepalive = KEEPALIVE_SECONDS * 1000 / PROBE_MILLIS;
    while (!closed) {
      RoutingEvent e;
      try {
        e = live.poll(PROBE_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        return;
      }
      if (e == END) {
        return;
      }
      if (e == null) {
        Serving serving = serving(source, r);
        if (serving == Serving.DELETED) {
          out.deleted();
          out.flush();
          return;
        }
        if (serving == Serving.ANOTHER) {
          return;
        }
        if (++quietProbes < probesPerKeepalive) {
          out.quiet(false);
        } else {
          quietProbes = 0;
          out.quiet(true);
        }
      } else if (e.id() > last) {
        out.event(e);
        last = e.id();
      }
      out.flush();
    }
  }

  private enum Serving {
    THIS,
    ANOTHER,
    DELETED
  }

  private static Serving serving(Supplier<Router> source, Router r) {
    try {
      return source.get() == r ? Serving.THIS : Serving.ANOTHER;
    } catch (RoutingException e) {
      return e.code() == RoutingErrorCode.WORKSPACE_NOT_FOUND ? Serving.DELETED : Serving.ANOTHER;
    } catch (RuntimeException none) {
      return Serving.ANOTHER;
    }
  }

  private static String frame(RoutingEvent e) {
    return "id: " + e.id() + "\nevent: " + e.type() + "\ndata: " + eventJson(e) + "\n\n";
  }

  /** An event's JSON, written from its record ({@link RoutingWire.EventView}). */
  private static String eventJson(RoutingEvent e) {
    return new String(Json.bytes(RoutingWire.EventView.of(e)), StandardCharsets.UTF_8);
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
  }
}
