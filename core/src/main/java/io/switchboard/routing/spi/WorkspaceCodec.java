package io.switchboard.routing.spi;

import io.switchboard.internal.Bytes.Reader;
import io.switchboard.internal.Bytes.Writer;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The binary form of a {@link WorkspaceDefinition}, shared by the stores (RocksDB value, PostgreSQL
 * {@code bytea}). It starts with its own version byte ({@value #VERSION}); a reader refuses a
 * version it does not know. Strategies are stored by {@link Strategy#text()}, durations in
 * milliseconds, absent values as -1 or a null string.
 */
public final class WorkspaceCodec {

  /** The layout's version, the first byte. */
  public static final int VERSION = 1;

  private WorkspaceCodec() {}

  public static byte[] encode(WorkspaceDefinition d) {
    WorkspaceSettings s = d.settings();
    Writer w =
        new Writer(256)
            .b(VERSION)
            .s(d.name())
            .s(s.strategy().text())
            .l(s.offerTimeout().toMillis())
            .l(s.serviceLevelThreshold().toMillis())
            .s(s.defaultActivity())
            .i(s.wrapUp().size());
    s.wrapUp().forEach((channel, t) -> w.s(channel).l(t.toMillis()));
    w.i(d.activities().size());
    for (Activity a : d.activities()) {
      w.s(a.name()).b(a.available() ? 1 : 0);
    }
    w.i(d.queues().size());
    for (TaskQueue q : d.queues()) {
      w.s(q.name())
          .s(q.workerExpression().orElse(null))
          .b(q.order().ordinal())
          .s(q.strategy().map(Strategy::text).orElse(null))
          .i(q.maxReservationsPerAgent().orElse(-1))
          .l(q.serviceLevelThreshold().map(Duration::toMillis).orElse(-1L));
    }
    return w.toArray();
  }

  /**
   * The definition {@link #encode} wrote.
   *
   * @throws IllegalStateException for a version this build does not read
   */
  public static WorkspaceDefinition decode(byte[] value) {
    Reader r = new Reader(value);
    int version = r.b();
    if (version != VERSION) {
      throw new IllegalStateException(
          "a stored workspace has format " + version + "; this build reads " + VERSION + " only");
    }
    String name = r.text();
    Strategy strategy = Strategy.parse("strategy", r.text());
    Duration offer = Duration.ofMillis(r.l());
    Duration level = Duration.ofMillis(r.l());
    String defaultActivity = r.text();
    int n = r.i();
    Map<String, Duration> wrapUp = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      wrapUp.put(r.s(), Duration.ofMillis(r.l()));
    }
    n = r.i();
    List<Activity> activities = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      activities.add(new Activity(r.text(), r.b() == 1));
    }
    n = r.i();
    List<TaskQueue> queues = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String queue = r.text();
      Optional<String> expression = Optional.ofNullable(r.s());
      TaskQueue.Order order = TaskQueue.Order.values()[r.b()];
      Optional<Strategy> queueStrategy =
          Optional.ofNullable(r.s()).map(t -> Strategy.parse("strategy", t));
      int max = r.i();
      long threshold = r.l();
      queues.add(
          new TaskQueue(
              queue,
              expression,
              order,
              queueStrategy,
              max < 0 ? Optional.empty() : Optional.of(max),
              threshold < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(threshold))));
    }
    return new WorkspaceDefinition(
        name,
        new WorkspaceSettings(strategy, offer, wrapUp, level, defaultActivity),
        activities,
        queues);
  }
}
