package io.switchboard.server.sqs;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.server.ServerConfig;
import io.switchboard.server.SwitchboardServer;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/** An in-process server on a random port and a stock AWS SDK v2 client pointed at it. */
final class SqsServer implements AutoCloseable {

  final SwitchboardServer server;
  final SqsClient sqs;
  private final SwitchboardClient nativeApi;

  SqsServer() {
    server = SwitchboardServer.start(ServerConfig.forTests());
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

  /** Long polls blocked on the queue, read through the native API. */
  int waitingReceivers(String queue) {
    return nativeApi.stats(queue).waitingReceivers();
  }

  String url(String name) {
    return server.uri() + "/000000000000/" + name;
  }

  @Override
  public void close() {
    sqs.close();
    nativeApi.close();
    server.stop();
  }
}
