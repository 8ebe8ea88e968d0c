package io.switchboard.server;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.Http1HeadersParser;
import io.helidon.http.ServerRequestHeaders;
import io.switchboard.client.Credentials;
import io.switchboard.client.SigV4Signer;
import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.security.Authentication;
import io.switchboard.server.security.SignedCalls;
import io.switchboard.server.security.sigv4.SigV4Verifier;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.ManualClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The server side of a SigV4-signed native request, from the header bytes on: what a signed {@code
 * POST /v1/noop} costs the server more than an unsigned one, without the network, the route and the
 * response that both share.
 *
 * <ul>
 *   <li>{@code unsigned}: Helidon parses the header block the JDK's HTTP client sends for the Java
 *       client's {@code POST /v1/noop} without credentials;
 *   <li>{@code signed}: Helidon parses the same block signed by the client's {@link SigV4Signer}
 *       ({@code Authorization}, {@code X-Amz-Date}, and whatever else it adds), then the server
 *       verifies it as {@link Authentication} does: the request seen through {@link
 *       SignedCalls.HeaderView}, checked by a {@link SigV4Verifier} (signing key cached, as after a
 *       server's first signed request).
 * </ul>
 *
 * {@code signed − unsigned} is the server-side cost of SigV4 per native request but for reading the
 * route's body (both read it). Each invocation parses fresh bytes, as each request does.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar SignedRequestBenchmark -prof gc
 * </pre>
 *
 * See docs/benchmarks.md, "Cost of authentication".
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// @NullMarked on the class, not the package: a package-info here would mark the server's package
// too, which is not NullAway-checked yet
@NullMarked
public class SignedRequestBenchmark {

  static final String KEY_ID = "AKIDBENCHMARK";
  static final String SECRET = "bench-secret-0123456789abcdefghijklmnopqrstu";
  static final Instant NOW = Instant.parse("2026-11-25T21:00:00Z");
  static final URI URI_NOOP = URI.create("http://127.0.0.1:8080/v1/noop");

  private byte[] unsigned;
  private byte[] signed;
  private byte[] body;
  private SigV4Verifier verifier;

  @Setup
  public void setUp() {
    body = new byte[100];
    Arrays.fill(body, (byte) 'x');
    byte[] json = "{\"payload\":\"".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(json, 0, body, 0, json.length);
    body[98] = '"';
    body[99] = '}';
    // as the JDK's HTTP/1.1 client sends the Java client's no-op (after the request line)
    String common =
        "Content-Length: 100\r\n"
            + "Host: 127.0.0.1:8080\r\n"
            + "User-Agent: Java-http-client/25.0.3\r\n"
            + "Accept: application/json\r\n"
            + "Content-Type: application/json\r\n";
    unsigned = (common + "\r\n").getBytes(StandardCharsets.US_ASCII);
    StringBuilder block = new StringBuilder(common);
    Map<String, String> auth =
        new SigV4Signer(Credentials.of(KEY_ID, SECRET), "us-east-1")
            .sign("POST", URI_NOOP, body, NOW);
    auth.forEach((name, value) -> block.append(name).append(": ").append(value).append("\r\n"));
    signed = block.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    MemoryKeyRing keys = new MemoryKeyRing(AccessKeys.of(Map.of(KEY_ID, SECRET)).principals());
    verifier = new SigV4Verifier(keys, Set.of("switchboard", "sqs"), ManualClock.at(NOW));
    if (signed().isEmpty()) { // and so the signing key cached
      throw new IllegalStateException("the benchmark's request does not verify");
    }
  }

  private static ServerRequestHeaders parse(byte[] block) {
    byte[][] once = {block};
    DataReader reader =
        DataReader.create(
            () -> {
              byte[] b = once[0];
              once[0] = null;
              return b;
            });
    return ServerRequestHeaders.create(Http1HeadersParser.readHeaders(reader, 16_384, true));
  }

  @Benchmark
  public ServerRequestHeaders unsigned() {
    return parse(unsigned);
  }

  @Benchmark
  public Optional<Principal> signed() {
    ServerRequestHeaders headers = parse(signed);
    return verifier.verify(
        new SqsHttpRequest("POST", "/v1/noop", "", new SignedCalls.HeaderView(headers), body));
  }
}
