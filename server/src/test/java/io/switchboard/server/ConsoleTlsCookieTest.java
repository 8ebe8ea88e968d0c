package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.sqs.TestPki;
import io.switchboard.time.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's session cookie under TLS is {@code Secure} as well ({@code docs/security.md}). */
class ConsoleTlsCookieTest {

  @TempDir Path dir;

  @Test
  void underTls_theSessionCookieIsSecure_HttpOnly_andStrict() throws Exception {
    TestPki.Issued ca = TestPki.ca("Test Server CA");
    TestPki.Issued cert = TestPki.server(ca, "server-1");
    ServerConfig config =
        ServerConfig.forTests()
            .with(
                Settings.TLS_CERT,
                TestPki.write(dir.resolve("server.pem"), TestPki.pem(cert.cert(), ca.cert())))
            .with(
                Settings.TLS_KEY,
                TestPki.write(dir.resolve("server.key"), TestPki.pkcs8(cert.key())));
    SwitchboardServer server =
        SwitchboardServer.start(config, EngineFactory.inMemory(), ManualClock.create());
    try (HttpClient client =
        HttpClient.newBuilder().sslContext(TestPki.context(null, ca.cert())).build()) {
      server.keys().put(Principal.admin("AKADMIN", "admin-secret"));
      HttpResponse<String> signedIn =
          client.send(
              HttpRequest.newBuilder(URI.create(server.uri() + "/console/session"))
                  .header("Authorization", KeysApiTest.basic("AKADMIN", "admin-secret"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(201, signedIn.statusCode(), signedIn.body());
      String cookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
      assertTrue(
          cookie.contains("; Secure")
              && cookie.contains("HttpOnly")
              && cookie.contains("SameSite=Strict"),
          cookie);
      HttpResponse<String> me =
          client.send(
              HttpRequest.newBuilder(URI.create(server.uri() + "/v1/whoami"))
                  .header("Cookie", cookie.substring(0, cookie.indexOf(';')))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, me.statusCode(), me.body());
    } finally {
      server.stop();
    }
  }
}
