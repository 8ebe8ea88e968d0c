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
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * moto's DynamoDB in server mode behind {@code moto_serial.py}, which serves one request at a time
 * (stock moto_server lets two conditional writes of one item both pass: {@code MotoSerialTest}), on
 * a port the operating system picks; stopped by {@link #close} or when the JVM exits. The one
 * launcher of this module's tests ({@link Moto}, once per test JVM) and of the bench ({@code
 * bench/run.sh dynamodb}), which takes it from this module's test jar; it needs no JUnit. Python 3
 * with moto is needed: {@link #unavailable} says why it cannot run.
 */
public final class MotoProcess implements AutoCloseable {

  private final Process process;
  private final URI endpoint;
  private final Path dir;

  private MotoProcess(Process process, URI endpoint, Path dir) {
    this.process = process;
    this.endpoint = endpoint;
    this.dir = dir;
  }

  /** Why moto cannot run here (python3 or moto missing), or null when it can. */
  public static @Nullable String unavailable() {
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
      return "interrupted while looking for moto";
    }
  }

  /**
   * Starts moto and waits until it listens.
   *
   * @throws IllegalStateException when it cannot run here or did not start within two minutes,
   *     saying why (pip install 'moto[server]' for python3)
   */
  public static MotoProcess start() throws IOException {
    String why = unavailable();
    if (why != null) {
      throw new IllegalStateException(
          "moto cannot run: " + why + " (pip install 'moto[server]' for python3)");
    }
    Path dir = Files.createTempDirectory("moto");
    Path script = dir.resolve("moto_serial.py");
    try (InputStream in = MotoProcess.class.getResourceAsStream("moto_serial.py")) {
      if (in == null) {
        throw new IllegalStateException(
            "moto_serial.py is not on the class path (the DynamoDB store's test jar)");
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    Path log = dir.resolve("moto.log");
    Process moto =
        new ProcessBuilder(List.of("python3", script.toString()))
            .redirectError(log.toFile())
            .start();
    // stopped with the JVM too, when it ends before close (killed, interrupted, never closed)
    Runtime.getRuntime().addShutdownHook(new Thread(moto::destroyForcibly, "moto-stop"));
    BufferedReader out =
        new BufferedReader(new InputStreamReader(moto.getInputStream(), StandardCharsets.UTF_8));
    String first;
    try {
      first = CompletableFuture.supplyAsync(() -> line(out)).get(120, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      first = null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      first = null;
    }
    if (first == null || !first.startsWith("port=")) {
      moto.destroyForcibly();
      throw new IllegalStateException(
          "moto did not start (it said "
              + first
              + "; "
              + log
              + " ends: "
              + Files.readString(log).strip().lines().reduce((a, b) -> b).orElse("")
              + ")");
    }
    URI at = URI.create("http://127.0.0.1:" + Integer.parseInt(first.substring(5).strip()));
    return new MotoProcess(moto, at, dir);
  }

  private static @Nullable String line(BufferedReader out) {
    try {
      return out.readLine();
    } catch (IOException e) {
      return null;
    }
  }

  /** The emulator's URL (for a server's {@code dynamodb-endpoint}). */
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

  /** Stops moto and deletes its script and log. */
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
