package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.slf4j.LoggerFactory;

/**
 * The web console with access keys ({@code docs/security.md}, "The web console"): sign-in, the
 * session cookie and its CSRF token, and a key seeing only what it may do; in a real headless
 * Chromium, with no JavaScript error but the refusals the test asks for.
 */
class ConsoleSignInTest {

  private static final String ADMIN = "AKADMIN";
  private static final String ADMIN_SECRET = "admin-secret";
  private static final String VIEWER = "AKVIEWER";
  private static final String VIEWER_SECRET = "viewer-secret";

  private static final ListAppender<ILoggingEvent> audit = new ListAppender<>();
  private static final Logger auditLogger = (Logger) LoggerFactory.getLogger(Audit.LOGGER);
  private static SwitchboardServer server;
  private static Http http;
  private static ConsoleBrowser browser;

  @BeforeAll
  static void start() {
    audit.start();
    auditLogger.addAppender(audit);
    auditLogger.setLevel(Level.INFO);
    server = SwitchboardServer.start(ServerConfig.forTests());
    server.keys().put(Principal.admin(ADMIN, ADMIN_SECRET));
    server
        .keys()
        .put(
            new Principal(
                VIEWER,
                VIEWER_SECRET,
                Optional.of("viewer"),
                List.of(Grant.parse("queue:browse on *")),
                Optional.empty()));
    http = new Http(server.uri());
    Map<String, String> admin =
        Map.of("Content-Type", "application/json", "Authorization", basic(ADMIN, ADMIN_SECRET));
    assertEquals(201, http.send("POST", "/v1/queues", "{\"name\":\"audit\"}", admin).status());
    assertEquals(
        201, http.send("POST", "/v1/queues/audit/messages", "{\"body\":\"kept\"}", admin).status());
    browser = ConsoleBrowser.open(server.uri());
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    http.close();
    server.stop();
    auditLogger.detachAppender(audit);
    auditLogger.setLevel(null);
  }

  private static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  private static void signIn(String id, String secret) {
    browser.go("#/queues");
    browser.shown(By.id("key-id")).sendKeys(id);
    browser.shown(By.id("key-secret")).sendKeys(secret);
    browser.shown(By.id("sign-in")).click();
  }

  private static void signOutIfSignedIn() {
    browser.go("#/queues");
    browser.script("document.cookie = ''"); // HttpOnly: script cannot touch it; sign out instead
    if (!browser.driver.findElements(By.cssSelector("#sign-out:not([hidden])")).isEmpty()) {
      browser.shown(By.id("sign-out")).click();
      browser.shown(By.id("key-id"));
    }
  }

  @Test
  void aWrongSecret_isRefused_shownAndAudited() {
    signOutIfSignedIn();
    audit.list.clear();
    signIn(ADMIN, "not-the-secret");
    browser.contains(By.id("signin-error"), "Sign-in refused");
    assertFalse(
        browser.driver.findElement(By.id("views")).isDisplayed(),
        "no links to views that need a session on the sign-in page");
    assertEquals(
        "", browser.shown(By.id("key-secret")).getAttribute("value"), "the secret is not kept");
    browser.screenshots("sign-in");
    assertTrue(
        audit.list.stream()
            .anyMatch(
                e -> e.getFormattedMessage().contains("wrong secret for access key " + ADMIN)),
        "the refused sign-in is in the audit log");
    browser.assertNoJavaScriptErrors("401");
  }

  @Test
  void aBrowseOnlyKey_seesNoPurge_andARequestWithoutTheCsrfToken_isRefused() {
    signOutIfSignedIn();
    signIn(VIEWER, VIEWER_SECRET);
    browser.contains(By.id("who"), "signed in as " + VIEWER);
    browser.shown(By.cssSelector("#views a[data-view='queues']")); // the views, once signed in
    browser.text(By.cssSelector("tr[data-queue='audit'] td[data-field='available']"), "1");
    browser.go("#/queues/audit");
    browser.text(By.id("stat-available"), "1");
    browser.count(By.cssSelector("#browse-rows tr"), 1);
    assertTrue(browser.driver.findElements(By.id("purge")).isEmpty(), "no purge button");
    assertTrue(browser.driver.findElements(By.id("send-form")).isEmpty(), "no send form");
    assertTrue(
        browser.driver.findElements(By.id("config-form")).isEmpty(), "no configuration form");
    browser.shown(By.id("no-subscriptions")); // the push subscriptions are read with browse
    assertTrue(
        browser.driver.findElements(By.id("subscription-form")).isEmpty(),
        "no form creating a push subscription");
    // the wallboard says what it needs, and shows no workspace settings the key may not read
    browser.go("#/wallboard");
    browser.contains(By.id("wallboard-refused"), "routing:supervisor");
    assertTrue(
        browser.driver.findElements(By.id("settings")).isEmpty(), "no workspace settings panel");

    // a state change with the session cookie but without the token (what a forged request sends)
    Object forged =
        browser.asyncScript(
            "const done = arguments[arguments.length - 1];"
                + "fetch('/v1/queues/audit/purge', {method: 'POST', headers: {'Content-Type':"
                + " 'application/json'}, body: '{}'}).then(r => r.json().then(j => done(r.status +"
                + " ' ' + j.code)));");
    assertEquals("403 CSRF_TOKEN_MISSING", forged);
    // the session is the viewer's: with its token, purge is refused for lack of the action
    Object withToken =
        browser.asyncScript(
            "const done = arguments[arguments.length - 1];"
                + "fetch('/console/session').then(r => r.json()).then(s =>"
                + " fetch('/v1/queues/audit/purge', {method: 'POST', headers: {'Content-Type':"
                + " 'application/json', 'X-CSRF-Token': s.csrfToken}, body: '{}'})).then(r =>"
                + " r.json().then(j => done(r.status + ' ' + j.code)));");
    assertEquals("403 FORBIDDEN", withToken);
    Http.Answer stats =
        http.send(
            "GET",
            "/v1/queues/audit/stats",
            null,
            Map.of("Authorization", basic(ADMIN, ADMIN_SECRET)));
    assertEquals(1, stats.json().get("available").asInt(), "nothing purged");
    assertEquals(
        null,
        browser.script("return document.cookie.includes('switchboard-console') ? 'visible' : null"),
        "the session cookie is HttpOnly");
    browser.assertNoJavaScriptErrors("403");
  }

  @Test
  void theSessionCookie_isHttpOnlyStrict_andSigningOutEndsIt() {
    Http.Answer signedIn =
        http.send(
            "POST",
            "/console/session",
            "{}",
            Map.of(
                "Content-Type", "application/json", "Authorization", basic(ADMIN, ADMIN_SECRET)));
    assertEquals(201, signedIn.status(), signedIn.toString());
    String cookie = signedIn.raw().headers().firstValue("Set-Cookie").orElseThrow();
    assertTrue(cookie.startsWith("switchboard-console="), cookie);
    assertTrue(
        cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Strict")
            && cookie.contains("Path=/"),
        cookie);
    assertFalse(cookie.contains("Secure"), "not Secure over plain HTTP: " + cookie);
    assertFalse(signedIn.text().contains(ADMIN_SECRET), "the secret is never answered");
    String csrf = signedIn.json().get("csrfToken").asText();
    String session = cookie.substring(0, cookie.indexOf(';'));

    Http.Answer me = http.send("GET", "/v1/whoami", null, Map.of("Cookie", session));
    assertEquals(200, me.status(), me.toString());
    assertEquals(ADMIN, me.json().get("accessKeyId").asText());
    assertEquals(csrf, me.json().get("csrfToken").asText());
    assertEquals("admin", me.json().get("grants").get(0).get("actions").get(0).asText());

    Http.Answer noToken = http.send("DELETE", "/console/session", null, Map.of("Cookie", session));
    assertEquals(403, noToken.status(), noToken.toString());
    assertEquals("CSRF_TOKEN_MISSING", noToken.code());
    Http.Answer out =
        http.send(
            "DELETE", "/console/session", null, Map.of("Cookie", session, "X-CSRF-Token", csrf));
    assertEquals(204, out.status(), out.toString());
    Http.Answer after = http.send("GET", "/v1/whoami", null, Map.of("Cookie", session));
    assertEquals(401, after.status(), "the session ended: " + after);
    Http.Answer none = http.send("GET", "/console/session", null, Map.of("Cookie", session));
    assertFalse(none.json().has("accessKeyId"), none.toString());
  }

  @Test
  void aRevokedKey_endsItsSessions() {
    server.keys().put(Principal.admin("AKSHORT", "short-secret"));
    Http.Answer signedIn =
        http.send(
            "POST",
            "/console/session",
            "{}",
            Map.of(
                "Content-Type",
                "application/json",
                "Authorization",
                basic("AKSHORT", "short-secret")));
    String cookie = signedIn.raw().headers().firstValue("Set-Cookie").orElseThrow();
    String session = cookie.substring(0, cookie.indexOf(';'));
    assertEquals(200, http.send("GET", "/v1/queues", null, Map.of("Cookie", session)).status());
    assertTrue(server.keys().revoke("AKSHORT"));
    assertEquals(401, http.send("GET", "/v1/queues", null, Map.of("Cookie", session)).status());
  }
}
