package io.switchboard.server;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http1.Http1Config;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.Router;
import io.switchboard.routing.WorkspaceRouters;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.server.api.keys.KeysApi;
import io.switchboard.server.api.push.PushApi;
import io.switchboard.server.api.push.PushDelivery;
import io.switchboard.server.api.queues.NativeApi;
import io.switchboard.server.api.routing.AssignmentCallbacks;
import io.switchboard.server.api.routing.RoutingApi;
import io.switchboard.server.api.routing.WorkspaceApi;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.AuditedKeyRing;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.MoveRights;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.cluster.ClusterRouting;
import io.switchboard.server.config.RoutingSettings;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.console.Console;
import io.switchboard.server.grpc.GrpcServer;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.ConnectionLimits;
import io.switchboard.server.http.ErrorAnswers;
import io.switchboard.server.http.EventStreamLimits;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.ReadTimeouts;
import io.switchboard.server.http.RequestGate;
import io.switchboard.server.http.RequestIds;
import io.switchboard.server.http.Route;
import io.switchboard.server.http.RouteTable;
import io.switchboard.server.http.UnreadableRequests;
import io.switchboard.server.init.Init;
import io.switchboard.server.init.InitFile;
import io.switchboard.server.observability.HealthRegistry;
import io.switchboard.server.observability.Logging;
import io.switchboard.server.observability.MetricsScope;
import io.switchboard.server.observability.ServerMetrics;
import io.switchboard.server.observability.Tracing;
import io.switchboard.server.security.Authentication;
import io.switchboard.server.security.DurableKeyRing;
import io.switchboard.server.security.ExposureGuard;
import io.switchboard.server.security.ForwardedCalls;
import io.switchboard.server.security.KeyFileReload;
import io.switchboard.server.security.OutboundAddresses;
import io.switchboard.server.security.SignedCalls;
import io.switchboard.server.security.TlsFiles;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.server.sqs.SqsApi;
import io.switchboard.server.sqs.SqsEndpoint;
import io.switchboard.server.sqs.SqsRoute;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Switchboard server: the native API, {@code /health}, {@code /metrics} and {@code
 * /openapi.yaml}, and the routing API over one {@link Router}, on a Helidon WebServer, whose
 * handlers run on virtual threads, so a long poll is plain blocking code that holds no platform
 * thread.
 *
 * <p>Lifecycle: {@link #start} listens first, then opens the engine (a durable store recovers
 * here), and only then reports ready on {@code /health}; until then the API answers 503. {@link
 * #stop} is graceful: refuse new requests (503), let requests in flight finish, close the engine
 * (blocked long polls then answer with no messages), wait for those answers, stop listening. A
 * route tells a long poll from ordinary work per request ({@link Call#receiving}): native receives
 * and SQS {@code ReceiveMessage} that may wait.
 *
 * <p>With {@code postgres-url} the router is not this server's own: the servers on the database
 * elect a routing leader, which runs it, and the others forward routing calls ({@link
 * ClusterRouting}).
 */
public final class SwitchboardServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SwitchboardServer.class);

  private final ServerConfig config;
  private final RouteTable routes;
  private final RequestGate gate;
  private final ConnectionLimits connectionLimits;
  private final EventStreamLimits streamLimits;
  private final ServerMetrics metrics = new ServerMetrics();
  private final Tracing tracing;
  private final RoutingApi routingApi = new RoutingApi();
  private final OutboundAddresses outbound;
  private final AssignmentCallbacks callbacks;
  private final HealthRegistry health = new HealthRegistry();
  private final ExposureGuard guard;
  private final Optional<TlsFiles> tlsFiles;
  private final KeyFileReload keyFile;
  private final boolean storedKeysNeeded;

  /** How long opening the stores and recovering took at start (milliseconds), for the log. */
  private long storageOpenMillis;

  private final ForwardedCalls forwarded = new ForwardedCalls(Clock.system());
  private final String openApi;
  private final KeyRing keys;
  private final DurableKeyRing durableKeys;
  private final Console console;
  private volatile @Nullable QueueEngine engine;
  private volatile @Nullable SqsEndpoint sqs;
  private volatile @Nullable ClusterRouting cluster;
  private @Nullable RouterJournal routerJournal;
  private volatile @Nullable Workspaces workspaces;
  private volatile @Nullable GrpcServer grpc;
  private volatile @Nullable PushDelivery push;

  // set by listen(), which start() calls right after the constructor (or fails the start)
  @SuppressWarnings("NullAway.Init")
  private WebServer web;

  @SuppressWarnings("NullAway.Init")
  private ReadTimeouts readTimeouts;

  private boolean stopped;

  /** What this server has opened, closed in reverse by a failed start, a stop and a halt. */
  private final OpenResources resources;

  private SwitchboardServer(ServerConfig config, Tracing tracing, OpenResources resources) {
    this.config = config;
    this.tracing = Objects.requireNonNull(tracing, "tracing");
    this.resources = resources;
    this.keyFile = KeyFileReload.of(config);
    this.durableKeys = new DurableKeyRing(keyFile.ring());
    this.storedKeysNeeded = ExposureGuard.storedKeysNeeded(config, !keyFile.ring().keyless());
    // until the store says whether it holds keys, such a server checks every request
    this.keys = new AuditedKeyRing(durableKeys, storedKeysNeeded);
    this.guard = new ExposureGuard(config, this::port, keys::keyless);
    this.outbound =
        OutboundAddresses.of(
            config.get(Settings.OUTBOUND_PRIVATE_ADDRESSES),
            keys::keyless,
            ExposureGuard.loopbackBind(config.bind()));
    this.callbacks = new AssignmentCallbacks(routingApi::workspaces, Clock.system(), outbound);
    resources.push("assignment callbacks", callbacks::close);
    this.tlsFiles = TlsFiles.of(config);
    this.gate = new RequestGate(config.get(Settings.MAX_LONG_POLLS));
    this.connectionLimits = ConnectionLimits.of(config);
    this.streamLimits = EventStreamLimits.of(config);
    this.openApi = resource("openapi.yaml");
    List<Route> all = new ArrayList<>();
    all.add(
        Route.declare("GET", "/health", "health")
            .guard(Guard.open())
            .ignoresBody()
            .withoutEngine()
            .to(this::health));
    all.add(
        Route.declare("GET", "/metrics", "metrics")
            .guard(
                config.get(Settings.METRICS_PUBLIC)
                    ? Guard.open()
                    : Guard.any(io.switchboard.server.auth.Action.METRICS_READ))
            .ignoresBody()
            .withoutEngine()
            .to(this::metrics));
    all.add(
        Route.declare("GET", "/openapi.yaml", "openapi")
            .guard(Guard.open())
            .ignoresBody()
            .withoutEngine()
            .to(this::openApi));
    all.addAll(NativeApi.routes());
    all.addAll(new PushApi(() -> push).routes());
    all.addAll(new KeysApi(keys, durableKeys).routes());
    this.console = new Console(keys, Clock.system());
    all.addAll(console.routes());
    List<Route> routing =
        new ArrayList<>(new WorkspaceApi(routingApi::workspaces, outbound).routes(routingApi));
    routing.addAll(routingApi.routes());
    routing.forEach(
        r -> all.add(RoutingApi.isStream(r) ? streamLimits.limited(clustered(r)) : clustered(r)));
    List<Route> undocumented = new ArrayList<>(console.assetRoutes()); // before SQS's /{a}/{q}
    undocumented.addAll(new SqsRoute(() -> sqs, guard).routes());
    this.routes = new RouteTable(all, undocumented);
    metrics.scope(MetricsScope.of(config));
    metrics.routingLeader(() -> cluster == null || cluster.leading());
    metrics.callbacks(callbacks);
    metrics.health(health);
  }

  /**
   * Starts a server with the engine its configuration asks for.
   *
   * @throws StartupException if the configuration asks for something that cannot run
   */
  public static SwitchboardServer start(ServerConfig config) {
    return start(config, EngineFactory.forConfig(config));
  }

  /** Starts a server with the given engine factory; returns once the engine is open. */
  public static SwitchboardServer start(ServerConfig config, EngineFactory factory) {
    return start(config, factory, Clock.system());
  }

  /**
   * Starts a server with the given engine factory, checking its TLS files and its {@code
   * access-keys-file} for changes on {@code tlsScheduler} (a test passes a {@code ManualClock} and
   * advances it); returns once the engine is open.
   *
   * @throws StartupException if the configuration asks for something that cannot run: among others,
   *     a non-loopback bind address without access keys or {@code allow-anonymous}
   */
  public static SwitchboardServer start(
      ServerConfig config, EngineFactory factory, Scheduler tlsScheduler) {
    Logging.routeJulToSlf4j(); // the SDK logs through java.util.logging
    return start(config, factory, tlsScheduler, Tracing.fromEnvironment(System.getenv()));
  }

  /** Starts a server that traces with {@code tracing} ({@code docs/deploy.md}, "Tracing"). */
  public static SwitchboardServer start(
      ServerConfig config, EngineFactory factory, Scheduler tlsScheduler, Tracing tracing) {
    Objects.requireNonNull(factory, "factory");
    Objects.requireNonNull(tlsScheduler, "tlsScheduler");
    ExposureGuard.checkStart(Objects.requireNonNull(config, "config"));
    Logging.routeJulToSlf4j();
    OpenResources resources = new OpenResources();
    resources.push("tracing", tracing::close);
    SwitchboardServer server;
    try {
      server = new SwitchboardServer(config, tracing, resources);
      server.listen();
      server.tlsFiles.ifPresent(
          files -> {
            files.watch(
                tlsScheduler,
                config.get(Settings.TLS_RELOAD_CHECK),
                tls -> {
                  server.web.reloadTls(tls);
                  GrpcServer g = server.grpc;
                  if (g != null) {
                    g.reloadTls(tls);
                  }
                });
            resources.push("TLS file watch", files::close);
          });
      server.keyFile.watch(tlsScheduler, config.get(Settings.ACCESS_KEYS_RELOAD_CHECK));
      resources.push("access key file watch", server.keyFile::close);
      server.health.watchThreads();
      resources.push("thread watch", server.health::unwatchThreads);
      // a stop waits for the long polls the engine's close ends; a dying process waits for nothing
      resources.push(
          "long polls",
          () -> server.gate.awaitPolls(Duration.ofSeconds(config.shutdownGraceSeconds())),
          OpenResources.LEFT);
      long storageStart = System.nanoTime();
      if (config.postgres().isPresent() || config.dynamodb().isPresent()) {
        server.openShared(factory);
      } else {
        Router router = server.openRouter();
        server.routingApi.open(router);
        resources.push("routing API", server.routingApi::close, OpenResources.LEFT);
        server.openWorkspaces(router);
        QueueEngine engine = factory.open(config, server.health);
        resources.push("engine", engine::close);
        server.serve(engine);
      }
      server.storageOpenMillis = (System.nanoTime() - storageStart) / 1_000_000;
      if (server.storedKeysNeeded && !server.durableKeys.storedAny()) {
        throw ExposureGuard.refusal(config);
      }
    } catch (RuntimeException e) {
      resources.stop(); // everything opened so far, the newest first
      throw e;
    }
    server.guard.logStart();
    LOG.atInfo()
        .addKeyValue("bind", bindAddress(config.bind(), server.port()))
        // where clients reach it: the public URL when one is set, else this host's own (loopback
        // for a server bound to every interface)
        .addKeyValue("url", config.find(Settings.PUBLIC_URL).orElse(server.uri()))
        .addKeyValue("mode", config.inMemory() ? "in-memory" : "durable")
        .addKeyValue("maxQueues", config.maxQueues())
        .addKeyValue(
            "accessKeys",
            server.keys.keyless()
                ? "none (keyless: nothing is checked)"
                : server.keys.list().stream().map(Principal::keyId).sorted().toList().toString())
        .addKeyValue("tls", server.tlsFiles.map(f -> f.mutual() ? "mutual" : "on").orElse("off"))
        .addKeyValue("limits", limitsLine(config))
        .addKeyValue("sqsAccount", config.sqsAccount().id())
        .addKeyValue("sqsDefaultRegion", config.sqsAccount().defaultRegion())
        // what a restart spends: opening the stores and recovering, and the process in all
        .addKeyValue("storageOpenedMs", server.storageOpenMillis)
        .addKeyValue(
            "processUptimeMs",
            ProcessHandle.current()
                .info()
                .startInstant()
                .map(t -> Duration.between(t, java.time.Instant.now()).toMillis())
                .orElse(-1L))
        .log("switchboard ready");
    return server;
  }

  /**
   * The limits in force, for the start log line: what an operator checks first when a client is
   * refused with 429 or 503 ({@code docs/operations.md}, "Limits" and "Connections").
   */
  static String limitsLine(ServerConfig config) {
    io.switchboard.queue.QueueLimits l = config.queueLimits();
    return "queuedBytes="
        + mebibytes(l.maxQueuedBytes())
        + " queueBytes="
        + mebibytes(l.maxQueueBytes())
        + " defaultMaxDepth="
        + l.defaultMaxDepth()
        + " inFlight="
        + l.maxInFlight()
        + "/"
        + l.maxInFlightGrouped()
        + " answerBytes="
        + mebibytes(l.maxAnswerBytes())
        + " connections="
        + config.get(Settings.MAX_CONNECTIONS)
        + "/"
        + config.get(Settings.MAX_CONNECTIONS_PER_ADDRESS)
        + " longPolls="
        + config.get(Settings.MAX_LONG_POLLS)
        + " eventStreams="
        + config.get(Settings.MAX_EVENT_STREAMS)
        + "/"
        + config.get(Settings.MAX_EVENT_STREAMS_PER_KEY);
  }

  /**
   * The address and port the server listens on, as the start line names it ({@code 0.0.0.0:8080}:
   * every interface), where {@code url} is one a client on this host reaches it at.
   */
  static String bindAddress(String bind, int port) {
    return (bind.contains(":") ? "[" + bind + "]" : bind) + ":" + port;
  }

  /**
   * A byte count for people: whole KiB or MiB as such ({@code 2048MiB}), else to one decimal in the
   * largest unit it fills ({@code 2.9GiB} for a share of the heap, 3160408050 bytes).
   */
  static String mebibytes(long bytes) {
    if (bytes == Long.MAX_VALUE) {
      return "none";
    }
    if (bytes % (1 << 20) == 0) {
      return (bytes >> 20) + "MiB";
    }
    if (bytes % 1024 == 0 && bytes < (1L << 20)) {
      return (bytes >> 10) + "KiB";
    }
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double value = bytes;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0
        ? bytes + "B"
        : String.format(java.util.Locale.ROOT, "%.1f%s", value, units[unit]);
  }

  /**
   * Over a shared store (a PostgreSQL database, a DynamoDB table): the engine, then the routing
   * leadership (this server routes if it wins the lease, and forwards routing calls to the leader
   * otherwise; see {@link ClusterRouting}).
   */
  private void openShared(EngineFactory factory) {
    resources.push("routing API", routingApi::close, OpenResources.LEFT);
    QueueEngine shared = factory.open(config, health);
    resources.push("engine", shared::close);
    URI advertised = ClusterRouting.defaultAdvertised(config.bind(), port());
    if (tlsFiles.isPresent()) {
      advertised = URI.create("https" + advertised.toString().substring("http".length()));
    }
    routingApi.workspaces(
        () -> {
          ClusterRouting c = cluster;
          if (c == null) {
            throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
          }
          return c.workspaces();
        });
    ClusterRouting started =
        ClusterRouting.start(config, advertised, routingApi, forwarded, tracing, callbacks);
    cluster = started;
    // a stop releases the routing lease, so another server takes over at once; a dying
    // process releases nothing
    resources.push("routing leadership", started::stop, started::halt);
    serve(shared);
  }

  /**
   * Starts serving {@code opened}: the SQS endpoint over it first (one per server, with its state
   * and signature verifier, for all requests), then the engine, which opens the gate.
   */
  private void serve(QueueEngine untraced) {
    QueueEngine opened = tracing.engine(untraced);
    try {
      durableKeys.attach(opened.systemRecords(), opened.clock());
      console.attach(opened.systemRecords());
      forwarded.attach(opened.systemRecords());
    } catch (UnsupportedOperationException remote) {
      LOG.atInfo().log("the engine keeps no access keys: only the configured keys are known");
    }
    // each move a redrive task makes is checked against its starter's grants at that moment
    // and so is each dead-letter move the engine makes on its own, against the target's configurer
    MoveRights moveRights = MoveRights.of(keys, opened);
    opened.checkMoves(moveRights);
    metrics.moveRights(moveRights);
    sqs = SqsEndpoint.create(opened, keys, config.sqsAccount(), Clock.system());
    Optional<InitFile.Setup> init = applyInit(opened); // a failed start closes the engine too
    // closed before the engine (the newest first): its subscriptions release their leases; on a
    // cluster only the routing leader runs them
    PushDelivery delivery =
        new PushDelivery(opened, outbound, () -> cluster == null || cluster.leading());
    resources.push("push subscriptions", delivery::close, delivery::halt);
    push = delivery;
    init.ifPresent(setup -> declareSubscriptions(setup, delivery));
    metrics.push(delivery::runningStats);
    engine = opened;
    if (config.get(Settings.GRPC_PORT) >= 0) {
      // closed before the engine (the newest first): its Consume streams release their leases
      GrpcServer started =
          GrpcServer.start(
              config,
              opened,
              routingApi,
              keys,
              tlsFiles.map(TlsFiles::load),
              tlsFiles.map(TlsFiles::mutual).orElse(false));
      grpc = started;
      resources.push("gRPC listener", started::close);
      metrics.grpc(started::publishers, started::consumers, started::sent, started::pushed);
    }
  }

  /** The port of the gRPC API (docs/api.md#grpc), when {@code grpc-port} turned it on. */
  public java.util.OptionalInt grpcPort() {
    GrpcServer g = grpc;
    return g == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(g.port());
  }

  /**
   * Applies {@code init} ({@link Init}), once the engine, the workspaces and the key store are open
   * and before the API is served; read first, so a bad file stops the start having changed nothing.
   */
  private Optional<InitFile.Setup> applyInit(QueueEngine opened) {
    Optional<java.nio.file.Path> file = config.find(Settings.INIT);
    if (file.isPresent()) {
      InitFile.Setup setup = InitFile.read(file.get(), System::getenv);
      checkCallbackUrls(file.get(), setup);
      checkSubscriptions(file.get(), setup, opened);
      Init.apply(file.get(), setup, opened, Optional.ofNullable(workspaces), keys, durableKeys);
      if (cluster != null) {
        cluster.init(file.get(), setup); // the workspaces are the routing leader's
      }
      return Optional.of(setup);
    }
    return Optional.empty();
  }

  /**
   * Refuses an init file whose push subscription names a queue neither the file nor the server has,
   * or has a setting or URL the API would refuse, before anything of the file is applied.
   */
  private void checkSubscriptions(
      java.nio.file.Path file, InitFile.Setup setup, QueueEngine opened) {
    java.util.Set<String> declared = setup.queueNames();
    for (InitFile.DeclaredSubscription d : setup.subscriptions()) {
      String where =
          "init file "
              + file
              + ": subscription '"
              + d.subscription().name()
              + "' of queue '"
              + d.queue()
              + "': ";
      if (!declared.contains(d.queue())) {
        try {
          opened.queue(d.queue());
        } catch (io.switchboard.queue.QueueException e) {
          if (e.code() != io.switchboard.queue.ErrorCode.QUEUE_NOT_FOUND) {
            throw e;
          }
          throw new StartupException(
              where + "the queue is neither declared in the file nor on the server");
        }
      }
      try {
        PushDelivery.check(
            d.queue(), d.subscription(), d.secret(), config.maxSelectorLength(), outbound);
      } catch (io.switchboard.queue.QueueException e) {
        throw new StartupException(where + e.getMessage());
      }
    }
  }

  /** Creates or changes the push subscriptions the init file declares, once they can run. */
  private void declareSubscriptions(InitFile.Setup setup, PushDelivery delivery) {
    int created = 0;
    int changed = 0;
    for (InitFile.DeclaredSubscription d : setup.subscriptions()) {
      switch (delivery.declare(
          d.queue(), d.subscription(), d.secret(), config.maxSelectorLength())) {
        case CREATED -> created++;
        case CHANGED -> changed++;
        case UNCHANGED -> {}
      }
    }
    if (!setup.subscriptions().isEmpty()) {
      LOG.atInfo()
          .addKeyValue("created", created)
          .addKeyValue("changed", changed)
          .log("init file's push subscriptions applied");
    }
  }

  /**
   * Refuses an init file whose workflow names an assignment callback URL the server may not send to
   * ({@link OutboundAddresses}), before anything of the file is applied.
   */
  private void checkCallbackUrls(java.nio.file.Path file, InitFile.Setup setup) {
    for (InitFile.DeclaredWorkspace w : setup.workspaces()) {
      for (io.switchboard.routing.Workflow f : w.workflows()) {
        if (f.assignmentCallback().isPresent()) {
          try {
            outbound.checkConfigured("assignmentCallbackUrl", f.assignmentCallback().get().uri());
          } catch (OutboundAddresses.Refused e) {
            throw new StartupException(
                "init file "
                    + file
                    + ": workflow '"
                    + f.name()
                    + "' of workspace '"
                    + w.name()
                    + "': "
                    + e.getMessage());
          }
        }
      }
    }
  }

  /**
   * The keys of the configuration: {@code access-keys}, its alias {@code sqs-access-keys} (each
   * allowed everything) and {@code access-keys-file}.
   *
   * @throws StartupException if the file cannot be used or a key id is given twice
   */
  static MemoryKeyRing keyRing(ServerConfig config) {
    return KeyFileReload.of(config).ring();
  }

  /**
   * Reads {@code access-keys-file} again now, changed or not, as the periodic check does when it
   * changed ({@code access-keys-reload-check}); false, and the keys loaded before stay, if it
   * cannot be used (the reason is logged). False without a file.
   */
  public boolean reloadKeyFile() {
    return keyFile.reload();
  }

  /**
   * The server's access keys; empty in keyless mode. A change (put, revoke) applies to the next
   * request and is in the audit log.
   */
  public KeyRing keys() {
    return keys;
  }

  /** The route table, for the access matrix test. */
  RouteTable routes() {
    return routes;
  }

  /** Routing calls go through the routing leadership when there is one. */
  private Route clustered(Route r) {
    return r.withEndpoint(
        call -> {
          ClusterRouting c = cluster;
          if (c == null) {
            r.endpoint().handle(call);
          } else {
            c.handle(call, r.endpoint());
          }
        });
  }

  /**
   * The router with the configured settings; on a durable server, recovered from the router store
   * in the data directory ({@link EngineFactory#routerJournal}). Not used over PostgreSQL, where
   * the routing leader's router is recovered from the database ({@link #openShared}).
   */
  private Router openRouter() {
    Router.Builder builder =
        tracing.routing(config.routing().builder()).onEvent(callbacks.listener(Workspaces.DEFAULT));
    if (config.inMemory()) {
      return builder.build();
    }
    routerJournal = EngineFactory.routerJournal(config);
    resources.push("router store", this::closeRouterJournal, OpenResources.LEFT);
    if (routerJournal instanceof io.switchboard.storage.rocksdb.RocksRouterJournal rocks) {
      health.check("routing store", () -> rocks.problem().map(p -> "routing " + p));
    }
    try {
      return builder.journal(routerJournal).build();
    } catch (RuntimeException e) {
      throw new StartupException(
          "cannot recover the routing store in " + config.dataDir() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The workspaces ({@code docs/routing.md}, "Workspaces, queues and workflows"): {@code default}
   * is {@code router}; the others' definitions are kept in the router store, their agents and
   * contacts each in a store of its own in {@code <data-dir>/workspaces/<name>} (in memory on a
   * server without a data directory).
   */
  private void openWorkspaces(Router router) {
    RoutingSettings rs = config.routing();
    if (routerJournal instanceof io.switchboard.storage.rocksdb.RocksRouterJournal rocks) {
      workspaces =
          new Workspaces(
              router,
              rs.defaultWorkspace(),
              rocks.workspaceStore(),
              new io.switchboard.storage.rocksdb.RocksWorkspaceRouters(
                  config.dataDir().resolve("workspaces"),
                  EngineFactory.storageDurability(config.durability()),
                  w -> tracing.routing(rs.builder(w)).onEvent(callbacks.listener(w.name()))));
    } else {
      workspaces =
          new Workspaces(
              router,
              rs.defaultWorkspace(),
              WorkspaceStore.memory(),
              WorkspaceRouters.memory(
                  w -> tracing.routing(rs.builder(w)).onEvent(callbacks.listener(w.name()))));
    }
    Workspaces open = workspaces;
    routingApi.workspaces(() -> open);
    resources.push("workspaces", this::closeWorkspaces, OpenResources.LEFT);
  }

  private synchronized void closeWorkspaces() {
    if (workspaces != null) {
      workspaces.close();
      workspaces = null;
    }
  }

  private void closeRouterJournal() {
    closeWorkspaces();
    if (routerJournal != null) {
      routerJournal.close();
    }
  }

  private void listen() {
    readTimeouts = new ReadTimeouts(config.get(Settings.READ_TIMEOUT), connectionLimits);
    resources.push("read timeouts", readTimeouts::close);
    metrics.limits(connectionLimits, gate, streamLimits, readTimeouts);
    Duration idle = config.get(Settings.IDLE_TIMEOUT);
    try {
      var builder = WebServer.builder();
      Http1Config http1 =
          Http1Config.builder()
              .addReceiveListener(readTimeouts)
              .addSendListener(readTimeouts.answering())
              .build();
      if (tlsFiles.isPresent()) {
        builder.tls(tlsFiles.get().load());
      }
      web =
          builder
              .host(config.bind())
              .port(config.port())
              .backlog(8192)
              .shutdownHook(false)
              // every accepted socket is configured with these: where the connection caps hold
              .connectionOptions(connectionLimits)
              // Helidon closes a connection idle longer than this when its sweep (every fifth of
              // it) finds it waiting for a request; ReadTimeouts times the requests themselves
              .idleConnectionTimeout(idle)
              .idleConnectionPeriod(idle.dividedBy(5))
              .addProtocol(http1)
              // a first line HTTP/1.1 would not claim gets an answer too, not a silent close
              .addConnectionSelector(new UnreadableRequests(http1.maxPrologueLength()))
              .directHandlers(directHandlers())
              .routing(this::routing)
              .build()
              .start();
    } catch (UncheckedIOException | IllegalStateException e) {
      throw new StartupException(
          "cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage(), e);
    }
    if (!web.isRunning()) {
      throw new StartupException(
          "cannot listen on "
              + config.bind()
              + ":"
              + config.port()
              + " (address in use or not available; see the log above)");
    }
    // a halt drops the connections first of all, as a dead process's are ({@link #halt})
    resources.push("listener", web::stop, OpenResources.LEFT);
  }

  public int port() {
    return web.port();
  }

  /**
   * The base URI, e.g. {@code http://127.0.0.1:8080} ({@code https} with {@code tls-cert}): the
   * address the server listens on, not {@code public-url}.
   */
  public URI uri() {
    String host = config.bind().contains(":") ? "[" + config.bind() + "]" : config.bind();
    if (host.equals("0.0.0.0")) {
      host = "127.0.0.1";
    }
    return URI.create(guard.scheme() + "://" + host + ":" + port());
  }

  public ServerConfig config() {
    return config;
  }

  /** True once the engine is open, and until a stop begins. */
  public boolean ready() {
    return engine != null && !gate.draining();
  }

  /** Every route, in the order they are matched. */
  public List<String> routeTable() {
    return routes.documented().stream().map(r -> r.method() + " " + r.pattern()).toList();
  }

  /**
   * Stops gracefully (see the class comment), waiting at most {@code shutdown-grace-seconds} for
   * requests in flight. Idempotent.
   */
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    LOG.atInfo().addKeyValue("inFlight", gate.inFlight()).log("switchboard stopping");
    gate.drain();
    routingApi.endStreams();
    if (cluster != null) {
      cluster.endStreams();
    }
    Duration grace = Duration.ofSeconds(config.shutdownGraceSeconds());
    try {
      if (!gate.awaitBusy(grace)) {
        LOG.atWarn().addKeyValue("graceSeconds", grace.toSeconds()).log("requests still running");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // the routing lease released first, then the engine, the routers, the listener
    resources.stop();
    LOG.info("switchboard stopped");
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Stops as if the process had died: no lease released, nothing more written, connections dropped.
   * For failover tests; a real server stops with {@link #stop}.
   */
  synchronized void halt() {
    if (stopped) {
      return;
    }
    stopped = true;
    gate.drain();
    web.stop(); // connections dropped at once, as a dead process's are
    resources.halt();
  }

  /** The routing leadership, with {@code postgres-url}. */
  Optional<ClusterRouting> cluster() {
    return Optional.ofNullable(cluster);
  }

  // ---- routing -----------------------------------------------------------------------------

  /** The paths a load balancer, Kubernetes or Prometheus asks every few seconds. */
  private static final java.util.Set<String> PROBES = java.util.Set.of("/health", "/metrics");

  /**
   * The tracing filter, passing the probes ({@link #PROBES}) by unless {@code probes} (the setting
   * {@code trace-probes}): a span each for a readiness probe every few seconds is noise.
   */
  static io.helidon.webserver.http.Filter traced(
      io.helidon.webserver.http.Filter spans, boolean probes) {
    if (probes) {
      return spans;
    }
    return (chain, req, res) -> {
      if (PROBES.contains(req.path().path())) {
        chain.proceed();
      } else {
        spans.filter(chain, req, res);
      }
    };
  }

  /**
   * Helidon dispatches each declared route to its handler, with the {@link Call} the filters made
   * ({@link RequestFilters}); whatever a filter or a handler throws is answered by the error
   * handlers ({@link ErrorAnswers}). A request no route serves gets 404, or 405 with {@code Allow}.
   */
  private void routing(HttpRouting.Builder routing) {
    routing
        .addFilter(RequestFilters.exchange(routes, config, () -> engine))
        .addFilter(traced(tracing.requests(), config.get(Settings.TRACE_PROBES)))
        .addFilter(RequestFilters.metrics(metrics))
        .addFilter(RequestFilters.exposure(guard))
        .addFilter(console.sessions())
        .addFilter(
            RequestFilters.authentication(new Authentication(keys, Clock.system(), forwarded)))
        .addFilter(RequestFilters.gate(gate));
    ErrorAnswers.register(routing);
    routing.any(this::dispatch);
  }

  /**
   * The one handler: the route the exchange filter found ({@link RouteTable}) serves the call.
   * Registering each route with Helidon had it match every request against each route in turn, a
   * regular expression per pattern with parameters, after the filters had found the route already.
   */
  private void dispatch(ServerRequest req, ServerResponse res) {
    Call call = Call.of(req);
    Optional<Route> route = call.route();
    if (route.isPresent()) {
      route.get().serve(call);
    } else {
      noRoute(req, res, call);
    }
  }

  /** No route matched: 405 if the path exists with other methods, else 404. */
  private void noRoute(ServerRequest req, ServerResponse res, Call call) {
    String path = req.path().path();
    String method = req.prologue().method().text();
    List<String> allowed = routes.allowed(req.path().rawPath(), path);
    if (allowed.isEmpty()) {
      call.error(404, "NOT_FOUND", "no route " + method + " " + path + "; see /openapi.yaml");
    } else {
      res.header(HeaderNames.ALLOW, String.join(", ", allowed));
      call.error(
          405,
          "METHOD_NOT_ALLOWED",
          method + " is not allowed on " + path + "; allowed: " + String.join(", ", allowed));
    }
  }

  /** What an error Helidon answers before routing means, for the answer's {@code message}. */
  static String directMessage(DirectHandler.EventType type, io.helidon.http.Status status) {
    return switch (type) {
      case BAD_REQUEST ->
          status.code() == 414
              ? "the request line is too long (" + status.code() + "); nothing was done"
              : "the request is not valid HTTP/1.1: its request line, a header or its framing"
                  + " could not be read; nothing was done";
      case PAYLOAD_TOO_LARGE -> "the request is larger than the server accepts; nothing was done";
      case HTTP_VERSION_NOT_SUPPORTED -> "only HTTP/1.1 is served; nothing was done";
      case FORBIDDEN -> "forbidden";
      case OTHER, INTERNAL_ERROR -> "the request could not be served (" + status.code() + ")";
    };
  }

  /**
   * Errors Helidon answers before routing (a bad request line, a {@code Content-Length} that is not
   * one decimal number, say) get the same JSON shape, and a request id of their own; on the SQS
   * endpoint's paths ({@link SqsRoute#PATHS}) the SQS error shape of the request's protocol ({@link
   * #sqsDirectAnswer}), which the SDKs read.
   */
  private static DirectHandlers directHandlers() {
    DirectHandler json =
        (request, type, status, headers, message) -> {
          String id = RequestIds.next();
          String said = directMessage(request, type, status, message);
          if (sqsPath(request.path())) {
            return sqsDirectAnswer(request, type, status, headers, said, id);
          }
          String code =
              switch (type) {
                case BAD_REQUEST -> status.code() == 414 ? "URI_TOO_LONG" : "BAD_REQUEST";
                case PAYLOAD_TOO_LARGE -> "PAYLOAD_TOO_LARGE";
                case HTTP_VERSION_NOT_SUPPORTED -> "HTTP_VERSION_NOT_SUPPORTED";
                case INTERNAL_ERROR -> "INTERNAL";
                default -> "HTTP_" + status.code();
              };
          // Helidon passes no message (its error handling keeps it out of answers): say what
          // kind of request it was, never echoing the request itself
          String text =
              type == DirectHandler.EventType.INTERNAL_ERROR
                  ? ErrorAnswers.internalMessage(id)
                  : said;
          byte[] body =
              WireFormat.bytes(WireFormat.object().put("code", code).put("message", text));
          return DirectHandler.TransportResponse.builder()
              .status(status)
              .headers(headers)
              .header(HeaderNames.CONTENT_TYPE, "application/json")
              .header(HeaderNames.create(Call.REQUEST_ID_HEADER), id)
              .entity(body)
              .build();
        };
    DirectHandlers.Builder b = DirectHandlers.builder();
    for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
      b.addHandler(type, json);
    }
    return b.build();
  }

  /**
   * What an error Helidon answers says: why a {@code Content-Length} is refused (Helidon gives no
   * text), else Helidon's message, else the status's reason.
   */
  static String directMessage(
      DirectHandler.TransportRequest request,
      DirectHandler.EventType type,
      Status status,
      @Nullable String message) {
    var headers = request.headers();
    if (status.code() == 400 && headers.contains(HeaderNames.CONTENT_LENGTH)) {
      try {
        headers.contentLength();
      } catch (IllegalArgumentException malformed) {
        return "Content-Length must be one number of bytes, decimal digits only (no sign, no"
            + " second value), got "
            + headers.get(HeaderNames.CONTENT_LENGTH).allValues().stream()
                .map(v -> "'" + Audit.clip(v, 40) + "'")
                .collect(java.util.stream.Collectors.joining(" and "));
      }
    }
    return message == null || message.isBlank() ? directMessage(type, status) : message;
  }

  /** Whether {@code rawPath} is one of the SQS endpoint's: {@code /} or a queue URL's path. */
  private static boolean sqsPath(String rawPath) {
    return rawPath.equals("/") || SqsEndpoint.isQueuePath(rawPath);
  }

  /**
   * An error Helidon answers before routing, on an SQS path: {@code BadRequest} (400), {@code
   * RequestEntityTooLarge} (413) or {@code InternalFailure} (500), in the JSON protocol's shape
   * when the request is of it ({@code X-Amz-Target}, an {@code amz-json} content type), else the
   * query protocol's XML; with the request id in {@code x-amzn-RequestId} and {@code X-Request-Id}.
   */
  private static DirectHandler.TransportResponse sqsDirectAnswer(
      DirectHandler.TransportRequest request,
      DirectHandler.EventType type,
      Status status,
      ServerResponseHeaders headers,
      String message,
      String id) {
    String code =
        switch (type) {
          case INTERNAL_ERROR -> "InternalFailure";
          default -> status.code() == 413 ? "RequestEntityTooLarge" : "BadRequest";
        };
    String text =
        type == DirectHandler.EventType.INTERNAL_ERROR ? ErrorAnswers.internalMessage(id) : message;
    SqsHttpRequest head =
        new SqsHttpRequest(
            request.method(),
            request.path(),
            "",
            new SignedCalls.HeaderView(request.headers()),
            new byte[0]);
    SqsApi.Answer answer = SqsEndpoint.refusal(head, code, status.code(), text, id);
    var response = DirectHandler.TransportResponse.builder().status(status).headers(headers);
    answer.headers().forEach((name, value) -> response.header(HeaderNames.create(name), value));
    return response
        .header(HeaderNames.create(Call.REQUEST_ID_HEADER), id)
        .entity(answer.body())
        .build();
  }

  // ---- infrastructure endpoints ------------------------------------------------------------

  /**
   * 200 {@code ready}, or 503 {@code starting}, {@code stopping}, or {@code unhealthy} with the
   * reason a component reported (e.g. {@code "store cannot write"}; see {@link HealthRegistry}).
   */
  private void health(Call call) {
    Optional<String> problem = health.problem();
    String status =
        gate.draining()
            ? "stopping"
            : engine == null ? "starting" : problem.isPresent() ? "unhealthy" : "ready";
    var body = WireFormat.object().put("status", status);
    if (status.equals("unhealthy")) {
      body.put("reason", problem.get());
    }
    call.json(
        status.equals("ready") ? 200 : 503,
        body.put("mode", config.inMemory() ? "in-memory" : "durable"));
  }

  /** What {@code /health} reports on: components add checks and failures here. */
  public HealthRegistry health() {
    return health;
  }

  private void metrics(Call call) {
    MetricsScope scope = metrics.scope();
    metrics.routing(routingApi.workspaceStats(scope.topWorkspaces(), scope.workspaces()));
    call.text("text/plain; version=0.0.4; charset=utf-8", metrics.scrape(engine));
  }

  private void openApi(Call call) {
    call.text("application/yaml", openApi);
  }

  static String resource(String name) {
    try (InputStream in = SwitchboardServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
