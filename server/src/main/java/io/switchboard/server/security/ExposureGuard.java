package io.switchboard.server.security;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.HttpError;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may reach the server from where ({@code docs/security.md#keyless-mode}): the refusal to start
 * exposed without keys, the checks that keep a web page in the user's browser from driving a
 * keyless server, CORS for the origins the operator lists, and the base URL queue URLs and links
 * name.
 *
 * <p><b>Keyless mode</b> is a server with no access key configured ({@link #keysConfigured}). It
 * starts only bound to a loopback address unless {@code allow-anonymous} is set ({@link
 * #checkStart}), and while it runs ({@link #admit}):
 *
 * <ul>
 *   <li>the {@code Host} must be a loopback name ({@code localhost}, {@code *.localhost}, {@code
 *       127.x.x.x}, {@code [::1]}, any port), the host of {@code public-url} or {@code
 *       advertise-url}, the bind address, or (bound off loopback) this machine's name or an address
 *       of its interfaces; else 421 {@code HOST_NOT_ALLOWED} (DNS rebinding: a name the attacker
 *       controls, resolved to us);
 *   <li>a request body to the native API or routing must be {@code application/json}; else 415
 *       {@code UNSUPPORTED_MEDIA_TYPE} (a form or {@code text/plain} needs no CORS preflight). The
 *       SQS protocols keep their own content types on their own routes;
 *   <li>an SQS action that changes state is refused over {@code GET} (checked by {@link
 *       io.switchboard.server.sqs.SqsRoute}, which reads it from the action's declaration and
 *       answers in the SQS error shapes).
 * </ul>
 *
 * In every mode a request whose {@code Origin} is not the server's own (the scheme and {@code Host}
 * it was sent to, or {@code public-url}) nor listed in {@code cors-origins} is refused with 403
 * {@code CROSS_ORIGIN}, one audit line like every refusal; a listed origin gets the CORS headers
 * and its preflight {@code OPTIONS} is answered here. Clients that are not browsers send no {@code
 * Origin}.
 */
public final class ExposureGuard {

  private static final Logger LOG = LoggerFactory.getLogger(ExposureGuard.class);

  private final BooleanSupplier keyless;
  private final Optional<URI> publicUrl;
  private final Set<String> corsOrigins;
  private final Set<String> hosts;
  private final String bind;
  private final boolean tls;
  private final IntSupplier port;

  /**
   * @param port the port the server listens on, known once it does
   * @param keyless whether the server has no access key now (configured or created at run time)
   */
  public ExposureGuard(ServerConfig config, IntSupplier port, BooleanSupplier keyless) {
    this.keyless = keyless;
    this.publicUrl = config.find(Settings.PUBLIC_URL);
    this.corsOrigins = Set.copyOf(config.get(Settings.CORS_ORIGINS));
    this.bind = config.bind();
    this.tls = config.find(Settings.TLS_CERT).isPresent();
    this.port = port;
    Set<String> own = new HashSet<>();
    publicUrl.ifPresent(u -> own.add(hostOnly(u.getHost())));
    config.find(Settings.ADVERTISE_URL).ifPresent(u -> own.add(hostOnly(u.getHost())));
    if (!wildcard(bind)) {
      own.add(hostOnly(bind));
    }
    if (!loopbackBind(bind)) {
      own.addAll(interfaceAddresses());
      try {
        // the machine's name: what other servers of a cluster send routing calls to by default
        own.add(hostOnly(InetAddress.getLocalHost().getHostName()));
      } catch (UnknownHostException e) {
        // none to add
      }
    }
    this.hosts = Set.copyOf(own);
  }

  /**
   * True when the configuration names access keys ({@code access-keys}, {@code sqs-access-keys},
   * {@code access-keys-file}); the early check ({@link #checkStart}) goes by this, the one after
   * the keys are read by the keys themselves ({@link #storedKeysNeeded}).
   */
  static boolean keysConfigured(ServerConfig config) {
    return !config.accessKeys().ids().isEmpty()
        || config.find(Settings.ACCESS_KEYS_FILE).isPresent();
  }

  /**
   * Refuses, before anything starts, to serve bound to a non-loopback address without access keys
   * unless {@code allow-anonymous} says so, where no key can be in the engine's store: an in-memory
   * engine starts empty. A durable or shared engine's store may hold run-time keys (created over
   * {@code /v1/keys}); whether it does is known once it opens ({@link #storedKeysNeeded}, checked
   * by the server then).
   *
   * @throws StartupException naming the address and the ways out
   */
  public static void checkStart(ServerConfig config) {
    if (keysConfigured(config)
        || config.get(Settings.ALLOW_ANONYMOUS)
        || loopbackBind(config.bind())
        || (!config.inMemory() || config.postgres().isPresent() || config.dynamodb().isPresent())) {
      return;
    }
    throw refusal(config);
  }

  /**
   * True when a server with these configured keys may start only if its engine's store holds keys:
   * bound off loopback, without {@code allow-anonymous} and without a configured key (a key file
   * without a key counts as none). Until the store is read, such a server checks every request (and
   * so refuses all but the open routes); if the store holds no key it stops with {@link #refusal}.
   */
  public static boolean storedKeysNeeded(ServerConfig config, boolean keysConfigured) {
    return !keysConfigured && !config.get(Settings.ALLOW_ANONYMOUS) && !loopbackBind(config.bind());
  }

  /** The refusal to serve off loopback without keys: the address and the ways out. */
  public static StartupException refusal(ServerConfig config) {
    return new StartupException(
        "bind "
            + config.bind()
            + " is not a loopback address and no access keys are configured"
            + (config.inMemory() ? "" : " or stored")
            + ": anyone who can reach the port could read, send and delete everything. Configure"
            + " access keys (--access-keys, --access-keys-file or --sqs-access-keys;"
            + " docs/security.md), bind 127.0.0.1, or pass --allow-anonymous to serve without keys"
            + " anyway");
  }

  /** Whether the server runs without access keys. */
  public boolean keyless() {
    return keyless.getAsBoolean();
  }

  /**
   * Checks a request (see the class comment); answers a CORS preflight itself.
   *
   * @return false when the request has been answered here (a preflight), true to go on
   * @throws HttpError when it is refused
   */
  public boolean admit(Call call) {
    ServerRequest req = call.request();
    ServerResponse res = call.response();
    Optional<String> host = call.header("Host");
    if (keyless() && host.isPresent() && !allowedHost(host.get())) {
      throw new HttpError(
          421,
          "HOST_NOT_ALLOWED",
          "Host '"
              + host.get()
              + "' is not a name of this server: without access keys it answers only to a loopback"
              + " name (localhost, 127.0.0.1, [::1]) or the host of public-url; set public-url to"
              + " the URL clients use");
    }
    Optional<String> origin = call.header("Origin");
    String method = req.prologue().method().text();
    if (origin.isPresent()) {
      String o = origin.get().toLowerCase(Locale.ROOT);
      boolean listed = corsOrigins.contains(o);
      if (!listed && !ownOrigin(o, host, req.isSecure())) {
        String message =
            "requests from origin '"
                + Audit.clip(origin.get())
                + "' are refused: it is not this server's origin; list it in cors-origins to let"
                + " its web pages call the server";
        Audit.refused(Authentication.claimedKeyId(call), null, 403, call.requestId(), message);
        throw new HttpError(403, "CROSS_ORIGIN", message);
      }
      if (listed) {
        res.header(HeaderNames.create("Access-Control-Allow-Origin"), origin.get());
        res.header(HeaderNames.VARY, "Origin");
        res.header(HeaderNames.create("Access-Control-Expose-Headers"), Call.REQUEST_ID_HEADER);
        Optional<String> preflight = call.header("Access-Control-Request-Method");
        if (method.equals("OPTIONS") && preflight.isPresent()) {
          res.header(
              HeaderNames.create("Access-Control-Allow-Methods"), "GET, POST, PUT, PATCH, DELETE");
          call.header("Access-Control-Request-Headers")
              .ifPresent(h -> res.header(HeaderNames.create("Access-Control-Allow-Headers"), h));
          res.header(HeaderNames.create("Access-Control-Max-Age"), "600");
          res.status(Status.NO_CONTENT_204);
          res.send();
          return false;
        }
      }
    }
    if (keyless() && bodyMustBeJson(call, method) && !json(call.header("Content-Type"))) {
      throw new HttpError(
          415,
          "UNSUPPORTED_MEDIA_TYPE",
          "a request body must be sent with Content-Type: application/json, got "
              + call.header("Content-Type").map(t -> "'" + t + "'").orElse("none"));
    }
    return true;
  }

  /** A native or routing route whose request carries a body. */
  private static boolean bodyMustBeJson(Call call, String method) {
    if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
      return false;
    }
    boolean nativeRoute = call.route().filter(r -> !r.operation().equals("sqs")).isPresent();
    return nativeRoute && call.request().content().hasEntity();
  }

  private static boolean json(Optional<String> contentType) {
    if (contentType.isEmpty()) {
      return false;
    }
    String type = contentType.get();
    int semi = type.indexOf(';');
    return (semi < 0 ? type : type.substring(0, semi))
        .trim()
        .toLowerCase(Locale.ROOT)
        .equals("application/json");
  }

  private boolean ownOrigin(String origin, Optional<String> host, boolean secure) {
    if (host.isPresent()
        && origin.equals((secure ? "https://" : "http://") + host.get().toLowerCase(Locale.ROOT))) {
      return true;
    }
    return publicUrl
        .map(
            u ->
                origin.equals(u.getScheme() + "://" + u.getRawAuthority().toLowerCase(Locale.ROOT)))
        .orElse(false);
  }

  /**
   * Whether {@code hostHeader} ({@code name[:port]}) names this server: a loopback name, or one of
   * its own names and addresses (see the class comment).
   */
  boolean allowedHost(String hostHeader) {
    // asked twice per request (the guard, then the base URL of an SQS answer), and a server is
    // reached under a handful of names: kept, not parsed and matched again (bounded: the Host
    // header is the client's to choose)
    Boolean allowed = allowedHosts.get(hostHeader);
    if (allowed == null) {
      allowed = judgeHost(hostHeader);
      if (allowedHosts.size() >= MAX_HOSTS) {
        allowedHosts.clear();
      }
      allowedHosts.put(hostHeader, allowed);
    }
    return allowed;
  }

  /**
   * How many {@code Host} headers' verdicts {@link #allowedHost} keeps; past it, it starts afresh.
   */
  static final int MAX_HOSTS = 256;

  private final Map<String, Boolean> allowedHosts = new ConcurrentHashMap<>();

  /** Host headers whose verdict is kept now (for tests: the cache stays bounded). */
  int hostsKept() {
    return allowedHosts.size();
  }

  private boolean judgeHost(String hostHeader) {
    String h = hostOnly(stripPort(hostHeader.trim()));
    if (h.contains(":")) {
      h = canonicalV6(h);
    }
    return loopbackName(h) || hosts.contains(h);
  }

  /**
   * The scheme, host and port queue URLs and links start with: {@code public-url}; else the scheme
   * and {@code Host} the request was sent to when that host is allowed ({@link #allowedHost}); else
   * the address the server listens on. Never a {@code Host} that names something else.
   */
  public String baseUrl(Call call) {
    if (publicUrl.isPresent()) {
      return publicUrl.get().toString();
    }
    String scheme = call.request().isSecure() ? "https://" : "http://";
    Optional<String> host = call.header("Host");
    if (host.isPresent() && allowedHost(host.get())) {
      return scheme + host.get();
    }
    String own = wildcard(bind) ? "127.0.0.1" : bind;
    if (own.contains(":") && !own.startsWith("[")) {
      own = "[" + own + "]";
    }
    return scheme + own + ":" + port.getAsInt();
  }

  /** The scheme the server answers in. */
  public String scheme() {
    return tls ? "https" : "http";
  }

  /** Logs what an exposed server should know, once at start. */
  public void logStart() {
    if (keyless() && !loopbackBind(bind)) {
      LOG.atWarn()
          .addKeyValue("bind", bind)
          .log("serving without access keys on a non-loopback address (allow-anonymous)");
    }
    if (publicUrl.isEmpty() && !loopbackBind(bind)) {
      LOG.atWarn()
          .addKeyValue("bind", bind)
          .log(
              "no public-url: queue URLs name the request's Host only when it is a loopback name"
                  + " or an address of this machine; set public-url to the URL clients use");
    }
  }

  // ---- names and addresses

  static boolean wildcard(String bind) {
    return bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("[::]");
  }

  /** Whether the bind address is a loopback one (a name is resolved). */
  public static boolean loopbackBind(String bind) {
    if (wildcard(bind)) {
      return false;
    }
    String h = hostOnly(bind);
    if (loopbackName(h)) {
      return true;
    }
    try {
      for (InetAddress a : InetAddress.getAllByName(h)) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false; // the listener reports it
    }
  }

  /**
   * {@code localhost}, a name under {@code .localhost} (RFC 6761, such as {@code
   * sqs.eu-west-1.localhost}), {@code 127.x.x.x} or {@code ::1}.
   */
  static boolean loopbackName(String host) {
    String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    return h.equals("localhost")
        || h.endsWith(".localhost")
        || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1")
        || LOOPBACK_V4.matcher(h).matches();
  }

  /** {@code 127.x.x.x}, compiled once: {@link String#matches} compiles its pattern every call. */
  private static final java.util.regex.Pattern LOOPBACK_V4 =
      java.util.regex.Pattern.compile("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");

  /** A host lower-cased and without IPv6 brackets or zone. */
  private static String hostOnly(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    int zone = h.indexOf('%');
    return zone < 0 ? h : h.substring(0, zone);
  }

  /** {@code host:port} → {@code host}; {@code [v6]:port} → {@code [v6]}. */
  private static String stripPort(String hostPort) {
    if (hostPort.startsWith("[")) {
      int end = hostPort.indexOf(']');
      return end < 0 ? hostPort : hostPort.substring(0, end + 1);
    }
    int colon = hostPort.indexOf(':');
    if (colon >= 0 && hostPort.indexOf(':', colon + 1) < 0) {
      return hostPort.substring(0, colon);
    }
    return hostPort;
  }

  /** An IPv6 literal in the one form {@link InetAddress#getHostAddress} writes. */
  private static String canonicalV6(String literal) {
    if (!literal.matches("[0-9a-f:.]+")) {
      return literal; // not a literal: never resolved
    }
    try {
      return hostOnly(InetAddress.getByName(literal).getHostAddress());
    } catch (UnknownHostException e) {
      return literal;
    }
  }

  private static Set<String> interfaceAddresses() {
    Set<String> out = new HashSet<>();
    try {
      var interfaces = NetworkInterface.getNetworkInterfaces();
      while (interfaces != null && interfaces.hasMoreElements()) {
        var addresses = interfaces.nextElement().getInetAddresses();
        while (addresses.hasMoreElements()) {
          out.add(hostOnly(addresses.nextElement().getHostAddress()));
        }
      }
    } catch (SocketException e) {
      LOG.atWarn().setCause(e).log("cannot list this machine's addresses");
    }
    return out;
  }
}
