package io.switchboard.server.sqs;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.server.EngineFactory;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * An in-process server on a random port and a stock AWS SDK v2 client pointed at it. As a JUnit
 * extension in a static field ({@code @RegisterExtension static final SqsServer fixture = new
 * SqsServer();}) it serves the whole class and is closed after it.
 */
final class SqsServer implements AutoCloseable, AfterAllCallback {

  final SwitchboardServer server;
  final SqsClient sqs;
  private final SwitchboardClient nativeApi;

  SqsServer() {
    this(SwitchboardServer.start(ServerConfig.forTests()));
  }

  /** A server with the engine {@code factory} opens, e.g. one on a manual clock. */
  SqsServer(EngineFactory factory) {
    this(SwitchboardServer.start(ServerConfig.forTests(), factory));
  }

  /** A durable server keeping its store in {@code dataDir}. */
  SqsServer(Path dataDir) {
    this(
        SwitchboardServer.start(
            ServerConfig.resolve(
                Map.of("port", "0", "data-dir", dataDir.toString(), "durability", "sync"),
                Map.of())));
  }

  /** A server with {@code config} (e.g. with limits set low). */
  SqsServer(ServerConfig config) {
    this(SwitchboardServer.start(config));
  }

  private SqsServer(SwitchboardServer server) {
    this.server = server;
    sqs =
        SqsClient.builder()
            .endpointOverride(server.uri())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("fake", "fake")))
            .overrideConfiguration(
                ClientOverrideConfiguration.builder()
                    .apiCallTimeout(Duration.ofSeconds(30))
                    .build())
            .build();
    nativeApi = SwitchboardClient.create(server.uri());
  }

  /** The native API client of the same server. */
  SwitchboardClient nativeApi() {
    return nativeApi;
  }

  /** Long polls blocked on the queue, read through the native API. */
  int waitingReceivers(String queue) {
    return nativeApi.stats(queue).waitingReceivers();
  }

  String url(String name) {
    return server.uri() + "/000000000000/" + name;
  }

  /** Creates standard queue {@code name} through the SDK; its URL. */
  String createQueue(String name) {
    return sqs.createQueue(b -> b.queueName(name)).queueUrl();
  }

  /**
   * Creates FIFO queue {@code name} (with content-based deduplication) through the SDK; its URL.
   */
  String createFifoQueue(String name) {
    return sqs.createQueue(
            b ->
                b.queueName(name)
                    .attributes(
                        Map.of(
                            QueueAttributeName.FIFO_QUEUE,
                            "true",
                            QueueAttributeName.CONTENT_BASED_DEDUPLICATION,
                            "true")))
        .queueUrl();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  @Override
  public void close() {
    sqs.close();
    nativeApi.close();
    server.stop();
  }
}
