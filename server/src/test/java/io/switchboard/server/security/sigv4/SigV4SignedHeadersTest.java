package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.sqs.SigV4Requests;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A SigV4 signature must cover {@code host}, and on the SQS JSON protocol {@code x-amz-target}, as
 * AWS requires: a signature over {@code host;x-amz-date} alone let whoever saw a {@code
 * GetQueueAttributes} turn it into a {@code PurgeQueue} that still verified. The stock SDK (which
 * signs both) keeps working.
 */
class SigV4SignedHeadersTest {

  private static final String KEY = "AKADMIN";
  private static final String SECRET = "admin-pw";

  private static SwitchboardServer server;
  private static SqsClient sqs;
  private static String url;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.forTests().withAccessKeys(AccessKeys.parse(KEY + ":" + SECRET)));
    sqs =
        SqsClient.builder()
            .endpointOverride(server.uri())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, SECRET)))
            .build();
    url = sqs.createQueue(r -> r.queueName("kept")).queueUrl();
    sqs.sendMessage(r -> r.queueUrl(url).messageBody("must survive"));
  }

  @AfterAll
  static void stop() {
    sqs.close();
    server.stop();
  }

  /**
   * Sends {@code target} with a JSON body, signed for {@code service} over the headers {@code
   * signed} only (of {@code host}, {@code x-amz-date}, {@code x-amz-target}).
   */
  private static HttpResponse<String> send(
      String path, String target, String body, String service, List<String> signed) {
    String amzDate = SigV4Requests.amzDate(Instant.now());
    String host = server.uri().getAuthority();
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("host", List.of(host));
    headers.put("x-amz-date", List.of(amzDate));
    if (target != null) {
      headers.put("x-amz-target", List.of(target));
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String scope = amzDate.substring(0, 8) + "/us-east-1/" + service + "/aws4_request";
    String signature =
        SigV4.signature(
            SECRET,
            amzDate,
            scope,
            new SigV4.Request(
                target == null ? "GET" : "POST",
                path,
                "",
                headers,
                signed,
                SigV4.hex(SigV4.sha256(bytes))));
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.uri() + path))
            .header("X-Amz-Date", amzDate)
            .header(
                "Authorization",
                SigV4.ALGORITHM
                    + " Credential="
                    + KEY
                    + "/"
                    + scope
                    + ", SignedHeaders="
                    + String.join(";", signed)
                    + ", Signature="
                    + signature);
    if (target != null) {
      b.header("X-Amz-Target", target)
          .header("Content-Type", "application/x-amz-json-1.0")
          .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
    } else {
      b.GET();
    }
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String messages() {
    return sqs.getQueueAttributes(
            r -> r.queueUrl(url).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
        .attributes()
        .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES);
  }

  @Test
  void aTargetOutsideTheSignature_isRefused_andCannotBeChanged() {
    String body = "{\"QueueUrl\":\"" + url + "\"}";
    // what an observer would do with a GetQueueAttributes signed over host;x-amz-date
    HttpResponse<String> purge =
        send("/", "AmazonSQS.PurgeQueue", body, "sqs", List.of("host", "x-amz-date"));

    assertEquals(403, purge.statusCode(), purge.body());
    assertTrue(purge.body().contains("SignatureDoesNotMatch"), purge.body());
    assertTrue(purge.body().contains("x-amz-target"), purge.body());
    assertTrue(purge.headers().firstValue("x-amzn-RequestId").isPresent());
    assertEquals("1", messages(), "nothing was purged");
  }

  @Test
  void aSignatureWithoutHost_isRefused_namingIt() {
    String body = "{\"QueueUrl\":\"" + url + "\"}";
    HttpResponse<String> r =
        send(
            "/",
            "AmazonSQS.GetQueueAttributes",
            body,
            "sqs",
            List.of("x-amz-date", "x-amz-target"));

    assertEquals(403, r.statusCode(), r.body());
    assertTrue(r.body().contains("SignatureDoesNotMatch"), r.body());
    assertTrue(r.body().contains("'host'"), r.body());
  }

  @Test
  void aSignatureOverHostAndTarget_isServed() {
    String body = "{\"QueueUrl\":\"" + url + "\",\"AttributeNames\":[\"All\"]}";
    HttpResponse<String> r =
        send(
            "/",
            "AmazonSQS.GetQueueAttributes",
            body,
            "sqs",
            List.of("host", "x-amz-date", "x-amz-target"));
    assertEquals(200, r.statusCode(), r.body());
  }

  @Test
  void theNativeApi_refusesASignatureWithoutHost_andServesOneWithIt() {
    HttpResponse<String> without =
        send("/v1/queues", null, "", "switchboard", List.of("x-amz-date"));
    assertEquals(401, without.statusCode(), without.body());
    assertTrue(without.body().contains("UNAUTHENTICATED"), without.body());
    assertTrue(without.body().contains("'host'"), without.body());

    HttpResponse<String> with =
        send("/v1/queues", null, "", "switchboard", List.of("host", "x-amz-date"));
    assertEquals(200, with.statusCode(), with.body());
  }
}
