package io.switchboard.server.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import io.switchboard.time.TimeSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The web console ({@code docs/console.md}): static assets under {@code /console}, and the sessions
 * a browser signs in to when access keys are configured ({@code docs/security.md}, "The web
 * console").
 *
 * <ul>
 *   <li>{@code GET /console} (or {@code /console/}) and {@code GET /console/{file}}: the assets
 *       next to this class (its package's resources), open (they hold no data), with a strict
 *       Content-Security-Policy (scripts and styles of this origin only, nothing inline), {@code
 *       nosniff}, no framing, and an {@code ETag} to revalidate against.
 *   <li>{@code POST /console/session}: signs in with HTTP Basic {@code ID:SECRET} (so a wrong
 *       secret is refused, and audited, as on every route) and answers a session cookie ({@code
 *       HttpOnly}, {@code SameSite=Strict}, {@code Secure} under TLS) and the session's CSRF token.
 *       The cookie is the session, signed under a key of the store ({@link ConsoleSessions}), so
 *       every server of a cluster accepts it; the browser keeps neither the secret nor the key.
 *   <li>{@code GET /console/session}: the session the cookie names (open: the console asks it
 *       first, to know whether to show the sign-in).
 *   <li>{@code DELETE /console/session}: signs out.
 *   <li>{@code GET /v1/whoami}: the caller's key, its grants, and the CSRF token of its session, so
 *       that the console offers only what the key may do.
 * </ul>
 *
 * A request carrying the session cookie and no {@code Authorization} is the session's key ({@link
 * #sessions}), read again on every request (a revoked key's sessions end at once); one that changes
 * state must also carry the session's token in {@value #CSRF_HEADER}, else 403 {@code
 * CSRF_TOKEN_MISSING}.
 */
public final class Console {

  static final String COOKIE = "switchboard-console";
  static final String CSRF_HEADER = "X-CSRF-Token";

  /** A session ends after this long without a request. */
  static final Duration IDLE = Duration.ofHours(8);

  /** Only what the strictest policy allows: this origin's files, nothing inline, no frames. */
  static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self';"
          + " frame-ancestors 'none'";

  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png");

  /** The session a request came with, in the request's context. */
  private record SessionSeen(ConsoleSessions.Session session) {}

  private record Asset(byte[] bytes, String type, String etag) {}

  private final KeyRing keys;
  private final TimeSource clock;
  private volatile ConsoleSessions sessionKeys;
  private final Map<String, Optional<Asset>> assets = new ConcurrentHashMap<>();

  public Console(KeyRing keys, TimeSource clock) {
    this.keys = keys;
    this.clock = clock;
    this.sessionKeys = ConsoleSessions.load(SystemRecords.inMemory(), clock);
  }

  /** The API routes (documented in the OpenAPI document, covered by the access matrix). */
  public List<Route> routes() {
    return List.of(
        Route.declare("GET", "/console/session", "session")
            .guard(Guard.open())
            .noBody()
            .withoutEngine()
            .to(this::session),
        Route.declare("POST", "/console/session", "signIn")
            .guard(Guard.authenticated())
            .noBody()
            .withoutEngine()
            .to(this::signIn),
        Route.declare("DELETE", "/console/session", "signOut")
            .guard(Guard.authenticated())
            .noBody()
            .withoutEngine()
            .to(this::signOut),
        Route.declare("GET", "/v1/whoami", "whoami")
            .guard(Guard.authenticated())
            .noBody()
            .withoutEngine()
            .to(this::whoami));
  }

  /** The static assets: not API, so undocumented; open, since they hold no data. */
  public List<Route> assetRoutes() {
    return List.of(
        Route.declare("GET", "/console", "console")
            .guard(Guard.open())
            .ignoresBody()
            .withoutEngine()
            .to(c -> asset(c, "index.html")),
        // the same page at /console/ (what a browser or a person adds): its assets' paths are
        // absolute, so it works from either
        Route.declare("GET", "/console/", "console")
            .guard(Guard.open())
            .ignoresBody()
            .withoutEngine()
            .to(c -> asset(c, "index.html")),
        Route.declare("GET", "/console/{file}", "console")
            .guard(Guard.open())
            .ignoresBody()
            .withoutEngine()
            .to(c -> asset(c, c.path("file"))));
  }

  // ---- assets

  private void asset(Call call, String file) {
    Optional<Asset> found = assets.computeIfAbsent(file, Console::load);
    if (found.isEmpty()) {
      throw new HttpError(404, "NOT_FOUND", "the console has no file '" + file + "'");
    }
    Asset a = found.get();
    var res = call.response();
    res.header(HeaderNames.create("Content-Security-Policy"), CSP);
    res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
    res.header(HeaderNames.create("X-Frame-Options"), "DENY");
    res.header(HeaderNames.create("Referrer-Policy"), "no-referrer");
    // no versioned file names: the browser keeps a copy but asks each time whether it changed
    res.header(HeaderNames.CACHE_CONTROL, "no-cache");
    res.header(HeaderNames.ETAG, a.etag());
    if (call.header("If-None-Match").filter(a.etag()::equals).isPresent()) {
      res.status(Status.NOT_MODIFIED_304);
      res.send();
      return;
    }
    call.send(200, a.type(), a.bytes());
  }

  /** A file of {@code console/}: plain names only (letters, digits, '-', one extension). */
  private static Optional<Asset> load(String file) {
    if (!file.matches("[a-z0-9-]{1,64}\\.[a-z]{2,4}")) {
      return Optional.empty();
    }
    String type = TYPES.get(file.substring(file.indexOf('.') + 1));
    if (type == null) {
      return Optional.empty();
    }
    try (InputStream in = Console.class.getResourceAsStream(file)) {
      if (in == null) {
        return Optional.empty();
      }
      byte[] bytes = in.readAllBytes();
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      String etag = "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"";
      return Optional.of(new Asset(bytes, type, etag));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- sessions

  /**
   * Attaches the engine's store: the session key is read from it (made there on the first start),
   * and sign-outs are recorded there, so that every server sharing the store (a PostgreSQL cluster)
   * accepts the same sessions and ends them at once. Sessions signed before were signed with a key
   * of this server only, and end.
   */
  public void attach(SystemRecords store) {
    this.sessionKeys = ConsoleSessions.load(store, clock);
  }

  /**
   * The filter, before authentication, that makes a request carrying a live session cookie (and no
   * {@code Authorization}) the session's key, and refuses one that changes state without the
   * session's CSRF token. A cookie naming no live session is ignored: authentication then refuses
   * the request (401) as it would without it. The SQS endpoint, which checks its own requests in
   * SigV4 only, and requests no route serves are left alone.
   */
  public Filter sessions() {
    return (chain, req, res) -> {
      Call call = Call.of(req);
      boolean checkedHere =
          call.route().filter(r -> !(r.guard() instanceof Guard.Self)).isPresent();
      if (checkedHere && !keys.keyless() && call.header("Authorization").isEmpty()) {
        cookie(call).ifPresent(token -> admit(call, token));
      }
      chain.proceed();
    };
  }

  private void admit(Call call, String token) {
    Optional<ConsoleSessions.Session> live = live(token);
    if (live.isEmpty()) {
      return;
    }
    ConsoleSessions.Session s = live.get();
    String method = call.request().prologue().method().text();
    boolean changes = !(method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS"));
    if (changes
        && !call.header(CSRF_HEADER).map(t -> constantTimeEquals(t, s.csrf())).orElse(false)) {
      String message =
          "a request made with the console's session cookie that changes state must carry the"
              + " session's CSRF token in "
              + CSRF_HEADER;
      Audit.refused(s.keyId(), null, 403, call.requestId(), message);
      throw new HttpError(403, "CSRF_TOKEN_MISSING", message);
    }
    s.renewed().ifPresent(t -> call.response().header(HeaderNames.SET_COOKIE, setCookie(call, t)));
    call.principal(s.principal());
    call.request().context().register(new SessionSeen(s));
  }

  /**
   * The session {@code token} names, if it is live: none when the cookie is not one this cluster
   * signed (forged, changed, or signed under another key), it was not used for {@link #IDLE}, it
   * was signed out, or its key was revoked or given a new secret. A session last renewed {@link
   * ConsoleSessions#RENEW} or more ago comes with a renewed token, to send back as the new cookie.
   */
  Optional<ConsoleSessions.Session> live(String token) {
    return sessionKeys.live(token, keys);
  }

  /** A new session of key {@code principal}. */
  ConsoleSessions.Opened open(Principal principal) {
    return sessionKeys.open(principal);
  }

  /** Ends the session {@code token} names, if it is live, on every server of the cluster. */
  void close(String token) {
    sessionKeys.close(token, keys);
  }

  private static boolean constantTimeEquals(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static Optional<String> cookie(Call call) {
    for (String header : call.request().headers().all(HeaderNames.COOKIE, List::of)) {
      for (String pair : header.split(";")) {
        String p = pair.trim();
        if (p.startsWith(COOKIE + "=")) {
          return Optional.of(p.substring(COOKIE.length() + 1));
        }
      }
    }
    return Optional.empty();
  }

  private void signIn(Call call) {
    Optional<Principal> principal = call.principal();
    if (principal.isEmpty()) {
      // keyless: nothing to sign in to
      call.json(whoamiBody(Optional.empty(), Optional.empty()));
      return;
    }
    if (call.header("Authorization").isEmpty()) {
      throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          "sign in with the access key's id and secret (HTTP Basic ID:SECRET), not a session");
    }
    ConsoleSessions.Opened opened = open(principal.get());
    call.response().header(HeaderNames.SET_COOKIE, setCookie(call, opened.token()));
    call.json(201, whoamiBody(principal, Optional.of(opened.csrf())));
  }

  private static String setCookie(Call call, String token) {
    return COOKIE
        + "="
        + token
        + "; Path=/; HttpOnly; SameSite=Strict"
        + (call.request().isSecure() ? "; Secure" : "");
  }

  private void signOut(Call call) {
    cookie(call).ifPresent(this::close);
    call.response()
        .header(
            HeaderNames.SET_COOKIE,
            COOKIE
                + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
                + (call.request().isSecure() ? "; Secure" : ""));
    call.noContent();
  }

  /**
   * The session the request's cookie names, if live: the whoami body with its CSRF token; else
   * {@code {"keyless": false}} (sign in) or {@code {"keyless": true}}. Open, so that the console
   * learns whether to sign in without a refused request.
   */
  private void session(Call call) {
    Optional<String> csrf = csrf(call);
    call.json(whoamiBody(csrf.isPresent() ? call.principal() : Optional.empty(), csrf));
  }

  private void whoami(Call call) {
    call.json(whoamiBody(call.principal(), csrf(call)));
  }

  private static Optional<String> csrf(Call call) {
    return call.request().context().get(SessionSeen.class).map(s -> s.session().csrf());
  }

  /** The caller: keyless, or its key id, name, agent and grants; the session's CSRF token. */
  private ObjectNode whoamiBody(Optional<Principal> principal, Optional<String> csrf) {
    ObjectNode o = WireFormat.object();
    o.put("keyless", keys.keyless());
    principal.ifPresent(
        p -> {
          o.put("accessKeyId", p.keyId());
          p.name().ifPresent(n -> o.put("name", n));
          p.agent().ifPresent(a -> o.put("agent", a));
          ArrayNode grants = o.putArray("grants");
          for (Grant g : p.grants()) {
            ObjectNode go = grants.addObject();
            ArrayNode actions = go.putArray("actions");
            g.actions().stream().map(a -> a.wireName()).sorted().forEach(actions::add);
            go.put("resource", g.resource());
          }
        });
    csrf.ifPresent(t -> o.put("csrfToken", t));
    return o;
  }
}
