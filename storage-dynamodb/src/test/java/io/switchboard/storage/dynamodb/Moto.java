package io.switchboard.storage.dynamodb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * moto's DynamoDB in server mode, serving one request at a time ({@code moto_serial.py}), started
 * once per test JVM on a port the operating system picks and stopped when the JVM exits. A test
 * class extended with this is skipped, loudly, when Python 3 cannot import moto (the machine image
 * has it; {@code .ci/run} warns when it does not). Amazon's DynamoDB Local is not used: its licence
 * does not allow it here.
 *
 * <p>moto slows down as its tables grow, so each test takes a table prefix of its own ({@link
 * #prefix}). Public, in this module's test jar, for the server's tests of several servers over one
 * table.
 */
public final class Moto implements BeforeAllCallback {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  private static @Nullable URI endpoint;
  private static @Nullable String unavailable;

  @Override
  public void beforeAll(ExtensionContext context) {
    String why = start();
    if (why != null) {
      System.err.println("!!!!! " + why + ": " + context.getDisplayName() + " SKIPPED !!!!!");
    }
    Assumptions.assumeTrue(why == null, why);
  }

  /** The running emulator's URL (for a server's {@code dynamodb-endpoint}). */
  public static URI endpoint() {
    URI at = endpoint;
    if (at == null) {
      throw new IllegalStateException("moto is not running: extend the test with Moto");
    }
    return at;
  }

  /** A client of the running emulator, in us-east-1, with test credentials. */
  static DynamoDbClient client() {
    return client(new ExecutionInterceptor[0]);
  }

  /** As {@link #client()}, with interceptors that see (and may fail) every request. */
  static DynamoDbClient client(ExecutionInterceptor... interceptors) {
    URI at = endpoint;
    if (at == null) {
      throw new IllegalStateException("moto is not running: extend the test with Moto");
    }
    return DynamoDbClient.builder()
        .overrideConfiguration(c -> List.of(interceptors).forEach(c::addExecutionInterceptor))
        .endpointOverride(at)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .build();
  }

  /** A table prefix no other test of this JVM has. */
  public static String prefix() {
    return "t" + PREFIXES.incrementAndGet() + "_";
  }

  /** Starts the emulator once; answers why it cannot run, or null once it does. */
  private static synchronized @Nullable String start() {
    if (endpoint != null || unavailable != null) {
      return unavailable;
    }
    try {
      Process check =
          new ProcessBuilder("python3", "-c", "import moto.server, werkzeug")
              .redirectErrorStream(true)
              .start();
      String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!check.waitFor(60, TimeUnit.SECONDS) || check.exitValue() != 0) {
        return unavailable = "python3 cannot import moto (" + said.strip() + ")";
      }
      Path dir = Files.createTempDirectory("moto");
      Path script = dir.resolve("moto_serial.py");
      try (InputStream in = Moto.class.getResourceAsStream("moto_serial.py")) {
        if (in == null) {
          throw new IOException("moto_serial.py is not on the class path");
        }
        Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      }
      Path log = dir.resolve("moto.log");
      Process moto =
          new ProcessBuilder(List.of("python3", script.toString()))
              .redirectError(log.toFile())
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(moto::destroyForcibly, "moto-stop"));
      BufferedReader out =
          new BufferedReader(new InputStreamReader(moto.getInputStream(), StandardCharsets.UTF_8));
      String first;
      try {
        first = CompletableFuture.supplyAsync(() -> line(out)).get(120, TimeUnit.SECONDS);
      } catch (TimeoutException | ExecutionException e) {
        first = null;
      }
      if (first == null || !first.startsWith("port=")) {
        moto.destroyForcibly();
        return unavailable =
            "moto did not start (it said "
                + first
                + "; "
                + Files.readString(log).strip().lines().reduce((a, b) -> b).orElse("")
                + ")";
      }
      endpoint = URI.create("http://127.0.0.1:" + Integer.parseInt(first.substring(5).strip()));
      return null;
    } catch (IOException e) {
      return unavailable = "cannot run python3 for moto: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unavailable = "interrupted while starting moto";
    }
  }

  private static @Nullable String line(BufferedReader out) {
    try {
      return out.readLine();
    } catch (IOException e) {
      return null;
    }
  }
}
