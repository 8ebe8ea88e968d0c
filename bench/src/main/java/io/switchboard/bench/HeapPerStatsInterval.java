package io.switchboard.bench;

import io.switchboard.routing.NewAgent;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.RouterSnapshot;
import io.switchboard.time.ManualClock;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Heap the router's lasting statistics retain per agent per closed interval: {@code agents} agents
 * change activity in each of {@code intervals} 15-minute intervals (so each agent has figures in
 * every interval, as a logged-in agent does), on a manual clock; used heap after full collections,
 * before and after, divided by agents × intervals. Two routers: one with a journal (that discards
 * what it is given, so only the router's own heap is measured: closed intervals leave memory when
 * they close), and one without a journal (which keeps its closed intervals in memory, the only
 * place they are: what every router did before closed intervals were read from the store).
 *
 * <pre>
 * java -XX:+UseParallelGC -Xms2g -Xmx2g -cp bench/target/benchmarks.jar \
 *     io.switchboard.bench.HeapPerStatsInterval [agents] [intervals]
 * </pre>
 */
public final class HeapPerStatsInterval {

  private HeapPerStatsInterval() {}

  /** A journal that drops every batch: the router's heap alone. */
  private static final class DiscardingJournal implements RouterJournal {
    @Override
    public RouterSnapshot load() {
      return RouterSnapshot.empty();
    }

    @Override
    public void append(List<RouterEntry> entries) {}

    @Override
    public Ticket appendDurable(List<RouterEntry> entries) {
      return DONE;
    }

    @Override
    public void close() {}
  }

  /** Bytes of heap retained per agent per interval, with or without a journal. */
  static double bytesPerAgentInterval(boolean journal, int agents, int intervals) {
    ManualClock clock = ManualClock.at(Instant.parse("2030-01-01T00:00:00Z"));
    Router.Builder b = Router.builder().clock(clock).statsRetention(Duration.ofDays(35));
    if (journal) {
      b.journal(new DiscardingJournal());
    }
    try (Router router = b.build()) {
      for (int i = 0; i < agents; i++) {
        router.createAgent(
            NewAgent.builder("agent-" + i)
                .capacity("voice", 1)
                .presence(Presence.available())
                .build());
      }
      // one interval first, so that what every agent costs anyway (records, cumulative figures,
      // the open interval) is in the baseline
      step(router, clock, agents, 0);
      long before = usedAfterGc();
      for (int q = 1; q <= intervals; q++) {
        step(router, clock, agents, q);
      }
      long after = usedAfterGc();
      // the figures are there (without a journal: the query sees every interval of the day; with
      // one, they went to the journal, which drops them)
      int seen =
          router
              .statistics(
                  StatisticsQuery.between(
                          clock.instant().minus(Duration.ofDays(1)), clock.instant())
                      .forAgent("agent-0"))
              .intervals()
              .size();
      if (!journal && seen < Math.min(intervals, 96)) {
        throw new IllegalStateException("the statistics lost intervals: " + seen);
      }
      return (double) (after - before) / ((long) agents * intervals);
    }
  }

  private static void step(Router router, ManualClock clock, int agents, int q) {
    for (int i = 0; i < agents; i++) {
      router.presence("agent-" + i, q % 2 == 0 ? Presence.away("break") : Presence.available());
    }
    clock.advance(Duration.ofMinutes(15));
  }

  private static long usedAfterGc() {
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return mem.getHeapMemoryUsage().getUsed();
  }

  public static void main(String[] args) {
    int agents = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    int intervals = args.length > 1 ? Integer.parseInt(args[1]) : 96;
    double without = bytesPerAgentInterval(false, agents, intervals);
    double with = bytesPerAgentInterval(true, agents, intervals);
    System.out.printf(
        Locale.ROOT,
        "agents %d, intervals %d%nno journal (closed intervals in memory): %.1f B per agent per"
            + " interval%njournal (closed intervals in the store):     %.1f B per agent per"
            + " interval%n",
        agents,
        intervals,
        without,
        with);
  }
}
