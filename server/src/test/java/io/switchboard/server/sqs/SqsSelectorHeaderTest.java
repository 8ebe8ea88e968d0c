package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The selector extension as the {@code X-Switchboard-Selector} request header, added the way each
 * SDK family lets a caller add a header: SDK v2's request override configuration (JSON protocol)
 * and SDK v1's custom request headers (query protocol).
 */
class SqsSelectorHeaderTest {

  private static final String HEADER = "X-Switchboard-Selector";
  private static SqsServer fixture;
  private static AmazonSQS v1;

  @BeforeAll
  static void start() {
    fixture = new SqsServer();
    v1 = SqsClients.v1(fixture);
  }

  @AfterAll
  static void stop() {
    v1.shutdown();
    fixture.close();
  }

  private static String queueWithLanguages(String name) {
    String url = fixture.sqs.createQueue(b -> b.queueName(name)).queueUrl();
    for (String lang : List.of("en", "es", "fr", "es")) {
      fixture.sqs.sendMessage(
          b ->
              b.queueUrl(url)
                  .messageBody("hello-" + lang)
                  .messageAttributes(
                      Map.of(
                          "language",
                          MessageAttributeValue.builder()
                              .dataType("String")
                              .stringValue(lang)
                              .build())));
    }
    return url;
  }

  private static List<String> receiveV2(String url, String selector) {
    return fixture
        .sqs
        .receiveMessage(
            b ->
                b.queueUrl(url)
                    .maxNumberOfMessages(10)
                    .overrideConfiguration(o -> o.putHeader(HEADER, selector)))
        .messages()
        .stream()
        .map(Message::body)
        .toList();
  }

  @Test
  void v2Header_filtersTheReceive_andLeavesTheRestQueued() {
    String url = queueWithLanguages("header-v2");
    assertEquals(List.of("hello-es", "hello-es"), receiveV2(url, "language = 'es'"));
    assertEquals(
        List.of("hello-en", "hello-fr"),
        fixture.sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().stream()
            .map(Message::body)
            .toList(),
        "a receive without the header sees every message the filtered one left");
  }

  @Test
  void v1Header_filtersTheReceive_overTheQueryProtocol() {
    String url = queueWithLanguages("header-v1");
    var request =
        new com.amazonaws.services.sqs.model.ReceiveMessageRequest(url).withMaxNumberOfMessages(10);
    request.putCustomRequestHeader(HEADER, "language IN ('fr', 'en')");
    List<String> bodies =
        v1.receiveMessage(request).getMessages().stream()
            .map(com.amazonaws.services.sqs.model.Message::getBody)
            .toList();
    assertEquals(List.of("hello-en", "hello-fr"), bodies);
  }

  @Test
  void badSelector_orHeaderAndEntryBoth_areInvalidParameterValue_andReceiveNothing() {
    String url = queueWithLanguages("header-bad");
    SqsException bad = assertThrows(SqsException.class, () -> receiveV2(url, "language = "));
    assertEquals("InvalidParameterValue", bad.awsErrorDetails().errorCode());
    SqsException both =
        assertThrows(
            SqsException.class,
            () ->
                fixture.sqs.receiveMessage(
                    b ->
                        b.queueUrl(url)
                            .messageAttributeNames("Switchboard.Selector=language = 'en'")
                            .overrideConfiguration(o -> o.putHeader(HEADER, "language = 'es'"))));
    assertEquals("InvalidParameterValue", both.awsErrorDetails().errorCode());
    var request = new com.amazonaws.services.sqs.model.ReceiveMessageRequest(url);
    request.putCustomRequestHeader(HEADER, "language LIKE");
    AmazonSQSException v1Bad =
        assertThrows(AmazonSQSException.class, () -> v1.receiveMessage(request));
    assertEquals("InvalidParameterValue", v1Bad.getErrorCode());
    assertEquals(
        4,
        fixture.sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().size(),
        "refused receives leased nothing");
  }
}
