package io.switchboard.storage.dynamodb;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * moto's DynamoDB for the tests: one {@link MotoProcess} (serving one request at a time) started
 * once per test JVM and stopped when the JVM exits. A test class extended with this is skipped,
 * loudly, when Python 3 cannot import moto (the machine image has it; {@code .ci/run} warns when it
 * does not). Amazon's DynamoDB Local is not used: its licence does not allow it here.
 *
 * <p>moto slows down as its tables grow, so each test takes a table prefix of its own ({@link
 * #prefix}). Public, in this module's test jar, for the server's tests of several servers over one
 * table.
 */
public final class Moto implements BeforeAllCallback {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  private static @Nullable MotoProcess running;
  private static @Nullable String unavailable;

  @Override
  public void beforeAll(ExtensionContext context) {
    String why = start();
    if (why != null) {
      System.err.println("!!!!! " + why + ": " + context.getDisplayName() + " SKIPPED !!!!!");
    }
    Assumptions.assumeTrue(why == null, why);
  }

  private static MotoProcess running() {
    MotoProcess at = running;
    if (at == null) {
      throw new IllegalStateException("moto is not running: extend the test with Moto");
    }
    return at;
  }

  /** The running emulator's URL (for a server's {@code dynamodb-endpoint}). */
  public static URI endpoint() {
    return running().endpoint();
  }

  /** A client of the running emulator, in us-east-1, with test credentials. */
  static DynamoDbClient client() {
    return client(new ExecutionInterceptor[0]);
  }

  /** As {@link #client()}, with interceptors that see (and may fail) every request. */
  static DynamoDbClient client(ExecutionInterceptor... interceptors) {
    return running().client(interceptors);
  }

  /** A table prefix no other test of this JVM has. */
  public static String prefix() {
    return "t" + PREFIXES.incrementAndGet() + "_";
  }

  /** Starts the emulator once; answers why it cannot run, or null once it does. */
  private static synchronized @Nullable String start() {
    if (running != null || unavailable != null) {
      return unavailable;
    }
    try {
      running = MotoProcess.start();
      return null;
    } catch (IllegalStateException e) {
      return unavailable = e.getMessage();
    } catch (IOException e) {
      return unavailable = "cannot run python3 for moto: " + e.getMessage();
    }
  }
}
