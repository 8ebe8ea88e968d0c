package io.switchboard.routing.spi;

import io.switchboard.routing.Router;
import io.switchboard.routing.Workspaces;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * One server's part in electing the routing leader among the servers that share a store: the leader
 * runs the routers (on journals whose every write is fenced by its lease's epoch), the others
 * forward routing calls to it. A shared store implements it over its own lease (PostgreSQL's {@code
 * RoutingLeadership}, DynamoDB's {@code DynamoRoutingLeadership}); the server's cluster mode uses
 * only this interface, whichever store it runs on.
 */
public interface RoutingLeader extends AutoCloseable {

  /**
   * A server that holds or held the lease.
   *
   * @param id the server's id ({@link #serverId()})
   * @param url where the server takes routing calls
   * @param epoch the lease epoch it holds or held
   * @param live the lease had not run out when last read
   */
  record Leader(String id, URI url, long epoch, boolean live) {}

  /**
   * Makes a first attempt at the lease (a server alone takes it at once), then keeps trying or
   * renewing in the background.
   *
   * @throws io.switchboard.queue.QueueException UNAVAILABLE when the store cannot be reached
   */
  RoutingLeader start();

  /** This server's id, as the lease and the {@code X-Switchboard-Routed-By} header show it. */
  String serverId();

  /** How long the lease lasts without renewal. */
  Duration lease();

  /**
   * The router of workspace {@code default}, while this server leads and its lease is fresh by its
   * own clock; empty on a follower.
   */
  Optional<Router> router();

  /** Every routing workspace, while this server leads; empty on a follower. */
  Optional<Workspaces> workspaces();

  /** Whether this server leads now ({@link #router()} is present). */
  default boolean leading() {
    return router().isPresent();
  }

  /** The leader as last seen (this server, or another), if any server ever held the lease. */
  Optional<Leader> leader();

  /** Why the last attempt to reach the lease failed, if it did. */
  Optional<String> lastError();

  /** Reads the lease now (for a caller that found the known leader unreachable). */
  Optional<Leader> refresh();

  /** Steps down gracefully: closes the routers, writes what is left, releases the lease. */
  @Override
  void close();

  /**
   * Stops as a process that dies would: no more renewals, nothing queued written, the lease left to
   * run out. For tests of failover.
   */
  void halt();
}
