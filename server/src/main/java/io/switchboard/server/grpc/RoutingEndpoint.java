package io.switchboard.server.grpc;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.switchboard.proto.RoutingService;
import io.switchboard.proto.v1.EventsRequest;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.Workspaces;
import io.switchboard.server.api.routing.RoutingApi;
import io.switchboard.server.api.routing.RoutingEventStreams;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service {@code switchboard.v1.Routing}: {@code Events}, the routing event feed the HTTP API
 * streams as {@code text/event-stream} ({@link RoutingApi#events}), with the same access: {@code
 * routing:supervisor} in the workspace, or for one agent's events {@code routing:agent} as that
 * agent. Each stream holds one of the key's {@code grpc-max-streams-per-key} places. Its events are
 * written on a thread of its own, never faster than the client reads them (the transport's
 * readiness), so a slow client holds at most the router's bounded backlog, as on the HTTP API.
 */
final class RoutingEndpoint implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RoutingEndpoint.class);

  private final RoutingApi routing;
  private final StreamCaps caps;
  private final java.util.Set<Thread> feeding = java.util.concurrent.ConcurrentHashMap.newKeySet();

  RoutingEndpoint(RoutingApi routing, StreamCaps caps) {
    this.routing = routing;
    this.caps = caps;
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(RoutingService.SERVICE)
        .addMethod(RoutingService.EVENTS, ServerCalls.asyncServerStreamingCall(this::events))
        .build();
  }

  private void events(
      EventsRequest request, StreamObserver<io.switchboard.proto.v1.RoutingEvent> responses) {
    ServerCallStreamObserver<io.switchboard.proto.v1.RoutingEvent> out =
        (ServerCallStreamObserver<io.switchboard.proto.v1.RoutingEvent>) responses;
    Caller caller = Caller.current();
    String workspace =
        request.getWorkspace().isEmpty() ? Workspaces.DEFAULT : request.getWorkspace();
    Optional<String> agent =
        request.getAgent().isEmpty() ? Optional.empty() : Optional.of(request.getAgent());
    StreamCaps.Slot slot;
    try {
      if (request.getAfter() < 0) {
        throw Statuses.invalid("after must be an event id >= 0, got " + request.getAfter());
      }
      if (request.getFromNow() && request.getAfter() > 0) {
        throw Statuses.invalid(
            "give either after (an event id) or from_now, not both; got after="
                + request.getAfter());
      }
      caller.require(
          agent.isPresent()
              ? new Access(Action.ROUTING_AGENT, Optional.of(workspace), agent)
              : new Access(Action.ROUTING_SUPERVISOR, Optional.of(workspace), Optional.empty()));
      slot = caps.open(caller.client());
    } catch (RuntimeException e) {
      out.onError(Statuses.of(e));
      return;
    }
    Writer writer = new Writer(out);
    Thread feeding =
        Thread.ofVirtual()
            .name("grpc-routing-events")
            .unstarted(
                () -> {
                  try {
                    routing.events(
                        workspace, agent, request.getAfter(), request.getFromNow(), writer);
                    writer.end(null);
                  } catch (IOException clientLeft) {
                    LOG.atDebug()
                        .addKeyValue("reason", clientLeft.toString())
                        .log("routing event stream client left");
                  } catch (RuntimeException e) {
                    writer.end(e);
                  } finally {
                    slot.close();
                    this.feeding.remove(Thread.currentThread());
                  }
                });
    out.setOnCancelHandler(
        () -> {
          writer.cancelled.set(true);
          feeding.interrupt();
          slot.close();
        });
    out.setOnReadyHandler(writer::ready);
    this.feeding.add(feeding);
    feeding.start();
  }

  /** Ends the open streams (cleanly: a client resumes from the last id it saw). */
  @Override
  public void close() {
    feeding.forEach(Thread::interrupt);
  }

  /** Writes the feed to one gRPC stream, waiting while the transport is not ready for more. */
  private static final class Writer implements RoutingEventStreams.Feed {
    private final ServerCallStreamObserver<io.switchboard.proto.v1.RoutingEvent> out;
    final AtomicBoolean cancelled = new AtomicBoolean();
    private final Object readiness = new Object();

    Writer(ServerCallStreamObserver<io.switchboard.proto.v1.RoutingEvent> out) {
      this.out = out;
    }

    void ready() {
      synchronized (readiness) {
        readiness.notifyAll();
      }
    }

    private void send(long id, String type, String json) throws IOException {
      synchronized (readiness) {
        while (!out.isReady()) {
          if (cancelled.get()) {
            throw new IOException("the client cancelled the stream");
          }
          try {
            readiness.wait(1000); // woken by the transport's onReady, or to look at cancelled
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("the stream was ended", e);
          }
        }
      }
      if (cancelled.get()) {
        throw new IOException("the client cancelled the stream");
      }
      out.onNext(
          io.switchboard.proto.v1.RoutingEvent.newBuilder()
              .setId(id)
              .setType(type)
              .setDataJson(json)
              .build());
    }

    @Override
    public void event(RoutingEvent e) throws IOException {
      send(e.id(), e.type(), RoutingEventStreams.json(e));
    }

    @Override
    public void missed(long after, long oldestKept) throws IOException {
      send(
          0,
          "missed",
          "{\"type\":\"missed\",\"after\":" + after + ",\"oldestKept\":" + oldestKept + "}");
    }

    @Override
    public void start(long last) throws IOException {
      send(last, "start", "{\"type\":\"start\",\"after\":" + last + "}");
    }

    @Override
    public void deleted() throws IOException {
      send(0, "workspace.deleted", "{\"type\":\"workspace.deleted\"}");
    }

    @Override
    public void quiet(boolean keepalive) throws IOException {
      if (cancelled.get()) {
        throw new IOException("the client cancelled the stream");
      }
    }

    @Override
    public void flush() {}

    /** Ends the stream: cleanly, or with {@code error}'s status; not once the client left. */
    void end(@org.jspecify.annotations.Nullable RuntimeException error) {
      if (cancelled.get()) {
        return;
      }
      if (error == null) {
        out.onCompleted();
      } else {
        out.onError(Statuses.of(error));
      }
    }
  }
}
