package io.switchboard.server;

import io.helidon.common.buffers.DataReader;
import io.helidon.common.socket.PeerInfo;
import io.helidon.common.uri.UriQuery;
import io.helidon.http.Http1HeadersParser;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Method;
import io.helidon.http.RoutedPath;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.http.media.ReadableEntity;
import io.helidon.webserver.http.ServerRequest;
import io.switchboard.client.Credentials;
import io.switchboard.client.SigV4Signer;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.SqsAccount;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.Route;
import io.switchboard.server.http.RouteTable;
import io.switchboard.server.security.Authentication;
import io.switchboard.server.security.SignedCalls;
import io.switchboard.server.security.sigv4.SigV4VerifierBenchmark;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.server.sqs.SqsAction;
import io.switchboard.server.sqs.SqsApi;
import io.switchboard.server.sqs.SqsEndpoint;
import io.switchboard.time.ManualClock;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The server's whole authentication step for one request, as the server runs it, in µs per request
 * and (with {@code -prof gc}) bytes allocated per request: load-independent figures for the goal
 * "auth adds < 10 % CPU per request" (docs/bench-history/auth.md), where the end-to-end {@code
 * bench/run.sh auth} is ±25 % on a shared 2-vCPU machine. {@code bench/run.sh auth-step} runs it
 * and prints the shares ({@code io.switchboard.bench.auth.AuthStepBench}).
 *
 * <p>{@link #authStep} ({@link Step#request}):
 *
 * <ul>
 *   <li>{@code native-none}, {@code native-basic}, {@code native-sigv4}: {@link
 *       Authentication#check} of the Java client's {@code POST /v1/noop} (100-byte JSON body) on a
 *       keyless server, with HTTP Basic, and signed by the client's {@link SigV4Signer} (signing
 *       key cached, as after the server's first signed request); the request's headers as Helidon
 *       parsed them, a new {@link Call} per request as the server's first filter makes it;
 *   <li>{@code sqs-none}, {@code sqs-sigv4}: {@link SqsEndpoint#admit} of an AWS SDK v2 {@code
 *       SendMessage} (JSON protocol, the headers that SDK signs) on a keyless endpoint and on one
 *       with an access key: signature, region, the key's grants and the queue's policy (none; kept
 *       by the endpoint), the headers seen through {@link SignedCalls.HeaderView} as the server
 *       does.
 * </ul>
 *
 * {@link #sqsServed} ({@link Served#auth}): the same SendMessage served whole by the endpoint
 * in-process (read ahead, admitted, sent into the memory engine, answered), without Helidon and the
 * network: a lower bound of what the request costs the server, so {@code authStep / sqsServed} is
 * an upper bound of the share.
 *
 * <pre>
 * bench/run.sh auth-step
 * java -jar bench/target/benchmarks.jar AuthStepBenchmark -prof gc
 * </pre>
 *
 * Each invocation is timed on its own ({@code Mode.SampleTime}): on a machine shared with other
 * work the mean takes in the time the thread waited for a core, the median far less so, and the
 * median is what {@code AuthStepBench} reports.
 *
 * <p>See docs/benchmarks.md, "Cost of authentication", "Sixth pass".
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// @NullMarked on the class, not the package: a package-info here would mark the server's package
// too, which is not NullAway-checked yet
@NullMarked
public class AuthStepBenchmark {

  static final String KEY_ID = "AKIDBENCHMARK";
  static final String SECRET = "bench-secret-0123456789abcdefghijklmnopqrstu";
  static final Instant NOW = Instant.parse("2026-11-25T21:00:00Z");
  static final String SQS_BASE = "http://127.0.0.1:9324";
  static final URI NOOP = URI.create("http://127.0.0.1:8080/v1/noop");

  /** One request's authentication step. */
  @State(Scope.Benchmark)
  public static class Step {

    @Param({"native-none", "native-basic", "native-sigv4", "sqs-none", "sqs-sigv4"})
    public String request;

    // setUp sets the native request's fields or the SQS request's, by the request's kind; a
    // benchmark method reads only those of its kind
    @SuppressWarnings("NullAway.Init")
    private Authentication authentication;

    @SuppressWarnings("NullAway.Init")
    private ServerRequest nativeRequest;

    @SuppressWarnings("NullAway.Init")
    private RouteTable.Match route;

    @SuppressWarnings("NullAway.Init")
    private ServerConfig config;

    @SuppressWarnings("NullAway.Init")
    private SqsEndpoint endpoint;

    @SuppressWarnings("NullAway.Init")
    private SqsHttpRequest sqs;

    @SuppressWarnings("NullAway.Init")
    private SqsAction action;

    private @Nullable QueueEngine engine;

    @Setup(Level.Trial)
    public void setUp() {
      boolean keyed = !request.endsWith("-none");
      KeyRing keys = keyed ? keys() : new MemoryKeyRing();
      if (request.startsWith("native-")) {
        config = ServerConfig.forTests();
        route =
            Objects.requireNonNull(
                new RouteTable(
                        List.of(
                            Route.declare("POST", "/v1/noop", "noop")
                                .guard(Guard.authenticated())
                                .ignoresBody()
                                .withoutEngine()
                                .to(c -> {})),
                        List.of())
                    .match("POST", "/v1/noop", "/v1/noop"),
                "the no-op route matches its own path");
        authentication = new Authentication(keys, ManualClock.at(NOW));
        nativeRequest = nativeNoop(request.substring("native-".length()));
        Call first = call();
        authentication.check(first); // and so the signing key cached
        if (keyed && first.principal().isEmpty()) {
          throw new IllegalStateException("the benchmark's native request was not authenticated");
        }
      } else {
        engine = QueueEngine.inMemory();
        sqs = sqsSendMessage();
        endpoint = sqsEndpoint(engine, keys);
        action = endpoint.action(sqs, SQS_BASE);
        if (endpoint.admit(sqs, SQS_BASE, "setup", action, SqsEndpoint.Origin.UNKNOWN).refused()) {
          throw new IllegalStateException("the benchmark's SQS request is refused");
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      if (engine != null) {
        engine.close();
      }
    }

    // The authentication step reads the request only and never answers: no response is needed.
    @SuppressWarnings("NullAway")
    Call call() {
      return new Call(nativeRequest, null, config, null, "bench-request", route);
    }
  }

  /** The SQS SendMessage served whole, keyless or signed. */
  @State(Scope.Benchmark)
  public static class Served {

    @Param({"none", "sigv4"})
    public String auth;

    private QueueEngine engine;
    private SqsEndpoint endpoint;
    private SqsHttpRequest sqs;

    @Setup(Level.Trial)
    public void setUp() {
      engine = QueueEngine.inMemory();
      endpoint = sqsEndpoint(engine, auth.equals("none") ? new MemoryKeyRing() : keys());
      sqs = sqsSendMessage();
      SqsApi.Answer answer = endpoint.handle(sqs, SQS_BASE, "setup");
      if (answer.status() != 200) {
        throw new IllegalStateException(
            "the benchmark's SendMessage failed: "
                + new String(answer.body(), StandardCharsets.UTF_8));
      }
    }

    /** The messages sent are dropped between iterations, so the heap does not fill. */
    @TearDown(Level.Iteration)
    public void purge() {
      engine.purge("bench-queue");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      engine.close();
    }
  }

  @Benchmark
  public Object authStep(Step s) {
    if (s.authentication != null) {
      Call call = s.call();
      s.authentication.check(call);
      return call.principal();
    }
    return s.endpoint.admit(s.sqs, SQS_BASE, "bench-request", s.action, SqsEndpoint.Origin.UNKNOWN);
  }

  @Benchmark
  public SqsApi.Answer sqsServed(Served s) {
    return s.endpoint.handle(s.sqs, SQS_BASE, "bench-request");
  }

  static KeyRing keys() {
    return new MemoryKeyRing(AccessKeys.of(Map.of(KEY_ID, SECRET)).principals());
  }

  static SqsEndpoint sqsEndpoint(QueueEngine engine, KeyRing keys) {
    engine.createQueue("bench-queue", QueueConfig.defaults());
    return SqsEndpoint.create(engine, keys, SqsAccount.DEFAULT, ManualClock.at(NOW));
  }

  /**
   * {@link SigV4VerifierBenchmark#sdkV2SendMessage}'s request, its headers written out and parsed
   * by Helidon, seen through {@link SignedCalls.HeaderView} as the server sees them.
   */
  static SqsHttpRequest sqsSendMessage() {
    SqsHttpRequest signed = SigV4VerifierBenchmark.sdkV2SendMessage();
    StringBuilder block = new StringBuilder();
    signed
        .headers()
        .forEach(
            (name, values) -> block.append(name).append(": ").append(values.get(0)).append("\r\n"));
    ServerRequestHeaders parsed = parse(block.append("\r\n").toString());
    return new SqsHttpRequest(
        signed.method(),
        signed.rawPath(),
        signed.rawQuery(),
        new SignedCalls.HeaderView(parsed),
        signed.body());
  }

  /** The Java client's {@code POST /v1/noop}, with no credentials, Basic, or signed. */
  static ServerRequest nativeNoop(String auth) {
    byte[] body = new byte[100];
    Arrays.fill(body, (byte) 'x');
    byte[] json = "{\"payload\":\"".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(json, 0, body, 0, json.length);
    body[98] = '"';
    body[99] = '}';
    StringBuilder block =
        new StringBuilder(
            "Content-Length: 100\r\n"
                + "Host: 127.0.0.1:8080\r\n"
                + "User-Agent: Java-http-client/25.0.3\r\n"
                + "Accept: application/json\r\n"
                + "Content-Type: application/json\r\n");
    switch (auth) {
      case "basic" ->
          block
              .append("Authorization: Basic ")
              .append(
                  Base64.getEncoder()
                      .encodeToString((KEY_ID + ":" + SECRET).getBytes(StandardCharsets.UTF_8)))
              .append("\r\n");
      case "sigv4" ->
          new SigV4Signer(Credentials.of(KEY_ID, SECRET), "us-east-1")
              .sign("POST", NOOP, body, NOW)
              .forEach((n, v) -> block.append(n).append(": ").append(v).append("\r\n"));
      default -> {}
    }
    ServerRequestHeaders headers = parse(block.append("\r\n").toString());
    return request(headers, body);
  }

  private static ServerRequestHeaders parse(String block) {
    byte[][] once = {block.getBytes(StandardCharsets.US_ASCII)};
    DataReader reader =
        DataReader.create(
            () -> {
              byte[] b = once[0];
              once[0] = null;
              return b;
            });
    return ServerRequestHeaders.create(Http1HeadersParser.readHeaders(reader, 16_384, true));
  }

  /**
   * A Helidon request over plain HTTP from a loopback peer with {@code headers} and {@code body},
   * answering what the authentication step asks of it (the rest is never called).
   */
  private static ServerRequest request(ServerRequestHeaders headers, byte[] body) {
    HttpPrologue prologue =
        HttpPrologue.create("HTTP/1.1", "HTTP", "1.1", Method.POST, "/v1/noop", false);
    UriQuery query = UriQuery.empty();
    InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 50_000);
    PeerInfo peer =
        proxy(
            PeerInfo.class,
            (m, a) ->
                switch (m) {
                  case "address" -> loopback;
                  case "tlsPrincipal" -> Optional.empty();
                  case "tlsCertificates" -> Optional.empty();
                  default -> null;
                });
    RoutedPath path =
        proxy(
            RoutedPath.class,
            (m, a) ->
                switch (m) {
                  case "rawPath", "path" -> "/v1/noop";
                  default -> null;
                });
    return proxy(
        ServerRequest.class,
        (m, a) ->
            switch (m) {
              case "headers" -> headers;
              case "prologue" -> prologue;
              case "path" -> path;
              case "query" -> query;
              case "isSecure" -> false;
              case "remotePeer" -> peer;
              case "content" -> entity(body);
              default -> throw new UnsupportedOperationException(m + " (benchmark request)");
            });
  }

  private static ReadableEntity entity(byte[] body) {
    return proxy(
        ReadableEntity.class,
        (m, a) ->
            switch (m) {
              case "hasEntity" -> true;
              case "inputStream" -> new ByteArrayInputStream(body);
              default -> throw new UnsupportedOperationException(m + " (benchmark entity)");
            });
  }

  private interface Answer {
    @Nullable Object of(String method, Object[] args);
  }

  private static <T> T proxy(Class<T> type, Answer answer) {
    return type.cast(
        java.lang.reflect.Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, m, a) -> {
              if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                  case "hashCode" -> System.identityHashCode(p);
                  case "equals" -> p == a[0];
                  default -> type.getSimpleName() + " (benchmark)";
                };
              }
              return answer.of(m.getName(), a);
            }));
  }
}
