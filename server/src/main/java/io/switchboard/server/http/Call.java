package io.switchboard.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.common.buffers.DataReader;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.MoveRights;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import javax.security.auth.x500.X500Principal;
import org.jspecify.annotations.Nullable;

/**
 * One request and its response, as a handler sees them: path parameters, a strictly read JSON body
 * (size-limited before it is read), strictly read query parameters, and JSON answers. The first of
 * the server's filters makes it, with the request's id and its declared route, and keeps it in the
 * request's context, where the other filters, the route's handler and the error handlers find it
 * ({@link #of}).
 */
public final class Call {

  /** The response header every native answer carries its request id in. */
  public static final String REQUEST_ID_HEADER = "X-Request-Id";

  /** {@link #REQUEST_ID_HEADER} as Helidon's name, made once. */
  public static final HeaderName REQUEST_ID = HeaderNames.create(REQUEST_ID_HEADER);

  private final ServerRequest request;
  private final ServerResponse response;
  private final ServerConfig config;
  private final @Nullable QueueEngine engine;
  private final String requestId;
  private final RouteTable.@Nullable Match route;
  private @Nullable String operation;
  private java.util.function.BooleanSupplier toLongPoll = () -> true;
  private boolean longPoll;
  private byte @Nullable [] body;
  private @Nullable Principal principal;

  /** The engine as {@link #principal} uses it ({@link MoveRights#forKey}), made once. */
  private @Nullable QueueEngine keyed;

  /**
   * @param engine the server's engine, null while it starts
   * @param route the declared route the request goes to, with its path parameters; null if none
   */
  public Call(
      ServerRequest request,
      ServerResponse response,
      ServerConfig config,
      @Nullable QueueEngine engine,
      String requestId,
      RouteTable.@Nullable Match route) {
    this.request = request;
    this.response = response;
    this.config = config;
    this.engine = engine;
    this.requestId = requestId;
    this.route = route;
  }

  /**
   * The call a filter made for {@code request} ({@link
   * io.switchboard.server.RequestFilters#exchange}).
   */
  public static Call of(ServerRequest request) {
    return request
        .context()
        .get(Call.class)
        .orElseThrow(() -> new IllegalStateException("no call for " + request.path().path()));
  }

  /**
   * The engine; refused with {@code UNAVAILABLE} while the server starts (the gate refuses
   * engine-bound routes before, so this is a second line).
   */
  public QueueEngine engine() {
    if (engine == null) {
      throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
    }
    if (principal == null) {
      return engine; // keyless mode, or not authenticated yet
    }
    QueueEngine keyed = this.keyed;
    if (keyed == null) {
      keyed = MoveRights.forKey(engine, principal, this::moveRefused);
      this.keyed = keyed;
    }
    return keyed;
  }

  /**
   * A request refused because it would move messages into, or name, a queue its key may not send to
   * ({@link MoveRights}): one audit line, and 403 {@code DESTINATION_FORBIDDEN}.
   */
  private HttpError moveRefused(Access needed, String message) {
    Principal p = Objects.requireNonNull(principal, "a refusal names the key");
    Audit.refused(p.keyId(), needed, 403, requestId, message);
    return new HttpError(403, "DESTINATION_FORBIDDEN", message);
  }

  /** True once the server's engine is open (at the time the request came in). */
  public boolean engineOpen() {
    return engine != null;
  }

  /** The request's id: a UUID, in the {@code X-Request-Id} header and in any log line about it. */
  public String requestId() {
    return requestId;
  }

  /** The declared route the request goes to, if it goes to one. */
  public Optional<Route> route() {
    return route == null ? Optional.empty() : Optional.of(route.route());
  }

  public ServerConfig config() {
    return config;
  }

  /**
   * The name the metrics record this request under: the route's operation, unless the route named
   * it more precisely (an SQS request, by its action); empty for a request no route serves.
   */
  public Optional<String> operation() {
    return Optional.ofNullable(operation).or(() -> route().map(Route::operation));
  }

  public void operation(String name) {
    operation = name;
  }

  /**
   * What {@link #longPoll} does besides noting it: the server moves the request in its gate, which
   * answers false when it holds {@code max-long-polls} already.
   */
  public void onLongPoll(java.util.function.BooleanSupplier action) {
    toLongPoll = action;
  }

  /** True once the request declared itself a long poll. */
  public boolean longPoll() {
    return longPoll;
  }

  /**
   * Declares the request a long poll if a receive on {@code queue} that waits {@code wait} (the
   * queue's receive wait when empty) may block: a stop then does not wait for it but closes the
   * engine, which ends the receive with no messages ({@link RequestGate}). Call it before the
   * receive. A queue that does not exist is left for the receive to report.
   *
   * @return false when the receive may block but the server holds its maximum of long polls ({@code
   *     max-long-polls}): the caller refuses it, in its protocol's terms ({@link
   *     #tooManyLongPolls})
   */
  public boolean receiving(String queue, Optional<Duration> wait) {
    boolean blocks;
    try {
      blocks =
          wait.orElseGet(() -> engine().queue(queue).config().receiveWait())
                  .compareTo(Duration.ZERO)
              > 0;
    } catch (QueueException e) {
      blocks = false;
    }
    if (blocks && !longPoll) {
      if (!toLongPoll.getAsBoolean()) {
        return false;
      }
      longPoll = true;
    }
    return true;
  }

  /** What a receive refused by {@link #receiving} is told: retry, or receive without waiting. */
  public static String tooManyLongPolls(ServerConfig config) {
    return "the server holds its maximum of "
        + config.get(Settings.MAX_LONG_POLLS)
        + " waiting receives (max-long-polls); retry later, or receive without waiting";
  }

  /**
   * The path parameter {@code {name}} of the request's route, decoded (the server's routes are
   * matched by {@link RouteTable}, not Helidon, so Helidon's path parameters are empty).
   *
   * @throws IllegalStateException if the route has no such parameter (a bug in its handler)
   */
  public String path(String name) {
    return routeParameter(name);
  }

  /**
   * A path parameter, for a filter as for a handler: read from the declared route's pattern.
   *
   * @throws IllegalStateException if the route has no such parameter (a bug in its guard)
   */
  public String routeParameter(String name) {
    String value = route == null ? null : route.parameter(name);
    if (value == null) {
      throw new IllegalStateException(
          "route " + route().orElse(null) + " has no path parameter {" + name + "}");
    }
    return value;
  }

  /** The body as a strict JSON object; an empty body is {@code {}}. */
  public JsonFields body() {
    return JsonFields.strict(WireFormat.parse(bytes()), "request body");
  }

  /**
   * The body bound strictly to a request record ({@link io.switchboard.client.wire.NativeWire}).
   */
  public <T> T body(Class<T> type) {
    return Json.strict(bytes(), "request body", type);
  }

  /** Refuses any body but nothing or {@code {}}. */
  public void noBody() {
    body().finish();
  }

  /** Reads the body, within the size limit, and drops it. */
  public void discardBody() {
    bytes();
  }

  public ServerRequest request() {
    return request;
  }

  public ServerResponse response() {
    return response;
  }

  /**
   * The key the request was authenticated with; empty in keyless mode and on routes that need no
   * credentials.
   */
  public Optional<Principal> principal() {
    return Optional.ofNullable(principal);
  }

  public void principal(Principal principal) {
    this.principal = principal;
    this.keyed = null;
  }

  /**
   * A text field of the JSON body, read leniently (for access control, before the handler reads the
   * body strictly); empty when the body is not a JSON object with that text field.
   */
  public Optional<String> bodyText(String field) {
    byte[] bytes = bytes(); // a body too large is refused here, as the handler would
    try {
      JsonNode v = WireFormat.parse(bytes).get(field);
      return v != null && v.isTextual() ? Optional.of(v.asText()) : Optional.empty();
    } catch (RuntimeException notJson) {
      return Optional.empty(); // the handler refuses it
    }
  }

  /** The body's bytes, within the size limit; read once, kept for whoever asks again. */
  public byte[] bytes() {
    if (body == null) {
      body = readBytes();
    }
    return body;
  }

  private byte[] readBytes() {
    long limit = config.maxBodyBytes();
    var declared = request.headers().contentLength();
    if (declared.isPresent() && declared.getAsLong() > limit) {
      throw tooLarge(declared.getAsLong());
    }
    if (!request.content().hasEntity()) {
      return new byte[0];
    }
    try (InputStream in = request.content().inputStream()) {
      if (declared.isPresent() && !request.headers().contains(HeaderNames.CONTENT_ENCODING)) {
        // Helidon ends the stream at Content-Length: read exactly that, in one array (reading up to
        // the limit + 1 buffered the body in 16 KB chunks and copied it, on every request). Not
        // for an encoded body, whose decoded length the header does not give.
        int length = (int) declared.getAsLong();
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
          throw new DataReader.InsufficientDataAvailableException();
        }
        return bytes;
      }
      byte[] bytes = in.readNBytes((int) limit + 1);
      if (bytes.length > limit) {
        throw tooLarge(-1);
      }
      return bytes;
    } catch (DataReader.InsufficientDataAvailableException e) {
      // the client left (or was cut off by the read-timeout) before its body ended: not our fault
      throw new HttpError(
          400,
          "INCOMPLETE_BODY",
          "the connection ended before the request body did"
              + (declared.isPresent() ? " (Content-Length " + declared.getAsLong() + ")" : ""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      ReadTimeouts.bodyRead();
    }
  }

  private HttpError tooLarge(long size) {
    return new HttpError(
        413,
        "PAYLOAD_TOO_LARGE",
        "request body must be at most "
            + config.maxBodyBytes()
            + " bytes"
            + (size >= 0 ? ", got " + size : ""));
  }

  /** Checks that only {@code allowed} query parameters are present. */
  public void queryOnly(String... allowed) {
    Set<String> unknown = new TreeSet<>(request.query().names());
    unknown.removeAll(Set.of(allowed));
    if (!unknown.isEmpty()) {
      throw new HttpError(
          400,
          "UNKNOWN_FIELD",
          "unknown query parameter(s) "
              + unknown
              + "; known: "
              + (allowed.length == 0 ? "none" : String.join(", ", allowed)));
    }
  }

  /** A request header's first value. */
  public Optional<String> header(String name) {
    var v = request.headers().first(headerName(name));
    return v.isPresent() ? Optional.of(v.get()) : Optional.empty();
  }

  /**
   * The names the filters and handlers look up, made once each: {@link HeaderNames#create}
   * lower-cases and allocates a name on every call. The names are the code's own (a bounded set).
   */
  private static final java.util.Map<String, HeaderName> HEADER_NAMES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static HeaderName headerName(String name) {
    return HEADER_NAMES.computeIfAbsent(name, HeaderNames::create);
  }

  /**
   * Starts a streamed 200 answer of {@code contentType} and hands over its body; each flush sends
   * what was written so far (chunked).
   */
  public OutputStream stream(String contentType) {
    response.status(Status.OK_200);
    response.header(HeaderNames.CONTENT_TYPE, contentType);
    response.header(HeaderNames.CACHE_CONTROL, "no-cache");
    return response.outputStream();
  }

  /**
   * A query parameter's first value. Read with {@code contains}/{@code get}, not {@code first}:
   * Helidon's {@code OptionalValue} looks its converters up in the global service registry, which a
   * jar whose Helidon manifests were not merged (a shaded jar) lacks: every query read then failed
   * with a 500 (found in the benchmark jar).
   */
  public Optional<String> query(String name) {
    var q = request.query();
    return q.contains(name) ? Optional.of(q.get(name)) : Optional.empty();
  }

  public OptionalInt queryInt(String name) {
    Optional<String> v = query(name);
    if (v.isEmpty()) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(v.get()));
    } catch (NumberFormatException e) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", name + " must be an integer, got '" + v.get() + "'");
    }
  }

  public Optional<Boolean> queryBool(String name) {
    return query(name)
        .map(
            v ->
                switch (v) {
                  case "true" -> true;
                  case "false" -> false;
                  default ->
                      throw new HttpError(
                          400,
                          "INVALID_ARGUMENT",
                          name + " must be true or false, got '" + v + "'");
                });
  }

  /** Checks a selector's length before anything parses it. */
  public String selector(String text) {
    if (text.length() > config.maxSelectorLength()) {
      throw new QueueException(
          ErrorCode.INVALID_SELECTOR,
          "selector must be at most "
              + config.maxSelectorLength()
              + " characters, got "
              + text.length());
    }
    return text;
  }

  /** A JSON answer: a tree, or a record written as it is ({@link Json#bytes}). */
  public void json(int status, Object body) {
    send(status, "application/json", Json.bytes(body));
  }

  public void json(Object body) {
    json(200, body);
  }

  public void noContent() {
    response.status(Status.NO_CONTENT_204);
    response.send();
  }

  public void text(String contentType, String body) {
    send(200, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  public void send(int status, String contentType, byte[] body) {
    response.status(Status.create(status));
    response.header(HeaderNames.CONTENT_TYPE, contentType);
    if (status == 429 || status == 503) {
      response.header(HeaderNames.RETRY_AFTER, "1");
    }
    response.send(body);
  }

  /**
   * The API's error answer, {@code {"code", "message"}}, with the request id (again: an error
   * handler's answer starts afresh).
   */
  public void error(int status, String code, String message) {
    response.header(REQUEST_ID, requestId);
    json(status, WireFormat.object().put("code", code).put("message", message));
  }

  /**
   * The subject of the client certificate the TLS handshake verified against {@code tls-client-ca}
   * (RFC 2253, such as {@code CN=agent-7,O=Example}), for mapping to a principal; empty over plain
   * HTTP or TLS without client certificates.
   */
  public Optional<String> clientCertificateSubject() {
    return request
        .remotePeer()
        .tlsPrincipal()
        .map(p -> p instanceof X500Principal x ? x.getName(X500Principal.RFC2253) : p.getName());
  }
}
