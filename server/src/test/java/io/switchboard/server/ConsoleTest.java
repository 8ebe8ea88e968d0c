package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console on a keyless server, in a real headless Chromium ({@code docs/console.md}): the
 * queues, a queue, the dead letters and the wallboard, each asserting what the page shows, with no
 * JavaScript error; the screenshots of {@code docs/console/} are taken here.
 */
class ConsoleTest {

  private static SwitchboardServer server;
  private static Http http;
  private static ConsoleBrowser browser;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
    browser = ConsoleBrowser.open(server.uri());
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    http.close();
    server.stop();
  }

  private static JsonNode ok(Http.Answer a) {
    assertTrue(a.status() < 300, a.toString());
    return a.text().isEmpty() ? null : a.json();
  }

  private static By row(String queue, String field) {
    return By.cssSelector("tr[data-queue='" + queue + "'] td[data-field='" + field + "']");
  }

  @Test
  void assets_areServedWithTheirTypes_aStrictPolicy_andRevalidated() {
    Http.Answer page = http.get("/console");
    assertEquals(200, page.status());
    assertEquals(
        "text/html; charset=utf-8", page.raw().headers().firstValue("Content-Type").orElse(""));
    String csp = page.raw().headers().firstValue("Content-Security-Policy").orElse("");
    assertTrue(csp.contains("script-src 'self'") && csp.contains("default-src 'none'"), csp);
    assertFalse(csp.contains("unsafe-inline"), csp);
    assertEquals("nosniff", page.raw().headers().firstValue("X-Content-Type-Options").orElse(""));
    assertFalse(page.text().matches("(?s).*<script(?![^>]*\\bsrc=)[^>]*>.*"), "no inline script");
    assertFalse(page.text().contains("style="), "no inline style");
    Http.Answer js = http.get("/console/app.js");
    assertEquals(
        "text/javascript; charset=utf-8", js.raw().headers().firstValue("Content-Type").orElse(""));
    String etag = js.raw().headers().firstValue("ETag").orElseThrow();
    assertEquals("no-cache", js.raw().headers().firstValue("Cache-Control").orElse(""));
    assertEquals(
        304, http.send("GET", "/console/app.js", null, Map.of("If-None-Match", etag)).status());
    assertEquals(
        "text/css; charset=utf-8",
        http.get("/console/console.css").raw().headers().firstValue("Content-Type").orElse(""));
    Http.Answer slash = http.get("/console/");
    assertEquals(200, slash.status(), "the console with a trailing slash: " + slash);
    assertEquals(page.text(), slash.text());
    Http.Answer missing = http.get("/console/nothing.js");
    assertEquals(404, missing.status());
    assertEquals("NOT_FOUND", missing.code());
    assertEquals(404, http.get("/console/.hidden").status());
  }

  /**
   * The overview reads one page of queues (and only that page's stats) at a time: a server with a
   * million queues is listed a hundred at a time, found by the start of a name.
   */
  @Test
  void queueOverview_pagesAHundredAtATime_andFindsQueuesByTheStartOfTheirName() {
    for (int i = 0; i < 105; i++) {
      ok(http.post("/v1/queues", String.format("{\"name\":\"paged-%03d\"}", i)));
    }
    browser.go("#/queues");
    browser.shown(By.id("queue-filter")).sendKeys("paged-");
    browser.count(By.cssSelector("#queue-rows tr"), 100);
    browser.contains(By.id("queue-count"), "100 queues on page 1; more on the next");
    browser.shown(By.cssSelector("tr[data-queue='paged-099']"));

    browser.click(By.id("queue-next"));
    browser.count(By.cssSelector("#queue-rows tr"), 5);
    browser.shown(By.cssSelector("tr[data-queue='paged-104']"));
    browser.contains(By.id("queue-count"), "5 queues on page 2");

    browser.click(By.id("queue-first"));
    browser.shown(By.cssSelector("tr[data-queue='paged-000']"));
    WebElement filter = browser.shown(By.id("queue-filter"));
    filter.sendKeys("10");
    browser.count(By.cssSelector("#queue-rows tr"), 5); // paged-100 .. paged-104
    browser.go("#/dead-letters"); // the next test's #/queues starts afresh, not on this filter
  }

  @Test
  void queues_showTheirCounts_sendBrowseSelectAndPurge() {
    ok(http.post("/v1/queues", "{\"name\":\"orders\"}"));
    ok(http.post("/v1/queues", "{\"name\":\"billing\"}"));
    for (int i = 0; i < 2; i++) {
      ok(
          http.post(
              "/v1/queues/orders/messages",
              "{\"body\":\"en-" + i + "\",\"attributes\":{\"language\":\"en\"}}"));
    }
    browser.go("#/queues");
    browser.text(row("orders", "available"), "2");
    browser.text(row("billing", "available"), "0");
    browser.driver.navigate().refresh(); // the keyboard starts at the top of the page
    browser.text(row("orders", "available"), "2");
    new org.openqa.selenium.interactions.Actions(browser.driver)
        .sendKeys(org.openqa.selenium.Keys.TAB)
        .perform();
    assertEquals(
        "Skip to content",
        browser.script("return document.activeElement.textContent"),
        "the keyboard reaches the skip link first");
    WebElement filter = browser.shown(By.id("queue-filter"));
    filter.sendKeys("bill");
    browser.count(By.cssSelector("#queue-rows tr"), 1);
    browser.contains(By.id("queue-count"), "1 queue on page 1");
    filter.clear();
    filter.sendKeys("ord");
    browser.count(By.cssSelector("#queue-rows tr"), 1);
    browser.shown(By.cssSelector("tr[data-queue='orders']"));
    browser.screenshots("queues");

    browser.click(By.linkText("orders")); // the list redraws every 2 s: found again if stale
    browser.text(By.id("stat-available"), "2");
    browser.count(By.cssSelector("#browse-rows tr"), 2);
    browser.shown(By.id("send-body")).sendKeys("{\"order\":42,\"lines\":[1,2]}");
    browser.shown(By.id("send-attributes")).sendKeys("{\"language\":\"es\"}");
    WebElement priority = browser.shown(By.id("send-priority"));
    priority.clear();
    priority.sendKeys("5");
    browser.shown(By.id("send")).click();
    browser.contains(By.id("status"), "Sent message");
    browser.text(By.id("stat-available"), "3");
    browser.count(By.cssSelector("#browse-rows tr"), 3);

    browser.shown(By.id("browse-selector")).sendKeys("language = 'es'");
    browser.shown(By.cssSelector("#browse-form button[type=submit]")).click();
    browser.count(By.cssSelector("#browse-rows tr"), 1);
    browser.shown(By.cssSelector("#browse-rows tr button")).click();
    browser.contains(By.id("message-body"), "\"order\": 42,\n  \"lines\"");
    browser.contains(By.id("message-attributes"), "\"language\": \"es\"");
    browser.contains(By.cssSelector("#queue-config dl.kv"), "Key limit");
    WebElement visibility = browser.shown(By.id("cfg-visibilityTimeoutSeconds"));
    visibility.clear();
    visibility.sendKeys("45");
    browser.shown(By.cssSelector("#config-form button[type=submit]")).click();
    browser.contains(By.id("status"), "Configuration of orders saved");
    assertEquals(
        45,
        ok(http.get("/v1/queues/orders")).get("config").get("visibilityTimeoutSeconds").asInt());
    browser.screenshots("queue");
    assertEquals(
        0L,
        browser.script(
            "return [...document.querySelectorAll('input, select, textarea, button')]"
                + ".filter(e => !e.closest('[hidden]') && e.labels?.length === 0"
                + " && !e.getAttribute('aria-label') && !e.textContent.trim()).length"),
        "every control has a label");

    browser.shown(By.id("purge")).click();
    browser.contains(By.id("confirm-text"), "Purge queue 'orders'?");
    browser.shown(By.id("confirm-cancel")).click();
    browser.text(By.id("stat-available"), "3"); // asked, not done
    browser.shown(By.id("purge")).click();
    browser.shown(By.id("confirm-ok")).click();
    browser.contains(By.id("status"), "Purged 3 message(s) from orders");
    browser.text(By.id("stat-available"), "0");
    browser.count(By.cssSelector("#browse-rows tr"), 0);
    assertEquals(0, ok(http.get("/v1/queues/orders/stats")).get("available").asInt());
    browser.assertNoJavaScriptErrors();
  }

  /**
   * Receives and releases every message of {@code queue}: with maxReceiveCount 1, all dead-letter.
   */
  private static void failAll(String queue, int n) {
    for (int done = 0; done < n; ) {
      JsonNode got =
          ok(
              http.post(
                  "/v1/queues/" + queue + "/receive",
                  "{\"maxMessages\":10,\"visibilityTimeoutSeconds\":60}"));
      for (JsonNode m : got.get("messages")) {
        ok(
            http.post(
                "/v1/queues/" + queue + "/leases/" + m.get("receipt").asText() + "/release", "{}"));
        done++;
      }
      assertTrue(got.get("messages").size() > 0, "nothing to receive from " + queue);
    }
  }

  @Test
  void consoleWithATrailingSlash_isTheConsole() {
    browser.driver.get(server.uri() + "/console/#/queues");
    browser.shown(By.id("queues"));
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void messageIds_showTheirDistinctEnd_andCopyTheWholeId() {
    ok(http.post("/v1/queues", "{\"name\":\"ids\"}"));
    String a = ok(http.post("/v1/queues/ids/messages", "{\"body\":\"a\"}")).get("id").asText();
    String b = ok(http.post("/v1/queues/ids/messages", "{\"body\":\"b\"}")).get("id").asText();
    browser.go("#/queues/ids");
    for (String id : List.of(a, b)) {
      By cell = By.cssSelector("#browse-rows tr[data-id='" + id + "'] td:first-child");
      browser.contains(cell, id.substring(id.length() - 8));
      assertEquals(
          id,
          browser
              .shown(By.cssSelector("#browse-rows tr[data-id='" + id + "'] button.copy"))
              .getAttribute("data-copy"));
    }
    String shownA =
        browser.shownText(By.cssSelector("#browse-rows tr[data-id='" + a + "'] td:first-child"));
    String shownB =
        browser.shownText(By.cssSelector("#browse-rows tr[data-id='" + b + "'] td:first-child"));
    assertFalse(shownA.equals(shownB), "two rows' ids look different: " + shownA);
    browser.click(By.cssSelector("#browse-rows tr[data-id='" + a + "'] button.copy"));
    browser.contains(By.id("status"), a);
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void sparklines_sayNoTraffic_whenThereIsNone() {
    ok(http.post("/v1/queues", "{\"name\":\"idle\"}"));
    browser.go("#/queues");
    browser.contains(By.cssSelector("tr[data-queue='idle']"), "no traffic");
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void workspaceWallboard_countsAWaitingContactOnce_inAQueueWithoutAWorkerExpression() {
    ok(http.post("/v1/workspaces", "{\"name\":\"mixed\",\"defaultActivity\":\"Offline\"}"));
    ok(
        http.send(
            "PUT",
            "/v1/workspaces/mixed/task-queues/billing",
            "{\"workerExpression\":\"skills HAS 'billing'\"}"));
    ok(http.send("PUT", "/v1/workspaces/mixed/task-queues/general", "{}"));
    for (int i = 0; i < 4; i++) {
      ok(
          http.post(
              "/v1/workspaces/mixed/contacts",
              "{\"id\":\"g" + i + "\",\"channel\":\"voice\",\"queue\":\"general\"}"));
    }
    for (int i = 0; i < 2; i++) {
      ok(
          http.post(
              "/v1/workspaces/mixed/contacts",
              "{\"id\":\"b" + i + "\",\"channel\":\"voice\",\"queue\":\"billing\"}"));
    }
    ok(
        http.post(
            "/v1/workspaces/mixed/agents",
            "{\"id\":\"off\",\"attributes\":{},\"capacity\":{\"voice\":1}}"));
    browser.go("#/queues");
    browser.go("#/wallboard/mixed");
    browser.text(By.id("wb-waiting"), "6");
    browser.text(By.cssSelector("tr[data-queue='general'] td[data-field='waiting']"), "4");
    browser.text(By.cssSelector("tr[data-queue='billing'] td[data-field='waiting']"), "2");
    browser.count(By.cssSelector("#group-rows tr"), 2);
    Object sum =
        browser.script(
            "return [...document.querySelectorAll('#group-rows td[data-field=waiting]')]"
                + ".reduce((n, td) => n + Number(td.textContent), 0)");
    assertEquals(6L, ((Number) sum).longValue(), "the rows add up to the Waiting card");
    assertEquals(
        "Agents offline",
        browser.shownText(By.xpath("//div[@id='wb-presence-offline']/preceding-sibling::div")));
    browser.assertNoJavaScriptErrors();
  }

  /**
   * A workspace's wallboard lists its settings (docs/console.md, "Routing wallboard"): those it
   * sets with their values, those it leaves to the server as "server default".
   */
  @Test
  void workspaceWallboard_showsTheWorkspacesSettings_andServerDefaultsForThoseItLeaves() {
    ok(
        http.post(
            "/v1/workspaces",
            "{\"name\":\"tuned\",\"defaultActivity\":\"Offline\",\"missLimit\":1,"
                + "\"restPeriodSeconds\":45,\"timeoutActivity\":\"Break\",\"offerTimeoutSeconds\":12,"
                + "\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                + "{\"name\":\"Offline\",\"available\":false},"
                + "{\"name\":\"Break\",\"available\":false}]}"));
    browser.go("#/queues");
    browser.go("#/wallboard/tuned");
    browser.text(setting("missLimit"), "1");
    browser.text(setting("restPeriodSeconds"), "45 s");
    browser.text(setting("timeoutActivity"), "Break");
    browser.text(setting("offerTimeoutSeconds"), "12 s");
    browser.text(setting("defaultActivity"), "Offline");
    browser.text(setting("statsWindowSeconds"), "server default");
    browser.text(setting("autoAccept"), "server default");
    browser.text(setting("rejectActivity"), "none (agents stay in theirs)");
    browser.text(By.id("live"), "live");
    // a change ends the workspace's stream; the wallboard reconnects and reads the settings again
    ok(http.send("PATCH", "/v1/workspaces/tuned", "{\"missLimit\":2,\"autoAccept\":[\"chat\"]}"));
    browser.text(setting("missLimit"), "2");
    browser.text(setting("autoAccept"), "chat");
    assertEquals(
        "Rest period",
        browser.shownText(
            By.xpath("//dd[@data-setting='restPeriodSeconds']/preceding-sibling::dt[1]")));
    browser.assertNoJavaScriptErrors();
  }

  private static By setting(String name) {
    return By.cssSelector("#settings dd[data-setting='" + name + "']");
  }

  /**
   * At a phone's width (390 px) no view scrolls sideways and every action button is on screen: the
   * tables' columns stack (docs/console.md, "Accessibility").
   */
  @Test
  void phoneWidth_noViewScrollsSideways_andEveryButtonIsOnScreen() {
    ok(http.post("/v1/queues", "{\"name\":\"narrow-dlq\"}"));
    ok(
        http.post(
            "/v1/queues",
            "{\"name\":\"narrow-queue-with-a-rather-long-name\",\"deadLetter\":"
                + "{\"target\":\"narrow-dlq\",\"maxReceiveCount\":1}}"));
    for (int i = 0; i < 3; i++) {
      ok(
          http.post(
              "/v1/queues/narrow-queue-with-a-rather-long-name/messages",
              "{\"body\":\"a body long enough to need more than one line at a phone's width, "
                  + i
                  + "\"}"));
    }
    failAll("narrow-queue-with-a-rather-long-name", 3); // all three dead-letter
    ok(
        http.post(
            "/v1/queues/narrow-queue-with-a-rather-long-name/messages",
            "{\"body\":\"one more, left in the queue\"}"));
    ok(http.post("/v1/workspaces", "{\"name\":\"narrow\",\"defaultActivity\":\"Offline\"}"));
    ok(
        http.send(
            "PUT",
            "/v1/workspaces/narrow/task-queues/billing",
            "{\"workerExpression\":\"skills HAS 'billing'\"}"));
    ok(
        http.post(
            "/v1/workspaces/narrow/agents",
            "{\"id\":\"agent-with-a-long-name\",\"attributes\":{},\"capacity\":{\"voice\":1}}"));
    ok(
        http.post(
            "/v1/workspaces/narrow/contacts",
            "{\"id\":\"caller-with-a-long-name\",\"channel\":\"voice\",\"queue\":\"billing\"}"));

    browser.go("#/queues");
    browser.shown(By.cssSelector("tr[data-queue='narrow-dlq']"));
    browser.script(
        "document.getElementById('queue-filter').value = 'narrow';"
            + "document.getElementById('queue-filter').dispatchEvent(new Event('input'))");
    assertFitsPhone("the queue list", By.cssSelector("tr[data-queue='narrow-dlq']"));
    browser.go("#/queues/narrow-queue-with-a-rather-long-name");
    browser.shown(By.cssSelector("#browse-rows tr"));
    assertFitsPhone("a queue's page", By.cssSelector("#browse-rows tr button.copy"));
    browser.go("#/dead-letters");
    browser.shown(By.cssSelector("tbody[data-dlq='narrow-dlq'] tr"));
    assertFitsPhone("the dead letters", By.cssSelector("tbody[data-dlq='narrow-dlq'] tr button"));
    browser.go("#/wallboard/narrow");
    browser.shown(By.cssSelector("tr[data-contact='caller-with-a-long-name']"));
    browser.shown(setting("timeoutActivity")); // the settings panel too
    assertFitsPhone(
        "a workspace's wallboard",
        By.cssSelector("button[aria-label='Abandon contact caller-with-a-long-name']"));
    browser.go("#/wallboard");
    browser.shown(By.id("wb-waiting"));
    browser.shown(setting("strategy"));
    assertFitsPhone("the wallboard", By.id("wb-waiting"));
    browser.assertNoJavaScriptErrors();
  }

  private static void assertFitsPhone(String what, By shown) {
    browser.shown(shown);
    browser.assertFitsPhoneWidth(what);
  }

  @Test
  void deadLetters_showTheirSource_restoreOne_redriveCancelAndComplete() {
    ok(http.post("/v1/queues", "{\"name\":\"jobs-dlq\"}"));
    ok(
        http.post(
            "/v1/queues",
            "{\"name\":\"jobs\",\"deadLetter\":{\"target\":\"jobs-dlq\",\"maxReceiveCount\":1}}"));
    ok(http.post("/v1/queues/jobs/messages", "{\"body\":\"{\\\"job\\\":1}\"}"));
    failAll("jobs", 1);
    assertEquals(1, ok(http.get("/v1/queues/jobs-dlq/stats")).get("available").asInt());

    browser.go("#/dead-letters");
    By rows = By.cssSelector("tbody[data-dlq='jobs-dlq'] tr");
    browser.count(rows, 1);
    browser.text(By.cssSelector("tbody[data-dlq='jobs-dlq'] td[data-field='source']"), "jobs");
    browser.screenshots("dead-letters");
    browser
        .shown(
            By.cssSelector("tbody[data-dlq='jobs-dlq'] tr button[aria-label^='Restore message']"))
        .click();
    browser.contains(By.id("status"), "Restored message");
    browser.count(rows, 0);
    assertEquals(1, ok(http.get("/v1/queues/jobs/stats")).get("available").asInt());

    for (int i = 0; i < 29; i++) {
      ok(http.post("/v1/queues/jobs/messages", "{\"body\":\"job " + i + "\"}"));
    }
    failAll("jobs", 30);
    browser.count(rows, 30);
    browser.shown(By.id("dlq-jobs-dlq-rate")).sendKeys("1");
    browser.shown(By.cssSelector("button[data-redrive='jobs-dlq']")).click();
    By cancel = By.cssSelector("tbody[data-tasks='jobs-dlq'] tr button");
    browser.shown(cancel).click();
    browser.contains(
        By.cssSelector("tbody[data-tasks='jobs-dlq'] td[data-field='status']"), "cancelled");
    long left = ok(http.get("/v1/queues/jobs-dlq/stats")).get("available").asLong();
    assertTrue(left > 0 && left < 30, "a cancelled redrive at 1/s moved some: " + left + " left");

    WebElement rate = browser.shown(By.id("dlq-jobs-dlq-rate"));
    rate.clear();
    browser.shown(By.cssSelector("button[data-redrive='jobs-dlq']")).click();
    browser.contains(
        By.cssSelector("tbody[data-tasks='jobs-dlq'] tr:first-child td[data-field='status']"),
        "completed");
    browser.count(rows, 0);
    assertEquals(30, ok(http.get("/v1/queues/jobs/stats")).get("available").asInt());
    browser.assertNoJavaScriptErrors();
  }

  /** Receives the one available message of {@code queue}: its receipt. */
  private static String receiveOne(String queue) {
    JsonNode got =
        ok(
            http.post(
                "/v1/queues/" + queue + "/receive",
                "{\"maxMessages\":1,\"visibilityTimeoutSeconds\":60}"));
    assertEquals(1, got.get("messages").size(), got.toString());
    return got.get("messages").get(0).get("receipt").asText();
  }

  @Test
  void messageDetail_showsWhereTheMessageHasBeen_alsoOnceItLeftTheQueue() {
    ok(http.post("/v1/queues", "{\"name\":\"trail-dlq\"}"));
    ok(
        http.post(
            "/v1/queues",
            "{\"name\":\"trail\",\"historyRetentionSeconds\":3600,"
                + "\"deadLetter\":{\"target\":\"trail-dlq\",\"maxReceiveCount\":2}}"));
    String gone =
        ok(http.post("/v1/queues/trail/messages", "{\"body\":\"gone\"}")).get("id").asText();
    for (int i = 0; i < 2; i++) {
      ok(http.post("/v1/queues/trail/leases/" + receiveOne("trail") + "/release", "{}"));
    }
    String done =
        ok(http.post("/v1/queues/trail/messages", "{\"body\":\"done\"}")).get("id").asText();
    ok(http.post("/v1/queues/trail/leases/" + receiveOne("trail") + "/ack", "{}"));
    String again =
        ok(http.post("/v1/queues/trail/messages", "{\"body\":\"again\"}")).get("id").asText();
    ok(http.post("/v1/queues/trail/leases/" + receiveOne("trail") + "/release", "{}"));

    browser.go("#/queues/trail");
    browser.count(By.cssSelector("#browse-rows tr"), 1);
    browser.shown(By.cssSelector("#browse-rows tr[data-id='" + again + "'] button")).click();
    By history = By.id("message-history");
    browser.contains(history, "Sent");
    browser.contains(history, "First received");
    browser.contains(history, "Available again (released or its lease ran out)");

    // acknowledged: gone from the browse, still readable by id while the queue keeps history
    WebElement find = browser.shown(By.id("find-id"));
    find.sendKeys(done);
    browser.shown(By.cssSelector("#find-form button[type=submit]")).click();
    browser.contains(By.id("message-title"), done);
    browser.contains(history, "Completed (acknowledged)");
    browser.contains(history, "First received");

    find.clear();
    find.sendKeys(gone);
    browser.shown(By.cssSelector("#find-form button[type=submit]")).click();
    browser.contains(By.id("message-title"), gone);
    browser.contains(history, "Received 2 times in all");
    browser.contains(history, "Dead-lettered to trail-dlq");

    browser.go("#/queues/trail-dlq");
    browser.shown(By.id("find-id")).sendKeys(gone);
    browser.shown(By.cssSelector("#find-form button[type=submit]")).click();
    browser.contains(history, "Dead-lettered from trail");
    browser.contains(history, "Available");
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void wallboard_showsAnAgentGoAvailable_aContactOfferedAcceptedCompleted_live() {
    ok(
        http.post(
            "/v1/routing/agents",
            "{\"id\":\"ann\",\"attributes\":{\"skills\":[\"billing\"]},\"capacity\":{\"voice\":1},\"presence\":\"offline\"}"));
    ok(
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\"c1\",\"channel\":\"voice\",\"requirements\":\"skills HAS 'billing'\",\"priority\":3}"));
    browser.go("#/wallboard");
    browser.shown(By.cssSelector("tr[data-contact='c1']"));
    browser.contains(By.cssSelector("tr[data-contact='c1']"), "skills HAS 'billing'");
    browser.text(By.id("wb-waiting"), "1");
    browser.contains(By.id("live"), "live");
    browser.screenshots("wallboard");
    assertEquals(
        "rgb(17, 20, 24)", browser.darkScreenshot("wallboard-dark"), "dark follows the system");
    assertEquals(
        "rgb(255, 255, 255)",
        browser.script("return getComputedStyle(document.body).backgroundColor"),
        "light follows the system");
    browser.script("window.sameLoad = 'yes'");

    new Select(browser.shown(By.cssSelector("select[data-presence='ann']")))
        .selectByValue("available");
    browser.count(By.cssSelector("tr[data-contact='c1']"), 0); // offered: no longer waiting
    browser.text(By.id("wb-waiting"), "0");
    JsonNode offers = ok(http.get("/v1/routing/agents/ann/reservations"));
    String reservation = offers.get("reservations").get(0).get("id").asText();
    ok(http.post("/v1/routing/reservations/" + reservation + "/accept", "{}"));
    browser.text(By.cssSelector("tr[data-agent='ann'] td[data-field='contacts']"), "c1");
    browser.text(By.cssSelector("tr[data-agent='ann'] td[data-field='load']"), "voice 1/1");
    ok(http.post("/v1/routing/contacts/c1/complete", "{}"));
    browser.text(By.cssSelector("tr[data-agent='ann'] td[data-field='contacts']"), "–");
    browser.text(By.id("wb-service-level"), "100 %");
    browser.text(By.id("wb-answered"), "1");
    ok(
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\"c2\",\"channel\":\"voice\",\"requirements\":\"skills HAS 'french'\"}"));
    ok(
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\"c3\",\"channel\":\"voice\",\"requirements\":\"skills HAS 'french'\"}"));
    browser.text(By.cssSelector("#contact-rows tr:first-child th"), "c2 (voice)");
    // reprioritise: c3 ahead of c2, which arrived first
    WebElement priority = browser.shown(By.cssSelector("input[data-priority='c3']"));
    priority.clear();
    priority.sendKeys("5");
    browser.shown(By.cssSelector("form[data-reprioritise='c3'] button")).click();
    browser.text(By.cssSelector("#contact-rows tr:first-child th"), "c3 (voice)");
    assertEquals(5, ok(http.get("/v1/routing/contacts/c3")).get("priority").asInt());
    ok(http.post("/v1/routing/contacts/c3/cancel", "{}"));
    browser.count(By.cssSelector("tr[data-contact='c3']"), 0);
    browser.shown(By.cssSelector("button[aria-label='Abandon contact c2']")).click();
    browser.contains(By.id("confirm-text"), "Abandon contact 'c2'?");
    browser.shown(By.id("confirm-ok")).click();
    browser.count(By.cssSelector("tr[data-contact='c2']"), 0);
    browser.contains(By.id("wb-abandoned"), "1 (");
    assertEquals("abandoned", ok(http.get("/v1/routing/contacts/c2")).get("state").asText());
    assertEquals("yes", browser.script("return window.sameLoad"), "updated without a reload");
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void workspaceWallboard_showsActivities_aTaskQueue_andAContactOfferedAcceptedCompleted_live() {
    ok(
        http.post(
            "/v1/workspaces",
            "{\"name\":\"centre\",\"defaultActivity\":\"Offline\",\"serviceLevelThresholdSeconds\":30,"
                + "\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                + "{\"name\":\"Lunch\",\"available\":false},{\"name\":\"Offline\",\"available\":false}]}"));
    ok(
        http.send(
            "PUT",
            "/v1/workspaces/centre/task-queues/billing",
            "{\"workerExpression\":\"skills HAS 'billing'\"}"));
    ok(
        http.post(
            "/v1/workspaces/centre/agents",
            "{\"id\":\"bea\",\"attributes\":{\"skills\":[\"billing\"]},\"capacity\":{\"voice\":1}}"));
    ok(
        http.post(
            "/v1/workspaces/centre/contacts",
            "{\"id\":\"w1\",\"channel\":\"voice\",\"queue\":\"billing\",\"priority\":2}"));
    browser.go("#/queues"); // another view first: the wallboard is drawn anew, with the new list
    browser.go("#/wallboard");
    // the picker lists default first, then the other workspaces; picking one shows it
    browser.contains(By.cssSelector("#workspace option:first-child"), "default");
    browser.shown(By.cssSelector("#workspace option[value='centre']"));
    new Select(browser.shown(By.id("workspace"))).selectByValue("centre");
    browser.shown(By.cssSelector("tr[data-contact='w1']"));
    browser.contains(By.cssSelector("tr[data-contact='w1']"), "billing");
    browser.text(By.cssSelector("tr[data-queue='billing'] td[data-field='waiting']"), "1");
    browser.contains(By.id("level-head"), "30 s");
    browser.contains(By.id("agents-title"), "Offline 1");
    browser.contains(By.id("live"), "live");
    browser.script("window.sameLoad = 'yes'");

    Select activity = new Select(browser.shown(By.cssSelector("select[data-presence='bea']")));
    assertEquals(
        java.util.List.of("Ready", "Lunch", "Offline"),
        activity.getOptions().stream().map(WebElement::getText).toList());
    activity.selectByValue("Ready"); // available: the waiting contact is offered to bea
    browser.count(By.cssSelector("tr[data-contact='w1']"), 0);
    browser.contains(By.cssSelector("tr[data-agent='bea'] td[data-field='contacts']"), "w1");
    browser.text(By.cssSelector("tr[data-queue='billing'] td[data-field='waiting']"), "0");
    JsonNode offers = ok(http.get("/v1/workspaces/centre/agents/bea/reservations"));
    String reservation = offers.get("reservations").get(0).get("id").asText();
    ok(http.post("/v1/workspaces/centre/reservations/" + reservation + "/accept", "{}"));
    browser.text(By.cssSelector("tr[data-agent='bea'] td[data-field='contacts']"), "w1");
    browser.text(By.cssSelector("tr[data-agent='bea'] td[data-field='load']"), "voice 1/1");
    ok(http.post("/v1/workspaces/centre/contacts/w1/complete", "{}"));
    browser.text(By.cssSelector("tr[data-agent='bea'] td[data-field='contacts']"), "–");
    browser.text(By.id("wb-answered"), "1");
    browser.text(
        By.cssSelector("tr[data-queue='billing'] td[data-field='service-level']"), "100 %");
    ok(
        http.post(
            "/v1/workspaces/centre/contacts",
            "{\"id\":\"w2\",\"channel\":\"chat\",\"queue\":\"billing\"}"));
    browser.shown(By.cssSelector("tr[data-contact='w2']"));
    browser.screenshots("wallboard-workspace");
    // a supervisor action in this workspace: abandon the waiting contact
    browser.shown(By.cssSelector("button[aria-label='Abandon contact w2']")).click();
    browser.shown(By.id("confirm-ok")).click();
    browser.count(By.cssSelector("tr[data-contact='w2']"), 0);
    assertEquals(
        "abandoned", ok(http.get("/v1/workspaces/centre/contacts/w2")).get("state").asText());
    // the task queue's row is its own statistics route's figures
    browser.contains(By.cssSelector("tr[data-queue='billing'] td[data-field='abandoned']"), "1 (");
    browser.contains(By.id("groups-note"), "since the router started");
    assertEquals("yes", browser.script("return window.sameLoad"), "updated without a reload");
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void wallboard_drawsTheFirstHundredAgentsAndContacts_andAllOnAsking() {
    ok(http.post("/v1/workspaces", "{\"name\":\"crowd\",\"defaultActivity\":\"Offline\"}"));
    for (int i = 0; i < 130; i++) {
      ok(
          http.post(
              "/v1/workspaces/crowd/agents",
              "{\"id\":\"g" + (1000 + i) + "\",\"capacity\":{\"voice\":1}}"));
    }
    for (int i = 0; i < 110; i++) {
      ok(
          http.post(
              "/v1/workspaces/crowd/contacts",
              "{\"id\":\"k" + (1000 + i) + "\",\"channel\":\"voice\"}"));
    }
    browser.go("#/wallboard/crowd");
    By agentRows = By.cssSelector("#agent-rows tr");
    By contactRows = By.cssSelector("#contact-rows tr");
    browser.count(agentRows, 100);
    browser.count(contactRows, 100);
    browser.contains(By.id("agents-title"), "offline 130");
    browser.text(By.id("agents-more"), "Show all 130 (30 more)");
    browser.text(By.id("contacts-more"), "Show all 110 (10 more)");
    browser.shown(By.id("agents-more")).click();
    browser.count(agentRows, 130);
    browser.shown(By.cssSelector("tr[data-agent='g1129']"));
    browser.text(By.id("agents-more"), "Show the first 100");
    browser.shown(By.id("contacts-more")).click();
    browser.count(contactRows, 110);
    browser.shown(By.id("agents-more")).click();
    browser.count(agentRows, 100);
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void wallboard_resumesItsStream_afterTheServerRestarts(@TempDir Path data) {
    Map<String, String> flags =
        new java.util.HashMap<>(Map.of("data-dir", data.toString(), "port", "0"));
    SwitchboardServer first = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
    SwitchboardServer second = null;
    try (Http api = new Http(first.uri())) {
      ok(
          api.post(
              "/v1/routing/agents",
              "{\"id\":\"bob\",\"capacity\":{\"chat\":2},\"presence\":\"offline\"}"));
      browser.go(first.uri(), "#/wallboard");
      browser.shown(By.cssSelector("tr[data-agent='bob']"));
      browser.contains(By.id("live"), "live");
      flags.put("port", String.valueOf(first.port()));
      first.stop();
      browser.contains(By.id("live"), "reconnecting");
      second = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
      ok(api.post("/v1/routing/contacts", "{\"id\":\"after-restart\",\"channel\":\"chat\"}"));
      browser.shown(By.cssSelector("tr[data-contact='after-restart']"));
      browser.contains(By.id("live"), "live");
      browser.shown(By.cssSelector("tr[data-agent='bob']"));
      browser.assertNoJavaScriptErrorsBut(
          "/v1/routing/events", "ERR_CONNECTION_REFUSED", "status of 503 ");
    } finally {
      if (second != null) {
        second.stop();
      }
      first.stop();
    }
  }
}
