package io.switchboard.routing.spi;

import io.switchboard.internal.Bytes.Reader;
import io.switchboard.internal.Bytes.Writer;
import io.switchboard.routing.Activity;
import io.switchboard.routing.AssignmentCallback;
import io.switchboard.routing.CallbackSecret;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The binary form of a {@link WorkspaceDefinition}, shared by the stores (RocksDB value, PostgreSQL
 * {@code bytea}). It starts with its own version byte ({@value #VERSION}); a reader refuses a
 * version it does not know. Strategies are stored by {@link Strategy#text()}, durations in
 * milliseconds, absent values as -1 or a null string. The workflows come after the queues and were
 * added since: a definition stored without them reads with none. After them, added later still,
 * each workflow's assignment callback (URL, or a null string for none, and the attempt timeout) in
 * the workflows' order, then the callback secret (a null string for none); a definition stored
 * without them reads with none, and a build from before them reads a definition with them, ignoring
 * them. Last, added later again, the settings a workspace has of its own since refusals are heard:
 * miss limit (-1: the server's), auto-accept channels (-1: the server's; else a count and the
 * channels), statistics window (-1: the server's), rest period, reject activity and timeout
 * activity (null strings for none); a definition stored without them reads with the defaults.
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
    w.i(d.workflows().size());
    for (Workflow f : d.workflows()) {
      w.s(f.name())
          .s(f.preferredAgent().map(Workflow.PreferredAgent::attribute).orElse(null))
          .l(f.preferredAgent().map(p -> p.timeout().toMillis()).orElse(-1L))
          .i(f.filters().size());
      for (WorkflowFilter filter : f.filters()) {
        w.s(filter.name()).s(filter.expression());
        targets(w, filter.targets());
      }
      targets(w, f.defaultTargets());
    }
    w.i(d.workflows().size());
    for (Workflow f : d.workflows()) {
      w.s(f.assignmentCallback().map(AssignmentCallback::url).orElse(null))
          .l(f.assignmentCallback().map(c -> c.timeout().toMillis()).orElse(-1L));
    }
    w.s(d.callbackSecret().map(CallbackSecret::value).orElse(null));
    w.i(s.missLimit().orElse(-1));
    if (s.autoAccept().isPresent()) {
      List<String> channels = new ArrayList<>(s.autoAccept().get());
      channels.sort(null);
      w.i(channels.size());
      channels.forEach(w::s);
    } else {
      w.i(-1);
    }
    w.l(s.statsWindow().map(Duration::toMillis).orElse(-1L))
        .l(s.restPeriod().toMillis())
        .s(s.rejectActivity().orElse(null))
        .s(s.timeoutActivity().orElse(null));
    return w.toArray();
  }

  private static void targets(Writer w, List<WorkflowTarget> targets) {
    w.i(targets.size());
    for (WorkflowTarget t : targets) {
      w.s(t.queue())
          .s(t.expression().orElse(null))
          .i(t.priority().orElse(Integer.MIN_VALUE))
          .l(t.timeout().map(Duration::toMillis).orElse(-1L))
          .b(t.skipIfNoneAvailable() ? 1 : 0);
    }
  }

  private static List<WorkflowTarget> targets(Reader r) {
    int n = r.i();
    List<WorkflowTarget> targets = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String queue = r.text();
      Optional<String> expression = Optional.ofNullable(r.s());
      int priority = r.i();
      long timeout = r.l();
      boolean skip = r.b() == 1;
      targets.add(
          new WorkflowTarget(
              queue,
              expression,
              priority == Integer.MIN_VALUE ? Optional.empty() : Optional.of(priority),
              timeout < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(timeout)),
              skip));
    }
    return targets;
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
    List<Workflow> workflows = new ArrayList<>();
    if (!r.done()) {
      n = r.i();
      for (int i = 0; i < n; i++) {
        String workflow = r.text();
        String preferred = r.s();
        long preferredTimeout = r.l();
        int filters = r.i();
        List<WorkflowFilter> list = new ArrayList<>(filters);
        for (int j = 0; j < filters; j++) {
          list.add(new WorkflowFilter(r.text(), r.text(), targets(r)));
        }
        workflows.add(
            new Workflow(
                workflow,
                list,
                targets(r),
                preferred == null
                    ? Optional.empty()
                    : Optional.of(
                        new Workflow.PreferredAgent(
                            preferred, Duration.ofMillis(preferredTimeout)))));
      }
    }
    Optional<CallbackSecret> secret = Optional.empty();
    if (!r.done()) {
      n = r.i();
      for (int i = 0; i < n; i++) {
        String url = r.s();
        long timeout = r.l();
        if (url != null) {
          workflows.set(
              i,
              workflows
                  .get(i)
                  .withAssignmentCallback(
                      Optional.of(new AssignmentCallback(url, Duration.ofMillis(timeout)))));
        }
      }
      secret = Optional.ofNullable(r.s()).map(CallbackSecret::new);
    }
    WorkspaceSettings settings =
        new WorkspaceSettings(strategy, offer, wrapUp, level, defaultActivity);
    if (!r.done()) {
      int miss = r.i();
      int channels = r.i();
      Optional<Set<String>> autoAccept = Optional.empty();
      if (channels >= 0) {
        Set<String> set = new LinkedHashSet<>();
        for (int i = 0; i < channels; i++) {
          set.add(r.text());
        }
        autoAccept = Optional.of(set);
      }
      long window = r.l();
      long rest = r.l();
      settings =
          settings
              .withMissLimit(miss < 0 ? Optional.empty() : Optional.of(miss))
              .withAutoAccept(autoAccept)
              .withStatsWindow(
                  window < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(window)))
              .withRestPeriod(Duration.ofMillis(rest))
              .withRejectActivity(Optional.ofNullable(r.s()))
              .withTimeoutActivity(Optional.ofNullable(r.s()));
    }
    return new WorkspaceDefinition(name, settings, activities, queues, workflows, secret);
  }
}
