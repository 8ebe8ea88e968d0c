package io.switchboard.bench.dynamodb;

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
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * moto's DynamoDB in server mode behind the store's one-request-at-a-time wrapper ({@code
 * moto_serial.py} from the store's test harness, the same the store's tests run on), on a port the
 * operating system picks; stopped by {@link #close}. Python 3 with moto is needed ({@link
 * #unavailable} says why it cannot start).
 */
public final class MotoServer implements AutoCloseable {

  private static final String SCRIPT = "/io/switchboard/storage/dynamodb/moto_serial.py";

  private final Process process;
  private final URI endpoint;
  private final Path dir;

  private MotoServer(Process process, URI endpoint, Path dir) {
    this.process = process;
    this.endpoint = endpoint;
    this.dir = dir;
  }

  /** Why moto cannot run here (python3 or moto missing), or null when it can. */
  public static @org.jspecify.annotations.Nullable String unavailable() {
    try {
      Process check =
          new ProcessBuilder("python3", "-c", "import moto.server, werkzeug")
              .redirectErrorStream(true)
              .start();
      String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!check.waitFor(60, TimeUnit.SECONDS)) {
        check.destroyForcibly();
        return "python3 did not answer within 60 s";
      }
      return check.exitValue() == 0 ? null : "python3 cannot import moto (" + said.strip() + ")";
    } catch (IOException e) {
      return "cannot run python3: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /**
   * Starts moto and waits until it listens.
   *
   * @throws IllegalStateException if it cannot run here or does not start within two minutes
   */
  public static MotoServer start() throws IOException, InterruptedException {
    String why = unavailable();
    if (why != null) {
      throw new IllegalStateException(
          "moto cannot run: " + why + " (pip install 'moto[server]' for python3)");
    }
    Path dir = Files.createTempDirectory("bench-moto");
    Path script = dir.resolve("moto_serial.py");
    try (InputStream in = MotoServer.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(
            SCRIPT + " is not on the class path (the store's test jar)");
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    Path log = dir.resolve("moto.log");
    Process moto =
        new ProcessBuilder(List.of("python3", script.toString()))
            .redirectError(log.toFile())
            .start();
    // stopped with the JVM too, when it ends before close (killed, interrupted)
    Runtime.getRuntime().addShutdownHook(new Thread(moto::destroyForcibly, "bench-moto-stop"));
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
      throw new IllegalStateException(
          "moto did not start (it said "
              + first
              + "; see "
              + log
              + ": "
              + Files.readString(log).strip()
              + ")");
    }
    URI at = URI.create("http://127.0.0.1:" + Integer.parseInt(first.substring(5).strip()));
    return new MotoServer(moto, at, dir);
  }

  private static @org.jspecify.annotations.Nullable String line(BufferedReader out) {
    try {
      return out.readLine();
    } catch (IOException e) {
      return null;
    }
  }

  public URI endpoint() {
    return endpoint;
  }

  /** A client of this moto, in us-east-1 with test credentials, with the given interceptors. */
  public DynamoDbClient client(ExecutionInterceptor... interceptors) {
    return DynamoDbClient.builder()
        .overrideConfiguration(c -> List.of(interceptors).forEach(c::addExecutionInterceptor))
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .build();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.deleteIfExists(p);
      }
    }
    Files.deleteIfExists(dir);
  }
}
