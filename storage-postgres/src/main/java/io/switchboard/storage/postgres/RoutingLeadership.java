package io.switchboard.storage.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * One routing leader among the servers that share a PostgreSQL database, elected through a lease
 * row ({@code sb_router_leader}); the leader runs the router on a {@link PostgresRouterJournal},
 * the others forward routing calls to it.
 *
 * <p><b>The lease.</b> Every server tries to take the lease every third of its length; it succeeds
 * when the lease ran out or was released (decided by the database's clock), and taking it raises
 * the epoch. The leader renews it at the same pace. On winning, a server opens the journal at the
 * new epoch and builds its router from what is stored (timers rebuilt from state, as on a restart),
 * then serves. Graceful {@link #close} releases the lease, so another server takes over at its next
 * try instead of waiting for the lease to run out.
 *
 * <p><b>Why two servers never both route.</b> A leader that cannot renew stops serving by its own
 * clock once a lease length has passed since it sent its last successful renewal: the database set
 * that renewal's expiry later, from a later clock reading, so the leader stops before anyone can
 * take over. That covers a leader cut off from the database; a leader that is paused (GC, a stopped
 * VM) and wakes up after a takeover is stopped by fencing instead: the journal checks the epoch
 * inside every write transaction, so its first write fails, its router stops (UNAVAILABLE), and it
 * steps down at its next tick. A router whose store failed for any reason steps down too, and its
 * server may take the lease again at a new epoch, reloading what was stored.
 *
 * <p><b>Workspaces.</b> With {@link Builder#workspaces}, the leader also runs every routing
 * workspace: on winning it opens the router of each workspace defined in {@code sb_workspace}, each
 * on a journal of its own ({@link FencedWorkspaceRouters}), and closes them all when it steps down.
 * One lease covers them all: every workspace's writes, and the definitions' too, are fenced by the
 * same epoch, so a takeover moves every workspace at once.
 */
public final class RoutingLeadership implements RoutingLeader {

  private static final System.Logger LOG = System.getLogger(RoutingLeadership.class.getName());

  /**
   * The routers of one epoch of leadership: {@code default}'s, and the other workspaces' (null
   * without {@link Builder#workspaces}).
   */
  private record Term(
      long epoch,
      PostgresRouterJournal journal,
      Router router,
      @Nullable FencedWorkspaceRouters<PostgresRouterJournal> routers,
      @Nullable Workspaces workspaces) {

    Optional<String> failure() {
      Optional<String> f = journal.failure();
      return f.isPresent() || routers == null ? f : routers.failure();
    }
  }

  private final DataSource ds;
  private final @Nullable HikariDataSource owned;
  private final Sql sql;
  private final String serverId;
  private final URI advertiseUrl;
  private final long leaseMillis;
  private final long leaseNanos;
  private final Function<RouterJournal, Router> routerFactory;
  private final @Nullable WorkspaceSettings defaultWorkspace;
  private final @Nullable Function<WorkspaceDefinition, Router.Builder> workspaceRouter;
  private final Runnable onChange;
  private final @Nullable ScheduledExecutorService timer;
  private volatile @Nullable Term term;
  private volatile long renewedAt;
  private volatile @Nullable Leader known;
  private volatile @Nullable String lastError;
  private boolean closed;

  private RoutingLeadership(Builder b) {
    this.serverId = Objects.requireNonNull(b.serverId, "serverId");
    this.advertiseUrl = Objects.requireNonNull(b.advertiseUrl, "advertiseUrl");
    this.routerFactory = Objects.requireNonNull(b.routerFactory, "router");
    this.defaultWorkspace = b.defaultWorkspace;
    this.workspaceRouter = b.workspaceRouter;
    this.leaseMillis = b.lease.toMillis();
    this.leaseNanos = b.lease.toNanos();
    this.onChange = b.onChange;
    if (b.dataSource != null) {
      this.ds = b.dataSource;
      this.owned = null;
    } else {
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(Objects.requireNonNull(b.url, "url"));
      hc.setUsername(b.user);
      hc.setPassword(b.password);
      hc.setMaximumPoolSize(4);
      hc.setConnectionTimeout(Math.clamp(leaseMillis / 3, 250, 5_000));
      hc.setInitializationFailTimeout(-1);
      hc.setPoolName("switchboard-pg-routing");
      // a statement that hangs (a network black hole) must not hold the lease loop for ever
      hc.addDataSourceProperty("socketTimeout", Math.max(10, 2 * leaseMillis / 1000));
      this.owned = new HikariDataSource(hc);
      this.ds = owned;
    }
    this.sql = new Sql(ds);
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
   * Creates the schema if needed, makes a first attempt at the lease (a server alone takes it at
   * once), then keeps trying or renewing every third of the lease.
   *
   * @throws io.switchboard.queue.QueueException UNAVAILABLE when the database cannot be reached
   */
  @Override
  public RoutingLeadership start() {
    try {
      Schema.migrate(ds);
    } catch (RuntimeException e) {
      if (owned != null) {
        owned.close();
      }
      throw e;
    }
    tick();
    if (timer != null) {
      long every = Math.max(1, leaseMillis / 3);
      timer.scheduleWithFixedDelay(this::tickSafely, every, every, TimeUnit.MILLISECONDS);
    }
    return this;
  }

  /** This server's id, as the lease row and the {@code X-Switchboard-Routed-By} header show it. */
  @Override
  public String serverId() {
    return serverId;
  }

  @Override
  public Duration lease() {
    return Duration.ofMillis(leaseMillis);
  }

  /**
   * The router, while this server is the leader and its lease is fresh by its own clock; empty on a
   * follower. A caller that gets it may still see its calls fail with UNAVAILABLE if the lease
   * passes on meanwhile.
   */
  @Override
  public Optional<Router> router() {
    Term t = term;
    if (t == null || System.nanoTime() - renewedAt >= leaseNanos) {
      return Optional.empty();
    }
    return Optional.of(t.router());
  }

  /**
   * The routing workspaces, {@code default} over {@link #router()}, while this server is the leader
   * and its lease is fresh by its own clock; empty on a follower, and without {@link
   * Builder#workspaces}.
   */
  @Override
  public Optional<Workspaces> workspaces() {
    Term t = term;
    if (t == null || t.workspaces() == null || System.nanoTime() - renewedAt >= leaseNanos) {
      return Optional.empty();
    }
    return Optional.of(t.workspaces());
  }

  @Override
  public boolean leading() {
    return router().isPresent();
  }

  /** The leader as last seen (this server, or another), if any server ever held the lease. */
  @Override
  public Optional<Leader> leader() {
    return Optional.ofNullable(known);
  }

  /** Why the last attempt to reach the lease failed, if it did. */
  @Override
  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  /** Reads the lease now (for a caller that found the known leader unreachable). */
  @Override
  public Optional<Leader> refresh() {
    try {
      known = leaderOf(sql.tx("reading the routing lease", RouterLease::read));
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
    long sent = System.nanoTime();
    try {
      if (sql.tx("renewing the routing lease", c -> RouterLease.renew(c, t.epoch(), leaseMillis))) {
        renewedAt = sent;
        lastError = null;
      } else {
        stepDown("another server took the routing lease", false);
        refresh();
      }
    } catch (RuntimeException e) {
      lastError = e.getMessage();
      if (System.nanoTime() - renewedAt >= leaseNanos) {
        stepDown(
            "it could not renew the routing lease for " + lease() + ": " + e.getMessage(), false);
      }
    }
  }

  private void tryToLead() {
    long sent = System.nanoTime();
    OptionalLong won;
    try {
      won =
          sql.tx(
              "taking the routing lease",
              c -> {
                OptionalLong epoch =
                    RouterLease.acquire(c, serverId, advertiseUrl.toString(), leaseMillis);
                if (epoch.isEmpty()) {
                  known = leaderOf(RouterLease.read(c));
                }
                return epoch;
              });
      lastError = null;
    } catch (RuntimeException e) {
      lastError = e.getMessage();
      return;
    }
    if (won.isPresent()) {
      lead(won.getAsLong(), sent);
    }
  }

  /** Won the lease at {@code epoch}: load the router, confirm the lease, then serve. */
  private void lead(long epoch, long acquiredAt) {
    renewedAt = acquiredAt;
    PostgresRouterJournal journal = null;
    Router router = null;
    @Nullable FencedWorkspaceRouters<PostgresRouterJournal> routers = null;
    @Nullable Workspaces workspaces = null;
    try {
      journal =
          PostgresRouterJournal.open(ds, epoch, PostgresRouterJournal.DEFAULT, this::journalFailed);
      router = routerFactory.apply(journal);
      if (workspaceRouter != null) {
        routers = new FencedWorkspaceRouters<>(journals(epoch), workspaceRouter);
        workspaces =
            new Workspaces(
                router,
                // set together with workspaceRouter, by Builder.workspaces
                Objects.requireNonNull(defaultWorkspace, "defaultWorkspace"),
                PostgresWorkspaceStore.fenced(ds, epoch),
                routers);
      }
      // loading may have taken a while: renew before serving, so the lease is fresh and still ours
      long sent = System.nanoTime();
      long e = epoch;
      if (!sql.tx("renewing the routing lease", c -> RouterLease.renew(c, e, leaseMillis))) {
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
        routers.closeAll(); // the registry failed while loading: what it opened is closed here
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

  /**
   * Stops routing: the router is closed (calls in progress fail with UNAVAILABLE), the journal
   * writes what it still can under this epoch, and with {@code release} the lease is given up.
   */
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
      t.workspaces().close(); // the other workspaces' routers, then their journals
    }
    t.router().close();
    t.journal().close();
    if (release) {
      release(t.epoch());
    }
  }

  private void release(long epoch) {
    try {
      sql.act("releasing the routing lease", c -> RouterLease.release(c, epoch));
    } catch (RuntimeException e) {
      // the lease runs out by itself
    }
  }

  /**
   * The other workspaces' journals at {@code epoch}, over the shared router tables (their rows
   * keyed by the workspace's name); deleting a workspace deletes its rows.
   */
  private FencedWorkspaceRouters.Journals<PostgresRouterJournal> journals(long epoch) {
    return new FencedWorkspaceRouters.Journals<>() {
      @Override
      public PostgresRouterJournal open(String workspace) {
        return PostgresRouterJournal.open(
            ds, epoch, workspace, RoutingLeadership.this::journalFailed);
      }

      @Override
      public void drop(String workspace) {
        PostgresRouterJournal.drop(ds, epoch, workspace);
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

  private static @Nullable Leader leaderOf(RouterLease.Row row) {
    if (row.holder() == null) {
      return null;
    }
    String url = row.url();
    if (url == null) {
      throw new IllegalStateException(
          "the routing lease row (sb_router_leader) names holder '"
              + row.holder()
              + "' but no url: the row is damaged");
    }
    return new Leader(row.holder(), URI.create(url), row.epoch(), row.live());
  }

  // ---- stopping ----------------------------------------------------------------------------

  /** Steps down gracefully: closes the router, writes what is left, releases the lease. */
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

  /**
   * Stops as a process that dies would: no more renewals, the router gone, nothing queued written,
   * the lease left to run out. For tests of failover.
   */
  @Override
  public void halt() {
    stopTimer();
    synchronized (this) {
      closed = true;
      Term t = term;
      term = null;
      if (t != null) {
        t.journal().abandon();
        FencedWorkspaceRouters<PostgresRouterJournal> routers = t.routers();
        Workspaces workspaces = t.workspaces();
        if (routers != null && workspaces != null) { // made together, in lead()
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

  /** Configures a {@link RoutingLeadership}. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable String url;
    private @Nullable String user;
    private @Nullable String password;
    private @Nullable String serverId;
    private @Nullable URI advertiseUrl;
    private Duration lease = Duration.ofSeconds(5);
    private @Nullable Function<RouterJournal, Router> routerFactory;
    private @Nullable WorkspaceSettings defaultWorkspace;
    private @Nullable Function<WorkspaceDefinition, Router.Builder> workspaceRouter;
    private Runnable onChange = () -> {};
    private boolean manualTicks;

    private Builder() {}

    /** Connects with a pool of its own (4 connections). */
    public Builder url(String jdbcUrl, @Nullable String user, @Nullable String password) {
      this.url = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      this.user = user;
      this.password = password;
      return this;
    }

    /** Uses the caller's pool (tests). */
    public Builder dataSource(DataSource ds) {
      this.dataSource = Objects.requireNonNull(ds, "ds");
      return this;
    }

    /** This server's id in the lease row; unique per process (a restart is another server). */
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
     * Runs the routing workspaces too ({@link RoutingLeadership#workspaces}): {@code default} is
     * the {@link #router} built with {@code defaultSettings}; every other workspace's router comes
     * from {@code builder} (its journal is set here).
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

    public RoutingLeadership build() {
      return new RoutingLeadership(this);
    }
  }
}
