package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeNameForSends;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Attributes as Amazon SQS treats them, through the stock AWS SDKs for Java v2 (JSON) and v1
 * (query): the {@code X-Amzn-Trace-Id} header as a message's {@code AWSTraceHeader}, {@code
 * MessageAttributeNames=["*"]}, clearing {@code KmsMasterKeyId}, and CreateQueue on an existing
 * queue comparing only the attributes it names.
 */
class SqsAttributesFidelityTest {

  private static final String TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1";
  private static final String OTHER_TRACE = "Root=1-67891233-abcdef012345678912345678;Sampled=0";
  private static final String TRACE_HEADER = "X-Amzn-Trace-Id";

  private static SqsServer fixture;
  private static SqsClient sqs;
  private static AmazonSQS v1;

  @BeforeAll
  static void start() {
    fixture = new SqsServer();
    sqs = fixture.sqs;
    v1 = SqsClients.v1(fixture);
  }

  @AfterAll
  static void stop() {
    v1.shutdown();
    fixture.close();
  }

  private static String trace(String url) {
    List<Message> messages =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .visibilityTimeout(0)
                        .messageSystemAttributeNames(MessageSystemAttributeName.AWS_TRACE_HEADER))
            .messages();
    assertEquals(1, messages.size());
    return messages.get(0).attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER);
  }

  // ---- X-Amzn-Trace-Id ----------------------------------------------------------------------

  @Test
  void traceIdHeader_wasIgnored_nowTheMessagesAwsTraceHeader() {
    String url = fixture.createQueue("trace-header");
    sqs.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody("a")
                .overrideConfiguration(o -> o.putHeader(TRACE_HEADER, TRACE)));
    assertEquals(TRACE, trace(url));
  }

  @Test
  void traceIdHeader_appliesToEveryBatchEntry() {
    String url = fixture.createQueue("trace-header-batch");
    sqs.sendMessageBatch(
        b ->
            b.queueUrl(url)
                .entries(
                    SendMessageBatchRequestEntry.builder().id("1").messageBody("a").build(),
                    SendMessageBatchRequestEntry.builder().id("2").messageBody("b").build())
                .overrideConfiguration(o -> o.putHeader(TRACE_HEADER, TRACE)));
    List<Message> messages =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .messageSystemAttributeNames(MessageSystemAttributeName.AWS_TRACE_HEADER))
            .messages();
    assertEquals(2, messages.size());
    messages.forEach(
        m -> assertEquals(TRACE, m.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER)));
  }

  @Test
  void explicitAwsTraceHeader_winsOverTheHeader() {
    String url = fixture.createQueue("trace-explicit");
    sqs.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody("a")
                .messageSystemAttributes(
                    Map.of(
                        MessageSystemAttributeNameForSends.AWS_TRACE_HEADER,
                        MessageSystemAttributeValue.builder()
                            .dataType("String")
                            .stringValue(TRACE)
                            .build()))
                .overrideConfiguration(o -> o.putHeader(TRACE_HEADER, OTHER_TRACE)));
    assertEquals(TRACE, trace(url));
  }

  @Test
  void traceIdHeader_queryProtocol_v1() {
    String url = fixture.createQueue("trace-header-v1");
    SendMessageRequest send = new SendMessageRequest(url, "a");
    send.putCustomRequestHeader(TRACE_HEADER, TRACE);
    v1.sendMessage(send);
    var m =
        v1.receiveMessage(new ReceiveMessageRequest(url).withAttributeNames("AWSTraceHeader"))
            .getMessages()
            .get(0);
    assertEquals(TRACE, m.getAttributes().get("AWSTraceHeader"));
  }

  // ---- MessageAttributeNames=["*"] --------------------------------------------------------------

  @Test
  void messageAttributeNamesStar_wasNothing_nowEveryAttribute() {
    String url = fixture.createQueue("attrs-star");
    MessageAttributeValue s =
        MessageAttributeValue.builder().dataType("String").stringValue("x").build();
    MessageAttributeValue n =
        MessageAttributeValue.builder().dataType("Number").stringValue("7").build();
    sqs.sendMessage(
        b -> b.queueUrl(url).messageBody("a").messageAttributes(Map.of("s", s, "n", n)));
    Message m =
        sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(0).messageAttributeNames("*"))
            .messages()
            .get(0);
    assertEquals(Map.of("s", s, "n", n), m.messageAttributes());

    var v1m =
        v1.receiveMessage(new ReceiveMessageRequest(url).withMessageAttributeNames("*"))
            .getMessages()
            .get(0);
    assertEquals(
        Map.of("s", "x", "n", "7"),
        Map.of(
            "s", v1m.getMessageAttributes().get("s").getStringValue(),
            "n", v1m.getMessageAttributes().get("n").getStringValue()));
  }

  // ---- clearing KmsMasterKeyId ------------------------------------------------------------------

  private static Map<QueueAttributeName, String> attributes(String url) {
    return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
        .attributes();
  }

  @Test
  void clearingKmsMasterKeyId_dropsItsPeriod_andSseIsFalse() {
    String url = fixture.createQueue("kms-clear");
    sqs.setQueueAttributes(
        b ->
            b.queueUrl(url)
                .attributes(
                    Map.of(
                        QueueAttributeName.KMS_MASTER_KEY_ID, "alias/aws/sqs",
                        QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS, "600")));
    assertEquals("600", attributes(url).get(QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS));

    sqs.setQueueAttributes(
        b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.KMS_MASTER_KEY_ID, "")));
    Map<QueueAttributeName, String> a = attributes(url);
    assertFalse(a.containsKey(QueueAttributeName.KMS_MASTER_KEY_ID));
    assertFalse(a.containsKey(QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS));
    assertEquals("false", a.get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));
  }

  @Test
  void clearingKmsMasterKeyId_onAnSseSqsQueue_turnsSseOff() {
    String url = fixture.createQueue("kms-clear-sse");
    assertEquals("true", attributes(url).get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));
    sqs.setQueueAttributes(
        b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.KMS_MASTER_KEY_ID, "")));
    assertEquals("false", attributes(url).get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));
  }

  // ---- CreateQueue on an existing queue ---------------------------------------------------------

  @Test
  void createQueue_existing_subsetOfAttributesMatching_returnsItsUrl() {
    Map<QueueAttributeName, String> attrs =
        Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "60", QueueAttributeName.DELAY_SECONDS, "5");
    String url = sqs.createQueue(b -> b.queueName("subset").attributes(attrs)).queueUrl();
    assertEquals(
        url,
        sqs.createQueue(
                b ->
                    b.queueName("subset").attributes(Map.of(QueueAttributeName.DELAY_SECONDS, "5")))
            .queueUrl());
    assertEquals(
        url,
        v1.createQueue(
                new CreateQueueRequest("subset").addAttributesEntry("VisibilityTimeout", "60"))
            .getQueueUrl());
  }

  @Test
  void createQueue_existing_differentValue_namesTheAttribute() {
    sqs.createQueue(
        b ->
            b.queueName("named.fifo")
                .attributes(
                    Map.of(
                        QueueAttributeName.FIFO_QUEUE, "true",
                        QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false")));
    QueueNameExistsException e =
        assertThrows(
            QueueNameExistsException.class,
            () ->
                sqs.createQueue(
                    b ->
                        b.queueName("named.fifo")
                            .attributes(
                                Map.of(
                                    QueueAttributeName.FIFO_QUEUE, "true",
                                    QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "true"))));
    assertEquals("QueueAlreadyExists", e.awsErrorDetails().errorCode());
    assertEquals(
        "A queue already exists with the same name and a different value for attribute"
            + " ContentBasedDeduplication",
        e.awsErrorDetails().errorMessage());

    AmazonSQSException v1e =
        assertThrows(
            AmazonSQSException.class,
            () ->
                v1.createQueue(
                    new CreateQueueRequest("named.fifo")
                        .addAttributesEntry("FifoQueue", "true")
                        .addAttributesEntry("ContentBasedDeduplication", "true")));
    assertEquals("QueueAlreadyExists", v1e.getErrorCode());
    assertEquals(
        "A queue already exists with the same name and a different value for attribute"
            + " ContentBasedDeduplication",
        v1e.getErrorMessage());
  }
}
