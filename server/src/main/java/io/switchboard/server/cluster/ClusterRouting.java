package io.switchboard.server.cluster;

import io.switchboard.queue.QueueException;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RoutingLeader;
import io.switchboard.server.api.routing.AssignmentCallbacks;
import io.switchboard.server.api.routing.RoutingApi;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import io.switchboard.server.init.Init;
import io.switchboard.server.init.InitFile;
import io.switchboard.server.observability.Tracing;
import io.switchboard.server.security.ForwardedCalls;
import io.switchboard.storage.dynamodb.DynamoRoutingLeadership;
import io.switchboard.storage.postgres.RoutingLeadership;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routing on a server that shares a store with others, a PostgreSQL database ({@code postgres-url})
 * or a DynamoDB table ({@code dynamodb-table}): one of them, the routing leader, runs the router
 * ({@link RoutingLeader}: a lease, fenced writes, the router's state in the store; {@link
 * RoutingLeadership} over PostgreSQL, {@link DynamoRoutingLeadership} over DynamoDB); every other
 * server forwards routing calls to it ({@link RoutingForwarder}), so a load balancer may send any
 * call to any server. Every routing answer names the server that decided in {@value
 * RoutingForwarder#ROUTED_BY}.
 *
 * <p>When the leadership moves, this server's event streams end (the router they followed stopped
 * or is now elsewhere); clients reconnect with {@code Last-Event-ID} and resume on the new leader,
 * which says {@code missed} since it does not have the old leader's event history.
 */
public final class ClusterRouting {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterRouting.class);

  private final ServerConfig config;
  private final RoutingApi api;
  private final RoutingLeader leadership;
  private final RoutingForwarder forwarder;

  private ClusterRouting(
      ServerConfig config,
      URI advertised,
      RoutingApi api,
      ForwardedCalls forwarded,
      Tracing tracing,
      AssignmentCallbacks callbacks) {
    this.config = config;
    this.api = api;
    Function<RouterJournal, Router> router =
        journal ->
            tracing
                .routing(config.routing().builder())
                .onEvent(callbacks.listener(Workspaces.DEFAULT))
                .journal(journal)
                .build();
    Function<WorkspaceDefinition, Router.Builder> workspace =
        w -> tracing.routing(config.routing().builder(w)).onEvent(callbacks.listener(w.name()));
    String id = serverId(advertised);
    Optional<ServerConfig.DynamoDb> dynamo = config.dynamodb();
    if (config.postgres().isEmpty() && dynamo.isPresent()) {
      ServerConfig.DynamoDb d = dynamo.get();
      DynamoRoutingLeadership.Builder b =
          DynamoRoutingLeadership.builder()
              .table(d.table())
              .serverId(id)
              .advertiseUrl(advertised)
              .lease(config.get(Settings.ROUTING_LEASE))
              .router(router)
              .workspaces(config.routing().defaultWorkspace(), workspace)
              .onChange(this::leadershipMoved);
      d.region().ifPresent(b::region);
      d.endpoint().ifPresent(b::endpoint);
      this.leadership = b.build();
    } else {
      ServerConfig.Postgres pg = config.postgres().orElseThrow();
      this.leadership =
          RoutingLeadership.builder()
              .url(pg.url(), pg.user(), pg.password())
              .serverId(id)
              .advertiseUrl(advertised)
              .lease(pg.routingLease())
              .router(router)
              .workspaces(config.routing().defaultWorkspace(), workspace)
              .onChange(this::leadershipMoved)
              .build();
    }
    this.forwarder = new RoutingForwarder(leadership, forwarded);
  }

  /**
   * Joins the routing leadership: leads at once if no other server does.
   *
   * @param listening the URL the server listens on, advertised unless {@code advertise-url} says
   *     otherwise
   * @param forwarded signs the calls forwarded to the leader with the principal they were admitted
   *     as
   * @param tracing makes spans of the leader's routing decisions, in every workspace
   * @param callbacks sends the assignment callbacks of the routers this server builds: only while
   *     it leads, since a follower builds none
   * @throws StartupException when the database cannot be reached
   */
  public static ClusterRouting start(
      ServerConfig config,
      URI listening,
      RoutingApi api,
      ForwardedCalls forwarded,
      Tracing tracing,
      AssignmentCallbacks callbacks) {
    URI advertised = config.find(Settings.ADVERTISE_URL).orElse(listening);
    ClusterRouting c = new ClusterRouting(config, advertised, api, forwarded, tracing, callbacks);
    api.follow(c::router);
    try {
      c.leadership.start();
    } catch (QueueException e) {
      throw new StartupException(
          "cannot join the routing leadership in "
              + config
                  .postgres()
                  .map(pg -> "PostgreSQL at " + pg.displayUrl())
                  .orElseGet(() -> "the DynamoDB table " + config.dynamodb().orElseThrow().table())
              + ": "
              + e.getMessage(),
          e);
    }
    LOG.atInfo()
        .addKeyValue("server", c.leadership.serverId())
        .addKeyValue("advertised", advertised)
        .addKeyValue("leader", c.leadership.leader().map(RoutingLeader.Leader::id).orElse("none"))
        .addKeyValue("lease", c.leadership.lease())
        .log("routing leadership joined");
    return c;
  }

  /**
   * The default advertised URL: {@code http://<bind>:<port>}, with this machine's name for a
   * wildcard bind address, which other machines could not use.
   */
  public static URI defaultAdvertised(String bind, int port) {
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
   * The router while this server leads; otherwise UNAVAILABLE (the caller lost the race). Its task
   * queues' rules came from the stored definitions when this server took the lease and opened the
   * workspaces ({@link RoutingLeader#workspaces}).
   */
  private Router router() {
    return leadership.router().orElseThrow(this::notLeading);
  }

  /**
   * The leader's workspaces: {@code default} over the router it leads with, every other workspace
   * defined in the database on a router of its own, all opened when this server took the lease
   * ({@link RoutingLeader#workspaces}); UNAVAILABLE when it does not lead (the caller lost the
   * race).
   */
  public Workspaces workspaces() {
    return leadership.workspaces().orElseThrow(this::notLeading);
  }

  private RoutingException notLeading() {
    return RoutingException.unavailable(
        "this server ("
            + leadership.serverId()
            + ") stopped being the routing leader while the call ran; the call was not routed"
            + " here: retry, it reaches the new leader",
        null);
  }

  /** Serves a routing call here while leading, else forwards it to the leader. */
  public void handle(Call call, Route.Endpoint local) {
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

  public boolean leading() {
    return leadership.leading();
  }

  public String serverId() {
    return leadership.serverId();
  }

  Optional<RoutingLeader.Leader> leader() {
    return leadership.leader();
  }

  /** The init file whose workspaces this server applies whenever it takes the lease. */
  private record InitWorkspaces(Path file, InitFile.Setup setup) {}

  private volatile @Nullable InitWorkspaces init;

  /** Applying the init file's workspaces, one at a time (at start, and on taking the lease). */
  private final Object initLock = new Object();

  /**
   * Applies the workspaces of an init file ({@code --init}) over the routing leader's workspaces:
   * now if this server leads (a failure stops the start), and again each time it takes the lease
   * later (idempotently, as on a restart; a failure then is logged). A server that starts as a
   * follower leaves the workspaces to the leader, which applies its own init file.
   *
   * @throws StartupException naming the file, the entry and what could not be done
   */
  public void init(Path file, InitFile.Setup setup) {
    if (setup.workspaces().isEmpty()) {
      return;
    }
    Optional<Workspaces> leading;
    synchronized (initLock) {
      init = new InitWorkspaces(file, setup);
      leading = leadership.workspaces();
      if (leading.isPresent()) {
        Init.applyWorkspaces(file, setup, leading.get());
      }
    }
    if (leading.isEmpty()) {
      LOG.atInfo()
          .addKeyValue("file", file)
          .addKeyValue("leader", leadership.leader().map(RoutingLeader.Leader::id).orElse("none"))
          .log(
              "init: this server is not the routing leader; it applies the file's workspaces when"
                  + " it takes the lease");
    }
  }

  /** This server started or stopped leading: the event streams open now follow the wrong router. */
  private void leadershipMoved() {
    api.endOpenStreams();
    forwarder.endStreams();
    InitWorkspaces i = init;
    Optional<Workspaces> leading = leadership.workspaces();
    if (i != null && leading.isPresent()) {
      try {
        synchronized (initLock) {
          Init.applyWorkspaces(i.file(), i.setup(), leading.get());
        }
      } catch (RuntimeException e) {
        LOG.atError()
            .addKeyValue("file", i.file())
            .setCause(e)
            .log("init: the file's workspaces could not be applied on taking the routing lease");
      }
    }
  }

  /** Ends the event streams passed through to the leader (the server is stopping). */
  public void endStreams() {
    forwarder.endStreams();
  }

  /** Steps down gracefully: the lease is released, so another server takes over at once. */
  public void stop() {
    leadership.close();
    forwarder.close();
  }

  /** Stops as a dying process would: no release, nothing more written. For failover tests. */
  public void halt() {
    leadership.halt();
    forwarder.close();
  }
}
