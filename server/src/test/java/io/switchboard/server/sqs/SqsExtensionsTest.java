package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageUpdate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The Switchboard extensions through stock SDK v2 calls ({@code docs/sqs.md}, "Extensions"):
 * priority and list attributes, a selector on ReceiveMessage, LIFO order and indexed attributes as
 * queue attributes, native operations by SQS MessageId; and that calls not using them see SQS. SDK
 * v2 verifies every MD5 it is sent, so each send and receive here also checks the digests.
 */
class SqsExtensionsTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  private static MessageAttributeValue number(String v) {
    return MessageAttributeValue.builder().dataType("Number").stringValue(v).build();
  }

  private static MessageAttributeValue string(String v) {
    return MessageAttributeValue.builder().dataType("String").stringValue(v).build();
  }

  private static SendMessageResponse send(
      String url, String body, Map<String, MessageAttributeValue> attributes) {
    return sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageAttributes(attributes));
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }

  @Test
  void priority_higherFirst_hiddenUnlessNamed() {
    String url = sqs.createQueue(b -> b.queueName("prio")).queueUrl();
    send(url, "low", Map.of());
    send(url, "high", Map.of("Switchboard.Priority", number("9"), "kind", string("k")));
    send(url, "mid", Map.of("Switchboard.Priority", number("5")));
    List<Message> got =
        sqs.receiveMessage(
                b -> b.queueUrl(url).maxNumberOfMessages(10).messageAttributeNames("All"))
            .messages();
    assertEquals(List.of("high", "mid", "low"), bodies(got));
    assertEquals(Map.of("kind", string("k")), got.get(0).messageAttributes());
    assertTrue(got.get(1).messageAttributes().isEmpty());
    assertNull(got.get(1).md5OfMessageAttributes());
    for (Message m : got) {
      sqs.changeMessageVisibility(
          b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    }
    Message named =
        sqs.receiveMessage(
                b -> b.queueUrl(url).messageAttributeNames("Switchboard.Priority", "kind"))
            .messages()
            .get(0);
    assertEquals(
        Map.of("Switchboard.Priority", number("9"), "kind", string("k")),
        named.messageAttributes());
  }

  @Test
  void listAttributes_andSelectorOnReceive() {
    String url = sqs.createQueue(b -> b.queueName("agents")).queueUrl();
    send(
        url,
        "billing-es",
        Map.of(
            "Switchboard.List.skills", string("[\"billing\",\"spanish\"]"),
            "language", string("es")));
    send(url, "sales-en", Map.of("Switchboard.List.skills", string("[\"sales\"]")));
    send(url, "plain", Map.of());
    List<Message> spanish =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .messageAttributeNames(
                            "Switchboard.Selector=skills HAS 'spanish'", "Switchboard.List.*"))
            .messages();
    assertEquals(List.of("billing-es"), bodies(spanish));
    assertEquals(
        Map.of("Switchboard.List.skills", string("[\"billing\",\"spanish\"]")),
        spanish.get(0).messageAttributes());
    List<Message> rest =
        sqs.receiveMessage(
                b -> b.queueUrl(url).maxNumberOfMessages(10).messageAttributeNames("All"))
            .messages();
    assertEquals(List.of("sales-en", "plain"), bodies(rest));
    assertTrue(rest.get(0).messageAttributes().isEmpty(), "a stock All never sees list attributes");
  }

  @Test
  void selector_badSyntaxAndReservedNames_areInvalidParameterValue() {
    String url = sqs.createQueue(b -> b.queueName("reserved")).queueUrl();
    SqsException bad =
        assertThrows(
            SqsException.class,
            () ->
                sqs.receiveMessage(
                    b -> b.queueUrl(url).messageAttributeNames("Switchboard.Selector=a = ")));
    assertEquals("InvalidParameterValue", bad.awsErrorDetails().errorCode());
    for (var attrs :
        List.of(
            Map.of("Switchboard.Other", string("x")),
            Map.of("Switchboard.Priority", string("9")),
            Map.of("Switchboard.Priority", number("1.5")),
            Map.of("Switchboard.List.x", string("not a list")),
            Map.of("Switchboard.List.x", string("[1]")),
            Map.of("Switchboard.List.x", string("[\"a\"]"), "x", string("b")))) {
      SqsException e = assertThrows(SqsException.class, () -> send(url, "m", attrs));
      assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode(), attrs.toString());
    }
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
  }

  @Test
  void lifoOrderAndIndexedAttributes_asQueueAttributes_onlyWhenNamed() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("stack")
                        .attributesWithStrings(
                            Map.of(
                                "Switchboard.Order", "LIFO",
                                "Switchboard.IndexedAttributes", "region, tier")))
            .queueUrl();
    for (String body : List.of("1", "2", "3")) {
      send(url, body, Map.of());
    }
    assertEquals(
        List.of("3", "2", "1"),
        bodies(sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages()));
    Map<String, String> all =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributesAsStrings();
    assertFalse(all.keySet().stream().anyMatch(k -> k.startsWith("Switchboard.")), "" + all);
    Map<String, String> named =
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributeNamesWithStrings(
                            "Switchboard.Order", "Switchboard.IndexedAttributes"))
            .attributesAsStrings();
    assertEquals(
        Map.of("Switchboard.Order", "LIFO", "Switchboard.IndexedAttributes", "region,tier"), named);
    sqs.setQueueAttributes(
        b -> b.queueUrl(url).attributesWithStrings(Map.of("Switchboard.Order", "FIFO")));
    assertEquals(
        "FIFO",
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("Switchboard.Order"))
            .attributesAsStrings()
            .get("Switchboard.Order"));
    SqsException bad =
        assertThrows(
            SqsException.class,
            () ->
                sqs.setQueueAttributes(
                    b -> b.queueUrl(url).attributesWithStrings(Map.of("Switchboard.Order", "up"))));
    assertEquals("InvalidAttributeValue", bad.awsErrorDetails().errorCode());
    SqsException lifoFifo =
        assertThrows(
            SqsException.class,
            () ->
                sqs.createQueue(
                    b ->
                        b.queueName("stack.fifo")
                            .attributesWithStrings(
                                Map.of("FifoQueue", "true", "Switchboard.Order", "LIFO"))));
    assertEquals("InvalidAttributeValue", lifoFifo.awsErrorDetails().errorCode());
    assertThrows(
        InvalidAttributeNameException.class,
        () ->
            sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNamesWithStrings("Switchboard.Nothing")));
  }

  @Test
  void keyLimit_asAQueueAttribute_skipsAGroupAtItsLimit_andEmptyRemovesIt() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("tenants")
                        .attributesWithStrings(Map.of("Switchboard.KeyLimit", "1")))
            .queueUrl();
    for (String[] m :
        List.of(
            new String[] {"acme", "a1"},
            new String[] {"acme", "a2"},
            new String[] {"globex", "g1"})) {
      sqs.sendMessage(b -> b.queueUrl(url).messageBody(m[1]).messageGroupId(m[0]));
    }
    assertEquals(
        List.of("a1", "g1"),
        bodies(sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages()),
        "a group at its limit is skipped");
    assertEquals(
        "1",
        sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNamesWithStrings("Switchboard.KeyLimit"))
            .attributesAsStrings()
            .get("Switchboard.KeyLimit"));
    SqsException bad =
        assertThrows(
            SqsException.class,
            () ->
                sqs.setQueueAttributes(
                    b ->
                        b.queueUrl(url)
                            .attributesWithStrings(Map.of("Switchboard.KeyLimit", "0"))));
    assertEquals("InvalidAttributeValue", bad.awsErrorDetails().errorCode());
    assertTrue(bad.awsErrorDetails().errorMessage().contains("got '0'"), bad.getMessage());
    sqs.setQueueAttributes(
        b -> b.queueUrl(url).attributesWithStrings(Map.of("Switchboard.KeyLimit", "")));
    assertEquals(
        "",
        sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNamesWithStrings("Switchboard.KeyLimit"))
            .attributesAsStrings()
            .get("Switchboard.KeyLimit"));
    assertEquals(
        List.of("a2"),
        bodies(sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages()));
  }

  @Test
  void messageId_reachesNativeUpdateTouchRemove() {
    String url = sqs.createQueue(b -> b.queueName("by-id")).queueUrl();
    String first = send(url, "first", Map.of()).messageId();
    String second = send(url, "second", Map.of()).messageId();
    String third = send(url, "third", Map.of()).messageId();
    var api = fixture.nativeApi();
    api.update("by-id", third, MessageUpdate.priority(7));
    api.touch("by-id", first);
    api.remove("by-id", second);
    api.update(
        "by-id", first, MessageUpdate.attributes(Map.of("note", AttributeValue.string("touched"))));
    List<Message> got =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .messageAttributeNames("All", "Switchboard.Priority"))
            .messages();
    assertEquals(List.of("third", "first"), bodies(got));
    assertEquals(number("7"), got.get(0).messageAttributes().get("Switchboard.Priority"));
    assertEquals(string("touched"), got.get(1).messageAttributes().get("note"));
    assertEquals(third, got.get(0).messageId());
  }
}
