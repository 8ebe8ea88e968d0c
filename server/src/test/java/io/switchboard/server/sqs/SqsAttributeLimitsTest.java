package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.ReceiptHandleIsInvalidException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * SQS's ranges for every settable queue attribute and request parameter, through SDK v2: the bounds
 * are accepted, one past them is refused with SQS's code, and a refused call changes nothing.
 */
class SqsAttributeLimitsTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  private static String errorCode(Runnable call) {
    return assertThrows(SqsException.class, call::run).awsErrorDetails().errorCode();
  }

  private static String get(String url, String attribute) {
    return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings(attribute))
        .attributesAsStrings()
        .get(attribute);
  }

  @ParameterizedTest
  @CsvSource({
    "VisibilityTimeout, 0, 43200, -1, 43201",
    "DelaySeconds, 0, 900, -1, 901",
    "MessageRetentionPeriod, 60, 1209600, 59, 1209601",
    "MaximumMessageSize, 1024, 1048576, 1023, 1048577",
    "ReceiveMessageWaitTimeSeconds, 0, 20, -1, 21",
  })
  void queueAttribute_boundsAccepted_beyondRefused_nothingChanged(
      String attribute, String min, String max, String below, String above) {
    String queue = "limits-" + attribute.toLowerCase(java.util.Locale.ROOT);
    String url =
        sqs.createQueue(b -> b.queueName(queue).attributesWithStrings(Map.of(attribute, min)))
            .queueUrl();
    assertEquals(min, get(url, attribute));
    sqs.setQueueAttributes(b -> b.queueUrl(url).attributesWithStrings(Map.of(attribute, max)));
    assertEquals(max, get(url, attribute));
    for (String bad : List.of(below, above, "ten", "")) {
      assertEquals(
          "InvalidAttributeValue",
          errorCode(
              () ->
                  sqs.setQueueAttributes(
                      b -> b.queueUrl(url).attributesWithStrings(Map.of(attribute, bad)))),
          attribute + "=" + bad);
      assertEquals(
          "InvalidAttributeValue",
          errorCode(
              () ->
                  sqs.createQueue(
                      b ->
                          b.queueName(queue + "-bad")
                              .attributesWithStrings(Map.of(attribute, bad)))),
          attribute + "=" + bad);
    }
    assertEquals(max, get(url, attribute));
    assertThrows(
        QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName(queue + "-bad")));
  }

  @Test
  void redrivePolicy_rules() {
    sqs.createQueue(b -> b.queueName("rp-dlq"));
    String url = sqs.createQueue(b -> b.queueName("rp-src")).queueUrl();
    String arn = "arn:aws:sqs:us-east-1:000000000000:";
    for (String bad :
        List.of(
            "{\"deadLetterTargetArn\":\"" + arn + "rp-dlq\",\"maxReceiveCount\":0}",
            "{\"deadLetterTargetArn\":\"" + arn + "rp-dlq\",\"maxReceiveCount\":1001}",
            "{\"deadLetterTargetArn\":\"" + arn + "rp-dlq\"}",
            "{\"maxReceiveCount\":3}",
            "not json")) {
      assertEquals(
          "InvalidParameterValue",
          errorCode(
              () ->
                  sqs.setQueueAttributes(
                      b -> b.queueUrl(url).attributesWithStrings(Map.of("RedrivePolicy", bad)))),
          bad);
    }
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.setQueueAttributes(
                    b ->
                        b.queueUrl(url)
                            .attributesWithStrings(
                                Map.of(
                                    "RedrivePolicy",
                                    "{\"deadLetterTargetArn\":\""
                                        + arn
                                        + "rp-missing\",\"maxReceiveCount\":3}")))));
    sqs.setQueueAttributes(
        b ->
            b.queueUrl(url)
                .attributesWithStrings(
                    Map.of(
                        "RedrivePolicy",
                        "{\"deadLetterTargetArn\":\""
                            + arn
                            + "rp-dlq\",\"maxReceiveCount\":1000}")));
    assertTrue(get(url, "RedrivePolicy").contains("1000"));
  }

  @Test
  void queueNames_followSqsRules() {
    for (String bad : List.of("has space", "x".repeat(81), "dots.in.name", "")) {
      String code = errorCode(() -> sqs.createQueue(b -> b.queueName(bad)));
      assertTrue(
          code.equals("InvalidParameterValue") || code.equals("MissingParameter"),
          bad + ": " + code);
    }
    sqs.createQueue(b -> b.queueName("A-z_0".repeat(16)));
  }

  @Test
  void requestParameters_outOfRange_areInvalidParameterValue() {
    String url = sqs.createQueue(b -> b.queueName("params")).queueUrl();
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(11))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(0))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(21))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(43_201))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").delaySeconds(901))));
    assertEquals(
        "MissingParameter", // as SQS words an empty body
        errorCode(() -> sqs.sendMessage(b -> b.queueUrl(url).messageBody(""))));
    assertThrows(
        ReceiptHandleIsInvalidException.class,
        () -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle("garbage")));
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
  }

  @Test
  void maximumMessageSize_countsBodyAndAttributes() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("small")
                        .attributes(Map.of(QueueAttributeName.MAXIMUM_MESSAGE_SIZE, "1024")))
            .queueUrl();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x".repeat(1024)));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x".repeat(1025)))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.sendMessage(
                    b ->
                        b.queueUrl(url)
                            .messageBody("x".repeat(1020))
                            .messageAttributes(
                                Map.of(
                                    "attr",
                                    software.amazon.awssdk.services.sqs.model.MessageAttributeValue
                                        .builder()
                                        .dataType("String")
                                        .stringValue("v")
                                        .build())))));
    assertEquals(
        1, sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().size());
  }
}
