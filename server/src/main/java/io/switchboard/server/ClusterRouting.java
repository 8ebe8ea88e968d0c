package io.switchboard.server;

import io.switchboard.queue.QueueException;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import io.switchboard.routing.Workspaces;
import io.switchboard.storage.postgres.RoutingLeadership;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routing on a server that shares a PostgreSQL database with others ({@code postgres-url}): one of
 * them, the routing leader, runs the router ({@link RoutingLeadership}: a lease row, fenced writes,
 * the router's state in the database); every other server forwards routing calls to it ({@link
 * RoutingForwarder}), so a load balancer may send any call to any server. Every routing answer
 * names the server that decided in {@value RoutingForwarder#ROUTED_BY}.
 *
 * <p>When the leadership moves, this server's event streams end (the router they followed stopped
 * or is now elsewhere); clients reconnect with {@code Last-Event-ID} and resume on the new leader,
 * which says {@code missed} since it does not have the old leader's event history.
 */
final class ClusterRouting {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterRouting.class);

  private final ServerConfig config;
  private final RoutingApi api;
  private final RoutingLeadership leadership;
  private final RoutingForwarder forwarder;

  private ClusterRouting(
      ServerConfig config, URI advertised, RoutingApi api, ForwardedCalls forwarded) {
    ServerConfig.Postgres pg = config.postgres().orElseThrow();
    this.config = config;
    this.api = api;
    this.leadership =
        RoutingLeadership.builder()
            .url(pg.url(), pg.user(), pg.password())
            .serverId(serverId(advertised))
            .advertiseUrl(advertised)
            .lease(pg.routingLease())
            .router(journal -> config.routing().builder().journal(journal).build())
            .onChange(this::leadershipMoved)
            .build();
    this.forwarder = new RoutingForwarder(leadership, forwarded);
  }

  /**
   * Joins the routing leadership: leads at once if no other server does.
   *
   * @param listening the URL the server listens on, advertised unless {@code advertise-url} says
   *     otherwise
   * @param forwarded signs the calls forwarded to the leader with the principal they were admitted
   *     as
   * @throws StartupException when the database cannot be reached
   */
  static ClusterRouting start(
      ServerConfig config, URI listening, RoutingApi api, ForwardedCalls forwarded) {
    URI advertised = config.postgres().orElseThrow().advertiseUrl().orElse(listening);
    ClusterRouting c = new ClusterRouting(config, advertised, api, forwarded);
    api.follow(c::router);
    try {
      c.leadership.start();
    } catch (QueueException e) {
      throw new StartupException(
          "cannot join the routing leadership in PostgreSQL at "
              + config.postgres().get().displayUrl()
              + ": "
              + e.getMessage(),
          e);
    }
    LOG.atInfo()
        .addKeyValue("server", c.leadership.serverId())
        .addKeyValue("advertised", advertised)
        .addKeyValue(
            "leader", c.leadership.leader().map(RoutingLeadership.Leader::id).orElse("none"))
        .addKeyValue("lease", c.leadership.lease())
        .log("routing leadership joined");
    return c;
  }

  /**
   * The default advertised URL: {@code http://<bind>:<port>}, with this machine's name for a
   * wildcard bind address, which other machines could not use.
   */
  static URI defaultAdvertised(String bind, int port) {
    String host = bind;
    if (bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("[::]")) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        host = "127.0.0.1";
      }
      LOG.atWarn()
          .addKeyValue("host", host)
          .log(
              "bind is a wildcard address: other servers reach this one by its host name; set"
                  + " advertise-url if they cannot");
    }
    if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + port);
  }

  /** A per-process id: where the server is, and a random part so a restart is a new server. */
  private static String serverId(URI advertised) {
    byte[] random = new byte[3];
    ThreadLocalRandom.current().nextBytes(random);
    return advertised.getAuthority() + "/" + HexFormat.of().formatHex(random);
  }

  /**
   * The router while this server leads; otherwise UNAVAILABLE (the caller lost the race). A router
   * new to this server (it just took the lead) first gets the rules of {@code default}'s task
   * queues from the stored definition ({@link #workspaces(Router)}), before any call routes on it.
   */
  private Router router() {
    Router r = leaderRouter();
    if (workspacesOver != r) {
      workspaces(r);
    }
    return r;
  }

  private Router leaderRouter() {
    return leadership
        .router()
        .orElseThrow(
            () ->
                RoutingException.unavailable(
                    "this server ("
                        + leadership.serverId()
                        + ") stopped being the routing leader while the call ran; the call was"
                        + " not routed here: retry, it reaches the new leader",
                    null));
  }

  private Workspaces workspaces;
  private volatile Router workspacesOver;

  /**
   * The leader's workspaces: {@code default} over the router it leads with (rebuilt, from the
   * definitions in the database, whenever that router changes); creating other workspaces is not
   * available over PostgreSQL yet (501).
   */
  Workspaces workspaces() {
    return workspaces(leaderRouter());
  }

  private synchronized Workspaces workspaces(Router r) {
    if (workspaces == null || workspacesOver != r) {
      workspaces =
          new Workspaces(
              r,
              config.routing().defaultWorkspace(),
              leadership.workspaceStore(),
              new WorkspaceRouters() {
                @Override
                public Router open(WorkspaceDefinition workspace) {
                  throw new HttpError(
                      501,
                      "NOT_IMPLEMENTED",
                      "workspaces other than 'default' are not available on servers sharing a"
                          + " PostgreSQL database yet (cannot open '"
                          + workspace.name()
                          + "')");
                }

                @Override
                public void drop(String name) {}
              });
      workspacesOver = r;
    }
    return workspaces;
  }

  /** Serves a routing call here while leading, else forwards it to the leader. */
  void handle(Call call, Route.Endpoint local) {
    if (leadership.leading()) {
      call.response().header(RoutingForwarder.ROUTED_BY, leadership.serverId());
      try {
        local.handle(call);
      } catch (RoutingException e) {
        if (e.code() == RoutingErrorCode.UNAVAILABLE && !leadership.leading()) {
          throw new HttpError(
              503,
              "UNAVAILABLE",
              "this server ("
                  + leadership.serverId()
                  + ") stopped being the routing leader while the call ran ("
                  + e.getMessage()
                  + "); the call may not have been stored: retry, it reaches the new leader");
        }
        throw e;
      }
      return;
    }
    forwarder.forward(call);
  }

  boolean leading() {
    return leadership.leading();
  }

  String serverId() {
    return leadership.serverId();
  }

  Optional<RoutingLeadership.Leader> leader() {
    return leadership.leader();
  }

  /** This server started or stopped leading: the event streams open now follow the wrong router. */
  private void leadershipMoved() {
    api.endOpenStreams();
    forwarder.endStreams();
    // a router this server now leads gets default's task queue rules at once, not at its first
    // call, so that its timers (an offer timing out) already route by them; router() retries.
    // (null while the leadership is being built: it may lead before this field is set.)
    RoutingLeadership l = leadership;
    if (l == null) {
      return;
    }
    l.router()
        .ifPresent(
            r -> {
              try {
                workspaces(r);
              } catch (RuntimeException e) {
                LOG.atWarn()
                    .log(
                        "could not load the task queues of workspace 'default' yet ({}); the"
                            + " first routing call loads them",
                        e.getMessage());
              }
            });
  }

  /** Ends the event streams passed through to the leader (the server is stopping). */
  void endStreams() {
    forwarder.endStreams();
  }

  /** Steps down gracefully: the lease is released, so another server takes over at once. */
  void stop() {
    leadership.close();
    forwarder.close();
  }

  /** Stops as a dying process would: no release, nothing more written. For failover tests. */
  void halt() {
    leadership.halt();
    forwarder.close();
  }
}
