package io.switchboard.server.sqs;

import com.amazonaws.ClientConfiguration;
import com.amazonaws.auth.AWSStaticCredentialsProvider;
import com.amazonaws.auth.BasicAWSCredentials;
import com.amazonaws.client.builder.AwsClientBuilder.EndpointConfiguration;
import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.AmazonSQSClientBuilder;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Stock AWS SDK clients for a server, signing with a given key. */
final class SqsClients {

  private SqsClients() {}

  /** SDK v2 (the JSON protocol); the caller closes it. */
  static SqsClient v2(URI endpoint, String keyId, String secret) {
    return v2(endpoint, "us-east-1", keyId, secret);
  }

  /** SDK v2 signing for {@code region}; the caller closes it. */
  static SqsClient v2(URI endpoint, String region, String keyId, String secret) {
    return SqsClient.builder()
        .endpointOverride(endpoint)
        .region(Region.of(region))
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)))
        .overrideConfiguration(
            ClientOverrideConfiguration.builder().apiCallTimeout(Duration.ofSeconds(30)).build())
        .build();
  }

  /** SDK v1 at its last query-protocol release; the caller shuts it down. */
  static AmazonSQS v1(URI endpoint, String keyId, String secret) {
    return v1(endpoint, "us-east-1", keyId, secret);
  }

  /** SDK v1 signing for {@code region}; the caller shuts it down. */
  static AmazonSQS v1(URI endpoint, String region, String keyId, String secret) {
    return AmazonSQSClientBuilder.standard()
        .withEndpointConfiguration(new EndpointConfiguration(endpoint.toString(), region))
        .withCredentials(new AWSStaticCredentialsProvider(new BasicAWSCredentials(keyId, secret)))
        .withClientConfiguration(new ClientConfiguration().withSocketTimeout(30_000))
        .build();
  }

  /** SDK v1 with any key, for a server that does not verify signatures. */
  static AmazonSQS v1(SqsServer fixture) {
    return v1(fixture.server.uri(), "fake", "fake");
  }
}
