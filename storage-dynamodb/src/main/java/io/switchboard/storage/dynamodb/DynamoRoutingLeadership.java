package io.switchboard.storage.dynamodb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.Router;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.FencedWorkspaceRouters;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RoutingLeader;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One routing leader among the servers that share a DynamoDB store's table, elected through the
 * lease item ({@link RouterLease}); the leader runs the routers on {@link DynamoRouterJournal}s,
 * the others forward routing calls to it ({@code docs/design.md}, "Routing on DynamoDB").
 *
 * <p><b>The lease.</b> Every server reads the lease item every third of the lease. The leader
 * renews it (a new record version, conditional on its epoch). A follower takes it (a new epoch,
 * conditional on the version it read) when it was released, when nobody ever held it, when this
 * server held it before, or when it has read the same version for a whole lease by its own clock,
 * counted from when the read that first showed the version returned: the renewal that wrote that
 * version was sent before then, so the leader, which stops serving a lease after sending its last
 * successful renewal, has stopped by the time a follower takes over. No server compares its clock
 * with another's, and DynamoDB, which has no clock a condition could read, is never asked the time.
 *
 * <p><b>Why two servers never both write.</b> A leader that is paused (GC, a stopped VM) and wakes
 * after a takeover is stopped by fencing: each journal write is a transaction whose condition check
 * requires its epoch, so its first write is refused, its router stops (UNAVAILABLE), and it steps
 * down at its next tick. A router whose store failed for any reason steps down too, and its server
 * may take the lease again at a new epoch, reloading what was stored.
 *
 * <p><b>Workspaces.</b> With {@link Builder#workspaces}, the leader runs every routing workspace
 * defined in {@link DynamoWorkspaceStore}, each on a journal of its own, all fenced by the one
 * epoch, so a takeover moves every workspace at once.
 */
public final class DynamoRoutingLeadership implements RoutingLeader {

  private static final System.Logger LOG =
      System.getLogger(DynamoRoutingLeadership.class.getName());

  private record Term(
      long epoch,
      DynamoRouterJournal journal,
      Router router,
      @Nullable FencedWorkspaceRouters<DynamoRouterJournal> routers,
      @Nullable Workspaces workspaces) {

    Optional<String> failure() {
      Optional<String> f = journal.failure();
      return f.isPresent() || routers == null ? f : routers.failure();
    }
  }

  private final @Nullable DynamoDbClient owned;
  private final DynamoDbClient client;
  private final StoreTable table;
  private final boolean ensureTable;
  private final Store store;
  private final RouterLease lease;
  private final String serverId;
  private final URI advertiseUrl;
  private final long leaseMillis;
  private final long leaseNanos;
  private final LongSupplier nanos;
  private final Function<RouterJournal, Router> routerFactory;
  private final @Nullable WorkspaceSettings defaultWorkspace;
  private final @Nullable Function<WorkspaceDefinition, Router.Builder> workspaceRouter;
  private final Runnable onChange;
  private final @Nullable ScheduledExecutorService timer;
  private volatile @Nullable Term term;
  private volatile long renewedAt;
  private volatile @Nullable Leader known;
  private volatile @Nullable String lastError;
  private @Nullable String seenVersion;
  private long seenAt;
  private boolean closed;

  private DynamoRoutingLeadership(Builder b) {
    this.serverId = Objects.requireNonNull(b.serverId, "serverId");
    this.advertiseUrl = Objects.requireNonNull(b.advertiseUrl, "advertiseUrl");
    this.routerFactory = Objects.requireNonNull(b.routerFactory, "router");
    this.defaultWorkspace = b.defaultWorkspace;
    this.workspaceRouter = b.workspaceRouter;
    this.leaseMillis = b.lease.toMillis();
    this.leaseNanos = b.lease.toNanos();
    this.nanos = b.nanos;
    this.onChange = b.onChange;
    this.table = b.table;
    this.ensureTable = b.ensureTable;
    if (b.client != null) {
      this.client = b.client;
      this.owned = null;
    } else {
      var made = DynamoDbClient.builder();
      if (b.region != null) {
        made.region(software.amazon.awssdk.regions.Region.of(b.region));
      }
      if (b.endpoint != null) {
        made.endpointOverride(b.endpoint);
      }
      this.client = made.build();
      this.owned = client;
    }
    this.store = new Store(client, table.name());
    this.lease = new RouterLease(store);
    this.timer =
        b.manualTicks
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("switchboard-routing-lease").unstarted(r));
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Makes the table if needed, makes a first attempt at the lease (a server alone takes it at
   * once), then keeps trying or renewing every third of the lease.
   *
   * @throws QueueException UNAVAILABLE when DynamoDB cannot be reached or the table cannot be used
   */
  @Override
  public DynamoRoutingLeadership start() {
    try {
      if (ensureTable) {
        table.ensure(client);
      }
    } catch (RuntimeException e) {
      if (owned != null) {
        owned.close();
      }
      throw new QueueException(
          ErrorCode.UNAVAILABLE,
          "cannot use the DynamoDB table " + table.name() + ": " + e.getMessage(),
          e);
    }
    tick();
    if (timer != null) {
      long every = Math.max(1, leaseMillis / 3);
      timer.scheduleWithFixedDelay(this::tickSafely, every, every, TimeUnit.MILLISECONDS);
    }
    return this;
  }

  @Override
  public String serverId() {
    return serverId;
  }

  @Override
  public Duration lease() {
    return Duration.ofMillis(leaseMillis);
  }

  @Override
  public Optional<Router> router() {
    Term t = term;
    if (t == null || nanos.getAsLong() - renewedAt >= leaseNanos) {
      return Optional.empty();
    }
    return Optional.of(t.router());
  }

  @Override
  public Optional<Workspaces> workspaces() {
    Term t = term;
    if (t == null || t.workspaces() == null || nanos.getAsLong() - renewedAt >= leaseNanos) {
      return Optional.empty();
    }
    return Optional.of(t.workspaces());
  }

  @Override
  public Optional<Leader> leader() {
    return Optional.ofNullable(known);
  }

  @Override
  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  @Override
  public Optional<Leader> refresh() {
    try {
      RouterLease.Row row = lease.read();
      if (row != null) {
        known = leaderOf(row, !row.released());
      }
      lastError = null;
    } catch (RuntimeException e) {
      lastError = e.getMessage();
    }
    return leader();
  }

  // ---- the lease loop ----------------------------------------------------------------------

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "routing lease check failed", e);
    }
  }

  /** One round: renew (leader) or try to take over (follower). */
  synchronized void tick() {
    if (closed) {
      return;
    }
    Term t = term;
    if (t == null) {
      tryToLead();
      return;
    }
    Optional<String> failed = t.failure();
    if (failed.isPresent()) {
      stepDown("its routing store stopped: " + failed.get(), true);
      refresh();
      return;
    }
    long sent = nanos.getAsLong();
    try {
      if (lease.renew(t.epoch())) {
        renewedAt = sent;
        lastError = null;
      } else {
        stepDown("another server took the routing lease", false);
        refresh();
      }
    } catch (RuntimeException e) {
      lastError = e.getMessage();
      if (nanos.getAsLong() - renewedAt >= leaseNanos) {
        stepDown(
            "it could not renew the routing lease for " + lease() + ": " + e.getMessage(), false);
      }
    }
  }

  private void tryToLead() {
    RouterLease.Row row;
    long sent;
    OptionalLong won = OptionalLong.empty();
    try {
      row = lease.read();
      long now = nanos.getAsLong();
      boolean free;
      if (row == null || row.released() || row.holder().equals(serverId)) {
        free = true;
      } else if (row.rvn().equals(seenVersion)) {
        free = now - seenAt >= leaseNanos;
      } else {
        seenVersion = row.rvn();
        seenAt = now;
        free = false;
      }
      sent = nanos.getAsLong();
      if (free) {
        won = lease.acquire(row, serverId, advertiseUrl.toString());
      }
      if (won.isEmpty()) {
        RouterLease.Row current = free ? lease.read() : row;
        if (current != null) {
          known =
              leaderOf(
                  current,
                  !current.released()
                      && !(current.rvn().equals(seenVersion) && now - seenAt >= leaseNanos));
        }
      }
      lastError = null;
    } catch (RuntimeException e) {
      lastError = e.getMessage();
      return;
    }
    if (won.isPresent()) {
      lead(won.getAsLong(), sent);
    }
  }

  /** Won the lease at {@code epoch}: load the routers, confirm the lease, then serve. */
  private void lead(long epoch, long acquiredAt) {
    renewedAt = acquiredAt;
    DynamoRouterJournal journal = null;
    Router router = null;
    @Nullable FencedWorkspaceRouters<DynamoRouterJournal> routers = null;
    @Nullable Workspaces workspaces = null;
    try {
      journal =
          DynamoRouterJournal.open(store, epoch, DynamoRouterJournal.DEFAULT, this::journalFailed);
      router = routerFactory.apply(journal);
      if (workspaceRouter != null) {
        routers = new FencedWorkspaceRouters<>(journals(epoch), workspaceRouter);
        workspaces =
            new Workspaces(
                router,
                Objects.requireNonNull(defaultWorkspace, "defaultWorkspace"),
                new DynamoWorkspaceStore(store, epoch),
                routers);
      }
      // loading may have taken a while: renew before serving, so the lease is fresh and still ours
      long sent = nanos.getAsLong();
      if (!lease.renew(epoch)) {
        throw new IllegalStateException("another server took the routing lease during the load");
      }
      renewedAt = sent;
    } catch (RuntimeException e) {
      lastError = e.getMessage();
      LOG.log(
          System.Logger.Level.WARNING,
          "could not take over routing at epoch " + epoch + ": " + e.getMessage());
      if (workspaces != null) {
        workspaces.close();
      } else if (routers != null) {
        routers.closeAll();
      }
      if (router != null) {
        router.close();
      }
      if (journal != null) {
        journal.close();
      }
      release(epoch);
      return;
    }
    term = new Term(epoch, journal, router, routers, workspaces);
    known = new Leader(serverId, advertiseUrl, epoch, true);
    LOG.log(
        System.Logger.Level.INFO,
        "this server (" + serverId + ") is the routing leader now, epoch " + epoch);
    onChange.run();
  }

  private void stepDown(String why, boolean release) {
    Term t = term;
    if (t == null) {
      return;
    }
    term = null;
    LOG.log(
        closed ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
        "this server (" + serverId + ") stops routing (epoch " + t.epoch() + "): " + why);
    onChange.run();
    if (t.workspaces() != null) {
      t.workspaces().close();
    }
    t.router().close();
    t.journal().close();
    if (release) {
      release(t.epoch());
    }
  }

  private void release(long epoch) {
    try {
      lease.release(epoch);
    } catch (RuntimeException e) {
      // the lease runs out by itself
    }
  }

  /**
   * The other workspaces' journals at {@code epoch}, each on items whose keys carry the workspace's
   * name; deleting a workspace deletes its items.
   */
  private FencedWorkspaceRouters.Journals<DynamoRouterJournal> journals(long epoch) {
    return new FencedWorkspaceRouters.Journals<>() {
      @Override
      public DynamoRouterJournal open(String workspace) {
        return DynamoRouterJournal.open(
            store, epoch, workspace, DynamoRoutingLeadership.this::journalFailed);
      }

      @Override
      public void drop(String workspace) {
        DynamoRouterJournal.drop(store, epoch, workspace);
      }
    };
  }

  private void journalFailed() {
    if (timer != null) {
      try {
        timer.execute(this::tickSafely);
      } catch (RejectedExecutionException closing) {
        // the leadership is closing; it steps down anyway
      }
    }
  }

  private static Leader leaderOf(RouterLease.Row row, boolean live) {
    return new Leader(row.holder(), URI.create(row.url()), row.epoch(), live);
  }

  // ---- stopping ----------------------------------------------------------------------------

  @Override
  public void close() {
    stopTimer();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stepDown("the server is stopping", true);
    }
    if (owned != null) {
      owned.close();
    }
  }

  @Override
  public void halt() {
    stopTimer();
    synchronized (this) {
      closed = true;
      Term t = term;
      term = null;
      if (t != null) {
        t.journal().abandon();
        FencedWorkspaceRouters<DynamoRouterJournal> routers = t.routers();
        Workspaces workspaces = t.workspaces();
        if (routers != null && workspaces != null) {
          routers.abandon();
          workspaces.close();
        }
        t.router().close();
      }
    }
    if (owned != null) {
      owned.close();
    }
  }

  private void stopTimer() {
    if (timer != null) {
      timer.shutdown();
      try {
        timer.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Configures a {@link DynamoRoutingLeadership}. */
  public static final class Builder {
    private @Nullable DynamoDbClient client;
    private @Nullable String region;
    private @Nullable URI endpoint;
    private StoreTable table = new StoreTable("");
    private boolean ensureTable = true;
    private @Nullable String serverId;
    private @Nullable URI advertiseUrl;
    private Duration lease = Duration.ofSeconds(5);
    private LongSupplier nanos = System::nanoTime;
    private @Nullable Function<RouterJournal, Router> routerFactory;
    private @Nullable WorkspaceSettings defaultWorkspace;
    private @Nullable Function<WorkspaceDefinition, Router.Builder> workspaceRouter;
    private Runnable onChange = () -> {};
    private boolean manualTicks;

    private Builder() {}

    /** Uses the caller's client (kept open on close). */
    public Builder client(DynamoDbClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** Without {@link #client}: the AWS region; default the SDK's. */
    public Builder region(String region) {
      this.region = Objects.requireNonNull(region, "region");
      return this;
    }

    /** Without {@link #client}: DynamoDB's URL (an emulator); default AWS's for the region. */
    public Builder endpoint(URI endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /** The table by its whole name, the queue engine's ({@link StoreTable#named}). */
    public Builder table(String name) {
      this.table = StoreTable.named(name);
      return this;
    }

    /** The table: {@code prefix + "switchboard"} ({@link StoreTable}). */
    public Builder tablePrefix(String prefix) {
      this.table = new StoreTable(prefix);
      return this;
    }

    /** Whether {@link #start} makes the table when missing (default true). */
    public Builder ensureTable(boolean ensure) {
      this.ensureTable = ensure;
      return this;
    }

    /** This server's id in the lease item; unique per process (a restart is another server). */
    public Builder serverId(String id) {
      this.serverId = Objects.requireNonNull(id, "id");
      return this;
    }

    /** Where other servers forward routing calls while this one leads. */
    public Builder advertiseUrl(URI url) {
      this.advertiseUrl = Objects.requireNonNull(url, "url");
      return this;
    }

    /** How long the lease lasts without renewal (default 5 s; 300 ms..5 min). */
    public Builder lease(Duration lease) {
      Objects.requireNonNull(lease, "lease");
      if (lease.compareTo(Duration.ofMillis(300)) < 0
          || lease.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new IllegalArgumentException("lease must be 300ms..5m, got " + lease);
      }
      this.lease = lease;
      return this;
    }

    /** Builds the leader's router on the journal it is given (recovering from it). */
    public Builder router(Function<RouterJournal, Router> factory) {
      this.routerFactory = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /**
     * Runs the routing workspaces too: {@code default} is the {@link #router} built with {@code
     * defaultSettings}; every other workspace's router comes from {@code builder}.
     */
    public Builder workspaces(
        WorkspaceSettings defaultSettings, Function<WorkspaceDefinition, Router.Builder> builder) {
      this.defaultWorkspace = Objects.requireNonNull(defaultSettings, "defaultSettings");
      this.workspaceRouter = Objects.requireNonNull(builder, "builder");
      return this;
    }

    /** Runs on the lease thread whenever this server starts or stops leading. */
    public Builder onChange(Runnable listener) {
      this.onChange = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** No lease thread: the test calls {@link #tick} itself. */
    Builder manualTicks() {
      this.manualTicks = true;
      return this;
    }

    /** The clock the lease is timed by, in nanoseconds (tests advance their own). */
    Builder nanoClock(LongSupplier nanos) {
      this.nanos = Objects.requireNonNull(nanos, "nanos");
      return this;
    }

    public DynamoRoutingLeadership build() {
      return new DynamoRoutingLeadership(this);
    }
  }
}
