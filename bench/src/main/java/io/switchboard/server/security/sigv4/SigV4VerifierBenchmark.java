package io.switchboard.server.security.sigv4;

import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The SigV4 verifier alone ({@link SigV4Verifier}), on two signed requests with a cached signing
 * key. (The before/after figures in docs/benchmarks.md were measured at commit 7fac4cf, which also
 * held a frozen copy of the verifier of 1a037eb as a second benchmark; check it out to repeat them.
 * The copy is not kept beside the real verifier: two copies of security code drift.)
 *
 * <ul>
 *   <li>{@code sqs-sdk-v2}: an AWS SDK for Java v2 {@code SendMessage} in the JSON protocol, with
 *       the headers and signed-header list that SDK sends;
 *   <li>{@code native}: the Java client's {@code POST /v1/noop} with a 100-byte JSON body, signed
 *       over {@code host;x-amz-date} as its {@code SigV4Signer} does (until 2026-11-26 it also
 *       signed and sent {@code x-amz-content-sha256}).
 * </ul>
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar SigV4VerifierBenchmark -prof gc
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
public class SigV4VerifierBenchmark {

  static final String KEY_ID = "AKIDBENCHMARK";
  static final String SECRET = "bench-secret-0123456789abcdefghijklmnopqrstu";
  static final Instant NOW = Instant.parse("2026-11-25T21:00:00Z");
  static final String AMZ_DATE = "20261125T210000Z";
  static final String SCOPE = "20261125/us-east-1/sqs/aws4_request";

  @Param({"sqs-sdk-v2", "native"})
  public String request;

  private SqsHttpRequest signed;
  private SigV4Verifier verifier;

  @Setup(Level.Trial)
  public void setUp() {
    signed = request.equals("native") ? nativeNoop() : sdkV2SendMessage();
    MemoryKeyRing keys = new MemoryKeyRing(AccessKeys.of(Map.of(KEY_ID, SECRET)).principals());
    verifier = new SigV4Verifier(keys, java.util.Set.of("sqs", "switchboard"), ManualClock.at(NOW));
    // verified once (and so the signing key cached) before measuring
    if (verifier.verify(signed).isEmpty()) {
      throw new IllegalStateException("the benchmark's request does not verify");
    }
  }

  @Benchmark
  public Optional<Principal> verify() {
    return verifier.verify(signed);
  }

  /** SendMessage as the AWS SDK for Java v2 (2.3x, JSON protocol) sends and signs it. */
  public static SqsHttpRequest sdkV2SendMessage() {
    byte[] body =
        ("{\"QueueUrl\":\"http://127.0.0.1:9324/000000000000/bench-queue\","
                + "\"MessageBody\":\"hello from the benchmark, a message of about a hundred bytes"
                + " like the sqs entry sends\"}")
            .getBytes(StandardCharsets.UTF_8);
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("amz-sdk-invocation-id", List.of("3f1c2a9e-7b4d-4e0f-9a61-0c8d2b5e7f13"));
    h.put("amz-sdk-request", List.of("attempt=1; max=4"));
    h.put("content-length", List.of(Integer.toString(body.length)));
    h.put("content-type", List.of("application/x-amz-json-1.0"));
    h.put("host", List.of("127.0.0.1:9324"));
    h.put(
        "user-agent",
        List.of(
            "aws-sdk-java/2.38.2 md/io#sync md/http#Apache ua/2.1 os/Linux#6.8.0 lang/java#25.0.3"
                + " md/OpenJDK_64-Bit_Server_VM#25.0.3+9-LTS md/vendor#Eclipse_Adoptium"
                + " md/en_US m/D,N,e"));
    h.put("x-amz-date", List.of(AMZ_DATE));
    h.put("x-amz-target", List.of("AmazonSQS.SendMessage"));
    h.put("x-amzn-query-mode", List.of("true"));
    List<String> signedHeaders =
        List.of(
            "amz-sdk-invocation-id",
            "amz-sdk-request",
            "content-length",
            "content-type",
            "host",
            "x-amz-date",
            "x-amz-target",
            "x-amzn-query-mode");
    return sign("POST", "/", h, signedHeaders, body, SCOPE);
  }

  /** {@code POST /v1/noop} as the Java client signs it. */
  static SqsHttpRequest nativeNoop() {
    byte[] body = new byte[100];
    byte[] json = "{\"payload\":\"".getBytes(StandardCharsets.UTF_8);
    java.util.Arrays.fill(body, (byte) 'x');
    System.arraycopy(json, 0, body, 0, json.length);
    body[98] = '"';
    body[99] = '}';
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("content-type", List.of("application/json"));
    h.put("content-length", List.of("100"));
    h.put("host", List.of("127.0.0.1:8080"));
    h.put("user-agent", List.of("Java-http-client/25.0.3"));
    h.put("x-amz-date", List.of(AMZ_DATE));
    return sign(
        "POST",
        "/v1/noop",
        h,
        List.of("host", "x-amz-date"),
        body,
        "20261125/us-east-1/switchboard/aws4_request");
  }

  private static SqsHttpRequest sign(
      String method,
      String path,
      Map<String, List<String>> h,
      List<String> signedHeaders,
      byte[] body,
      String scope) {
    String signature =
        SigV4.signature(
            SECRET,
            AMZ_DATE,
            scope,
            new SigV4.Request(method, path, "", h, signedHeaders, SigV4.hex(SigV4.sha256(body))));
    h.put(
        "authorization",
        List.of(
            SigV4.ALGORITHM
                + " Credential="
                + KEY_ID
                + "/"
                + scope
                + ", SignedHeaders="
                + String.join(";", signedHeaders)
                + ", Signature="
                + signature));
    return new SqsHttpRequest(method, path, "", h, body);
  }
}
