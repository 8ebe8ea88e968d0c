package io.switchboard.storage.rocksdb;

import io.switchboard.routing.Router;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The routers of the workspaces other than {@code default}, each on a {@link RocksRouterJournal} of
 * its own in {@code <dir>/<workspace>} (workspace names are lower-case words, safe as directory
 * names). A journal stays open while its workspace exists (a settings change rebuilds the router on
 * it); deleting the workspace closes it and deletes its directory.
 */
public final class RocksWorkspaceRouters implements WorkspaceRouters {

  private final Path dir;
  private final Durability durability;
  private final Function<WorkspaceDefinition, Router.Builder> builder;
  private final Map<String, RocksRouterJournal> journals = new HashMap<>();

  /**
   * @param builder a router builder with the server's settings and clock for a workspace; the
   *     journal is set here
   */
  public RocksWorkspaceRouters(
      Path dir, Durability durability, Function<WorkspaceDefinition, Router.Builder> builder) {
    this.dir = dir;
    this.durability = durability;
    this.builder = builder;
  }

  @Override
  public synchronized Router open(WorkspaceDefinition workspace) {
    RocksRouterJournal journal =
        journals.computeIfAbsent(
            workspace.name(), n -> RocksRouterJournal.open(dir.resolve(n), durability));
    return builder.apply(workspace).journal(journal).taskQueues(workspace.queues()).build();
  }

  @Override
  public synchronized void drop(String name) {
    RocksRouterJournal journal = journals.remove(name);
    if (journal != null) {
      journal.close();
    }
    Path d = dir.resolve(name);
    if (!Files.exists(d)) {
      return;
    }
    try (Stream<Path> all = Files.walk(d)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete workspace directory " + d, e);
    }
  }

  @Override
  public synchronized void close() {
    journals.values().forEach(RocksRouterJournal::close);
    journals.clear();
  }
}
