package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.server.config.ServerConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * A queue's push subscriptions in the web console, in a real headless Chromium ({@code
 * docs/console.md}, "Push subscriptions"): created from the page with its secret shown once (and
 * that secret signs the deliveries), listed with state, pace, in-flight and delivered counts and
 * failures by cause, paused, resumed and deleted.
 */
class ConsoleSubscriptionsTest {

  private static SwitchboardServer server;
  private static Http http;
  private static ConsoleBrowser browser;
  private static HttpServer receiver;
  private static final BlockingQueue<String[]> received = new LinkedBlockingQueue<>();

  @BeforeAll
  static void start() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/ok",
        x -> {
          received.add(
              new String[] {
                new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                x.getRequestHeaders().getFirst("X-Switchboard-Signature")
              });
          x.sendResponseHeaders(204, -1);
          x.close();
        });
    receiver.createContext(
        "/broken",
        x -> {
          x.getRequestBody().readAllBytes();
          x.sendResponseHeaders(500, -1);
          x.close();
        });
    receiver.setExecutor(Executors.newCachedThreadPool());
    receiver.start();
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
    browser = ConsoleBrowser.open(server.uri());
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (http != null) {
      http.close();
      server.stop();
    }
    receiver.stop(0);
  }

  private static String url(String path) {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + path;
  }

  private static JsonNode ok(Http.Answer a) {
    assertTrue(a.status() < 300, a.toString());
    return a.text().isEmpty() ? null : a.json();
  }

  private static By cell(String subscription, String field) {
    return By.cssSelector(
        "tr[data-subscription='" + subscription + "'] td[data-field='" + field + "']");
  }

  @Test
  void createFromThePage_secretShownOnceAndSigning_thenDeliverPauseResumeDelete() throws Exception {
    ok(http.post("/v1/queues", "{\"name\":\"tasks\"}"));
    browser.go("#/queues/tasks");
    browser.shown(By.id("no-subscriptions"));

    browser.shown(By.id("sub-name")).sendKeys("legacy");
    browser.shown(By.id("sub-url")).sendKeys(url("/ok"));
    browser.shown(By.id("sub-maxConcurrent")).sendKeys("2");
    browser.shown(By.id("sub-maxPerSecond")).sendKeys("50");
    browser.click(By.id("subscription-create"));
    String secret = browser.shownText(By.id("subscription-secret-value"));
    assertTrue(secret.length() >= 32, "a secret is shown once: " + secret);
    JsonNode stored = ok(http.get("/v1/queues/tasks/subscriptions/legacy"));
    assertFalse(stored.has("secret"), "the API never shows it again: " + stored);
    assertTrue(
        browser.driver.getPageSource().contains(secret),
        "the page shows the secret until dismissed");
    browser.text(cell("legacy", "state"), "running");
    browser.text(cell("legacy", "pace"), "2 concurrent, 50/s");
    browser.text(cell("legacy", "keyLimit"), "none");

    for (int i = 0; i < 3; i++) {
      ok(http.post("/v1/queues/tasks/messages", "{\"body\":\"task " + i + "\"}"));
    }
    for (int i = 0; i < 3; i++) {
      String[] got = received.poll(15, TimeUnit.SECONDS);
      assertTrue(got != null, "delivery " + i + " arrived");
      assertTrue(signedWith(secret, got), "signed with the secret the page showed");
    }
    browser.text(cell("legacy", "delivered"), "3");
    browser.text(cell("legacy", "failures"), "none");
    browser.text(cell("legacy", "inFlight"), "0");

    browser.click(By.id("subscription-secret-done"));
    browser.go("#/queues");
    browser.go("#/queues/tasks");
    browser.text(cell("legacy", "state"), "running");
    assertFalse(
        browser.driver.getPageSource().contains(secret), "once dismissed, never shown again");

    browser.click(By.cssSelector("button[data-pause='legacy']"));
    browser.text(cell("legacy", "state"), "paused");
    assertTrue(ok(http.get("/v1/queues/tasks/subscriptions/legacy")).get("paused").asBoolean());
    ok(http.post("/v1/queues/tasks/messages", "{\"body\":\"after the pause\"}"));
    browser.click(By.cssSelector("button[data-resume='legacy']"));
    browser.text(cell("legacy", "state"), "running");
    String[] late = received.poll(15, TimeUnit.SECONDS);
    assertTrue(late != null && late[0].contains("after the pause"), "delivered once resumed");
    browser.text(cell("legacy", "delivered"), "4");

    browser.click(By.cssSelector("button[data-delete='legacy']"));
    browser.contains(By.id("confirm-text"), "Delete subscription 'legacy' of queue 'tasks'?");
    browser.click(By.id("confirm-ok"));
    browser.count(By.cssSelector("#subscription-rows tr"), 0);
    browser.shown(By.id("no-subscriptions"));
    assertEquals(404, http.get("/v1/queues/tasks/subscriptions/legacy").status());
    browser.assertNoJavaScriptErrors();
  }

  @Test
  void aFailingEndpoint_showsItsFailuresByCause_andARefusedFormSaysWhy() {
    ok(http.post("/v1/queues", "{\"name\":\"broken-tasks\"}"));
    ok(
        http.post(
            "/v1/queues/broken-tasks/subscriptions",
            "{\"name\":\"down\",\"url\":\""
                + url("/broken")
                + "\",\"minBackoffMillis\":100,"
                + "\"keyLimit\":{\"attribute\":\"tenant\",\"maxConcurrent\":2,\"maxPerSecond\":5}}"));
    ok(http.post("/v1/queues/broken-tasks/messages", "{\"body\":\"doomed\"}"));
    browser.go("#/queues/broken-tasks");
    browser.contains(cell("down", "failures"), "status ");
    browser.text(cell("down", "delivered"), "0");
    browser.text(cell("down", "keyLimit"), "tenant: 2 in flight, 5/s");

    browser.shown(By.id("sub-name")).sendKeys("bad");
    browser.shown(By.id("sub-url")).sendKeys("ftp://example.com/x");
    browser.click(By.id("subscription-create"));
    browser.contains(By.id("status"), "Subscription refused: ");
    assertEquals(404, http.get("/v1/queues/broken-tasks/subscriptions/bad").status());
    browser.assertNoJavaScriptErrors("400");
  }

  private static boolean signedWith(String secret, String[] got) throws Exception {
    String[] parts = got[1].split(",");
    String t = parts[0].substring(2);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
    return parts[1].equals(
        "v1=" + HexFormat.of().formatHex(mac.doFinal(got[0].getBytes(StandardCharsets.UTF_8))));
  }
}
