package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueOverview;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pages of queues on PostgreSQL are one indexed query each ({@code QueueOps.page}), and the
 * overview is a few queries, not one per queue. The pages must list exactly the queues of the
 * prefix, each once, in Java's order of names (upper case before lower case, {@code -} before
 * digits before {@code _}), whatever the database's collation.
 */
class QueuePagesTest {

  private static final int QUEUES = 2_500;
  private static HikariDataSource ds;
  private static PostgresQueueEngine engine;
  private static final TreeSet<String> NAMES = new TreeSet<>();
  private static final AtomicInteger BORROWED = new AtomicInteger();

  /** The test pool, counting the connections the engine takes from it. */
  private static final DataSource counted =
      (DataSource)
          Proxy.newProxyInstance(
              QueuePagesTest.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                if (method.getName().equals("getConnection")) {
                  BORROWED.incrementAndGet();
                }
                try {
                  return method.invoke(ds, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });

  @BeforeAll
  static void manyQueues() throws Exception {
    ds = TestDatabase.fresh();
    engine =
        PostgresQueueEngine.builder()
            .dataSource(counted)
            .clock(ManualClock.create())
            .notifications(false)
            .build();
    String[] stems = {"orders", "Orders", "ord-ers", "ord_ers", "Z", "a", "orders.x"};
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < QUEUES; i++) {
      String stem = stems[i % stems.length].replace(".x", "");
      String name = stem + "-" + i + (i % 50 == 0 ? "_b" : "") + (i % 10 == 3 ? ".fifo" : "");
      NAMES.add(name);
      rows.add(name);
    }
    // the rows as createQueue writes them, in one statement: 2,500 creations one by one would
    // take the test's time for nothing it checks
    engine.createQueue("template", QueueConfig.defaults());
    NAMES.add("template");
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "insert into sb_queue (name, grouped, config, created_at, receipt_key) select n,"
                    + " n like '%.fifo', (select config from sb_queue where name = 'template'),"
                    + " 0, 1 from unnest(?::text[]) n")) {
      ps.setArray(1, c.createArrayOf("text", rows.toArray()));
      ps.executeUpdate();
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("analyze sb_queue");
    }
  }

  @Test
  void pagesOfEveryPrefixAndSize_listExactlyItsQueues_eachOnce_inJavasOrder() {
    for (String prefix : List.of("", "orders", "Orders", "ord", "ord_", "ord-ers-1", "Z", "zz")) {
      for (int limit : List.of(1, 7, 100, 1000)) {
        if (limit == 1 && prefix.length() < 3) {
          continue; // 2,500 pages of one: the larger pages cover the same walk
        }
        List<String> expected = NAMES.stream().filter(n -> n.startsWith(prefix)).toList();
        List<String> listed = new ArrayList<>();
        String after = "";
        while (true) {
          List<QueueInfo> page = engine.listQueues(prefix, after, limit);
          assertTrue(page.size() <= limit, "a page holds at most its limit");
          page.forEach(q -> listed.add(q.name()));
          if (page.size() < limit) {
            break;
          }
          after = page.get(page.size() - 1).name();
        }
        assertEquals(expected, listed, "prefix '" + prefix + "', limit " + limit);
      }
    }
  }

  @Test
  void aCursorNeedNotBeAQueue_andTheWholeListAgreesWithThePages() {
    // a cursor between names, one before the prefix, one with a NUL (no name has one)
    assertEquals(
        NAMES.stream()
            .filter(n -> n.startsWith("Orders") && n.compareTo("Orders-5") > 0)
            .limit(5)
            .toList(),
        names(engine.listQueues("Orders", "Orders-5", 5)));
    assertEquals(
        NAMES.stream().filter(n -> n.startsWith("a-")).limit(3).toList(),
        names(engine.listQueues("a-", "A", 3)));
    assertEquals(
        NAMES.stream().filter(n -> n.compareTo("a-10") > 0).limit(2).toList(),
        names(engine.listQueues("", "a-10\0z", 2)));
    assertEquals(List.of(), engine.listQueues("a\0", "", 10));
    assertEquals(List.copyOf(NAMES), names(engine.listQueues("")));
    assertEquals(
        NAMES.stream().filter(n -> n.startsWith("ord_")).toList(),
        names(engine.listQueues("ord_")));
  }

  /** The page query can walk the name index: no scan of the table, no sort of it. */
  @Test
  void aPage_walksTheNameIndex() throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("set local enable_seqscan = off");
      s.execute("set local enable_sort = off");
      s.execute("set local enable_bitmapscan = off");
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs =
          s.executeQuery(
              "explain select name from sb_queue where name collate \"C\" > 'orders-1' and name"
                  + " collate \"C\" >= 'orders' and name collate \"C\" < 'ordert' and"
                  + " starts_with(name, 'orders') order by name collate \"C\" limit 100")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      c.rollback();
      assertTrue(plan.toString().contains("sb_queue_name_c"), plan.toString());
      assertTrue(!plan.toString().contains("Sort"), plan.toString());
    }
  }

  @Test
  void theOverview_countsEveryQueue_andNamesTheDeepestAndOldest() {
    ManualClock clock = (ManualClock) engine.clock();
    List<String> busy = List.of("a-5", "Orders-1", "ord_ers-3.fifo");
    try {
      engine.send("a-5", NewMessage.of("one"));
      clock.advanceMillis(10);
      engine.sendBatch("Orders-1", List.of(NewMessage.of("1"), NewMessage.of("2")));
      engine.sendBatch(
          "ord_ers-3.fifo",
          List.of(
              NewMessage.builder("x").groupId("g").deduplicationId("1").build(),
              NewMessage.builder("y").groupId("g").deduplicationId("2").build(),
              NewMessage.builder("z").groupId("h").deduplicationId("3").build()));
      engine.receive(
          "ord_ers-3.fifo",
          ReceiveRequest.builder().maxMessages(1).visibilityTimeout(Duration.ofMinutes(1)).build());

      int before = BORROWED.get();
      QueueOverview two = engine.overview(2);
      assertEquals(1, BORROWED.get() - before, "one transaction, not one per queue");
      assertEquals(NAMES.size(), two.queues());
      assertEquals(5, two.available());
      assertEquals(1, two.inFlight());
      assertEquals(1, two.mostInFlightGrouped());
      assertEquals(List.of("ord_ers-3.fifo", "Orders-1"), two.deepest());
      assertEquals("a-5", two.oldest().get(0));

      QueueOverview five = engine.overview(5);
      assertEquals(NAMES.size(), five.queues());
      assertEquals(List.of("ord_ers-3.fifo", "Orders-1", "a-5"), five.deepest().subList(0, 3));
      assertEquals(5, five.deepest().size(), "empty queues fill the room, each once");
      assertEquals(5, new TreeSet<>(five.deepest()).size());
      assertTrue(five.deepest().stream().allMatch(NAMES::contains));
      assertEquals(3, five.oldest().size(), "empty queues are not among the oldest");
    } finally {
      busy.forEach(engine::purge);
    }
  }

  private static List<String> names(List<QueueInfo> infos) {
    return infos.stream().map(QueueInfo::name).toList();
  }
}
