package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The web console's own cost, for {@code docs/benchmarks.md}: the server's CPU per minute with a
 * wallboard open on 1,000 agents and 10,000 waiting contacts, idle and under a stream of routing
 * events, against the same without it; and the wallboard's load time in the headless browser. A
 * measurement, not a test: it asserts nothing about the figures and runs only with {@code
 * -Dswitchboard.consoleFigures=true} (it takes about three minutes).
 */
class ConsoleCostTest {

  private static final int AGENTS = 1_000;
  private static final int CONTACTS = 10_000;
  private static final int GROUPS = 10;
  private static final Duration WINDOW = Duration.ofSeconds(30);
  private static final int EVENTS_PER_SECOND = 10;

  @Test
  void wallboardCost() throws Exception {
    Assumptions.assumeTrue(
        Boolean.getBoolean("switchboard.consoleFigures"),
        "a measurement: run with -Dswitchboard.consoleFigures=true");
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      for (int i = 0; i < AGENTS; i++) {
        http.post(
            "/v1/routing/agents",
            "{\"id\":\"a"
                + i
                + "\",\"attributes\":{\"skills\":[\"s"
                + (i % GROUPS)
                + "\"]},\"capacity\":{\"voice\":1},\"presence\":\"away\"}");
      }
      for (int i = 0; i < CONTACTS; i++) {
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\"c"
                + i
                + "\",\"channel\":\"voice\",\"requirements\":\"skills HAS 's"
                + (i % GROUPS)
                + "'\",\"priority\":"
                + (i % 5)
                + "}");
      }
      ConsoleBrowser browser = ConsoleBrowser.open(server.uri());
      try {
        double idleWithout = cpuSecondsPerMinute(() -> {});
        double eventsWithout = withEvents(http, () -> cpuSecondsPerMinute(() -> {}));
        long t0 = System.nanoTime();
        browser.go("#/wallboard");
        // any agent: the windows before turned some offline, which sorts them past the first 100
        browser.shown(By.cssSelector("#agent-rows tr"));
        browser.shown(By.cssSelector("#contact-rows tr"));
        long firstDrawMillis = (System.nanoTime() - t0) / 1_000_000;
        Object load =
            browser.script(
                "const n = performance.getEntriesByType('navigation')[0];"
                    + " return Math.round(n.loadEventEnd - n.startTime);");
        // Where the first draw's time went: each API call's start and duration in the page.
        Object calls =
            browser.script(
                "return performance.getEntriesByType('resource')"
                    + ".filter(e => e.name.includes('/v1/') || e.name.includes('/console/'))"
                    + ".map(e => e.name.replace(location.origin, '') + ' at ' + Math.round(e.startTime)"
                    + " + ' ms took ' + Math.round(e.duration) + ' ms').join('\\n');");
        System.out.println("first draw, the page's requests:\n" + calls);
        Object draws =
            browser.script(
                "return performance.getEntriesByType('measure').slice(0, 6)"
                    + ".map(e => e.name + ' at ' + Math.round(e.startTime) + ' ms took '"
                    + " + Math.round(e.duration) + ' ms').join('\\n');");
        System.out.println("the first draws, calls and rows:\n" + draws);
        double idleWith = cpuSecondsPerMinute(() -> {});
        double eventsWith = withEvents(http, () -> cpuSecondsPerMinute(() -> {}));
        browser.assertNoJavaScriptErrors();
        System.out.printf(
            Locale.ROOT,
            "%n| wallboard, %d agents, %d waiting | server CPU s/min without | with the wallboard"
                + " open | the console's share |%n|---|---|---|---|%n"
                + "| idle (no event) | %.2f | %.2f | %.2f |%n"
                + "| %d presence changes/s | %.2f | %.2f | %.2f |%n"
                + "page load (navigation to load event): %s ms; to the first draw of agents and"
                + " contacts: %d ms; cpus %d, load %.1f%n",
            AGENTS,
            CONTACTS,
            idleWithout,
            idleWith,
            idleWith - idleWithout,
            EVENTS_PER_SECOND,
            eventsWithout,
            eventsWith,
            eventsWith - eventsWithout,
            load,
            firstDrawMillis,
            Runtime.getRuntime().availableProcessors(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        assertTrue(firstDrawMillis > 0);
      } finally {
        browser.close();
      }
    }
  }

  /** The server process's CPU seconds per minute over {@link #WINDOW}. */
  private static double cpuSecondsPerMinute(Runnable during) throws InterruptedException {
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long before = os.getProcessCpuTime();
    during.run();
    Thread.sleep(WINDOW.toMillis());
    long used = os.getProcessCpuTime() - before;
    return used / 1e9 * (60.0 / WINDOW.toSeconds());
  }

  private interface Measure {
    double run() throws Exception;
  }

  /**
   * The presence changes made so far, over every window: each window goes on where the last one
   * stopped, so that every change is one (a window starting again at agent 0 set agents offline
   * that the window before had already set offline: no event, and a cheaper window).
   */
  private static final AtomicLong CHANGES = new AtomicLong();

  /**
   * Runs {@code measure} while agents change presence {@link #EVENTS_PER_SECOND} times a second.
   */
  private static double withEvents(Http http, Measure measure) throws Exception {
    ScheduledExecutorService events = Executors.newSingleThreadScheduledExecutor();
    AtomicLong n = CHANGES;
    events.scheduleAtFixedRate(
        () -> {
          long i = n.getAndIncrement();
          String presence = (i / AGENTS) % 2 == 0 ? "offline" : "away";
          http.send(
              "PUT",
              "/v1/routing/agents/a" + (i % AGENTS) + "/presence",
              "{\"presence\":\"" + presence + "\"}");
        },
        0,
        1_000_000 / EVENTS_PER_SECOND,
        TimeUnit.MICROSECONDS);
    try {
      return measure.run();
    } finally {
      events.shutdownNow();
      events.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
