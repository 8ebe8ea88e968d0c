package io.switchboard.server.sqs;

import com.amazonaws.ClientConfiguration;
import com.amazonaws.auth.AWSStaticCredentialsProvider;
import com.amazonaws.auth.BasicAWSCredentials;
import com.amazonaws.client.builder.AwsClientBuilder.EndpointConfiguration;
import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.AmazonSQSClientBuilder;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.server.ServerConfig;
import io.switchboard.server.SwitchboardServer;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * An in-process server on a random port and stock AWS SDK clients pointed at it: v2 (the JSON
 * protocol) and, on demand, v1 (the query protocol).
 */
final class SqsServer implements AutoCloseable {

  final SwitchboardServer server;
  final SqsClient sqs;
  private final SwitchboardClient nativeApi;

  SqsServer() {
    this(ServerConfig.forTests());
  }

  SqsServer(ServerConfig config) {
    server = SwitchboardServer.start(config);
    sqs = v2("fake", "fake");
    nativeApi = SwitchboardClient.create(server.uri());
  }

  /** A v2 client signing with the given key; the caller closes it. */
  SqsClient v2(String keyId, String secret) {
    return SqsClient.builder()
        .endpointOverride(server.uri())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)))
        .overrideConfiguration(
            ClientOverrideConfiguration.builder().apiCallTimeout(Duration.ofSeconds(30)).build())
        .build();
  }

  /** A v1 client (query protocol) signing with the given key; the caller shuts it down. */
  AmazonSQS v1(String keyId, String secret) {
    return AmazonSQSClientBuilder.standard()
        .withEndpointConfiguration(new EndpointConfiguration(server.uri().toString(), "us-east-1"))
        .withCredentials(new AWSStaticCredentialsProvider(new BasicAWSCredentials(keyId, secret)))
        .withClientConfiguration(new ClientConfiguration().withSocketTimeout(30_000))
        .build();
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
