package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.AmazonWebServiceRequest;
import com.amazonaws.DefaultRequest;
import com.amazonaws.Request;
import com.amazonaws.http.HttpResponse;
import com.amazonaws.http.StaxResponseHandler;
import com.amazonaws.services.sqs.model.AddPermissionRequest;
import com.amazonaws.services.sqs.model.CancelMessageMoveTaskRequest;
import com.amazonaws.services.sqs.model.CancelMessageMoveTaskResult;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.ListDeadLetterSourceQueuesRequest;
import com.amazonaws.services.sqs.model.ListDeadLetterSourceQueuesResult;
import com.amazonaws.services.sqs.model.ListMessageMoveTasksRequest;
import com.amazonaws.services.sqs.model.ListMessageMoveTasksResult;
import com.amazonaws.services.sqs.model.ListMessageMoveTasksResultEntry;
import com.amazonaws.services.sqs.model.ListQueueTagsRequest;
import com.amazonaws.services.sqs.model.ListQueueTagsResult;
import com.amazonaws.services.sqs.model.MessageAttributeValue;
import com.amazonaws.services.sqs.model.RemovePermissionRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequestEntry;
import com.amazonaws.services.sqs.model.StartMessageMoveTaskRequest;
import com.amazonaws.services.sqs.model.StartMessageMoveTaskResult;
import com.amazonaws.services.sqs.model.TagQueueRequest;
import com.amazonaws.services.sqs.model.UntagQueueRequest;
import com.amazonaws.services.sqs.model.transform.AddPermissionRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.CancelMessageMoveTaskRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.CancelMessageMoveTaskResultStaxUnmarshaller;
import com.amazonaws.services.sqs.model.transform.CreateQueueRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.ListDeadLetterSourceQueuesRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.ListDeadLetterSourceQueuesResultStaxUnmarshaller;
import com.amazonaws.services.sqs.model.transform.ListMessageMoveTasksRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.ListMessageMoveTasksResultStaxUnmarshaller;
import com.amazonaws.services.sqs.model.transform.ListQueueTagsRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.ListQueueTagsResultStaxUnmarshaller;
import com.amazonaws.services.sqs.model.transform.RemovePermissionRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.SendMessageBatchRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.StartMessageMoveTaskRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.StartMessageMoveTaskResultStaxUnmarshaller;
import com.amazonaws.services.sqs.model.transform.TagQueueRequestMarshaller;
import com.amazonaws.services.sqs.model.transform.UntagQueueRequestMarshaller;
import com.amazonaws.transform.StaxUnmarshallerContext;
import com.amazonaws.transform.Unmarshaller;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The query protocol's shapes checked against the SDK v1 model itself, without a server: requests
 * are marshalled by the SDK's own marshallers and must translate ({@link QueryForm}) into the
 * members the JSON actions read; answers built in the JSON shape must render ({@link QueryXml})
 * into XML the SDK's own unmarshallers read back. This covers the actions the server does not serve
 * yet too, so their query form works as soon as their JSON form does.
 */
class SqsQueryShapesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String URL = "http://127.0.0.1:9/000000000000/q";

  private static <T extends AmazonWebServiceRequest> ObjectNode tree(
      String action, Request<T> marshalled) {
    Map<String, String> form = new LinkedHashMap<>();
    marshalled.getParameters().forEach((k, v) -> form.put(k, v.get(0)));
    assertEquals(action, form.get("Action"));
    assertEquals("2012-11-05", form.get("Version"));
    return QueryForm.tree(action, form);
  }

  private static void assertTree(String expectedJson, ObjectNode actual) throws Exception {
    assertEquals(JSON.readTree(expectedJson), actual);
  }

  private static <T> T unmarshal(
      Unmarshaller<T, StaxUnmarshallerContext> unmarshaller, String action, String resultJson)
      throws Exception {
    String xml = QueryXml.response(action, (ObjectNode) JSON.readTree(resultJson), "req-1");
    HttpResponse response = new HttpResponse(new DefaultRequest<>("AmazonSQS"), null);
    response.setStatusCode(200);
    response.setContent(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    var answer = new StaxResponseHandler<>(unmarshaller).handle(response);
    assertEquals("req-1", answer.getResponseMetadata().getRequestId());
    return answer.getResult();
  }

  @Test
  void createQueue_attributesAndTags() throws Exception {
    assertTree(
        "{\"QueueName\":\"q\",\"Attributes\":{\"DelaySeconds\":\"5\"},\"tags\":{\"team\":\"a\"}}",
        tree(
            "CreateQueue",
            new CreateQueueRequestMarshaller()
                .marshall(
                    new CreateQueueRequest("q")
                        .addAttributesEntry("DelaySeconds", "5")
                        .addTagsEntry("team", "a"))));
  }

  @Test
  void sendMessageBatch_entriesWithTypedAttributesAndIntegers() throws Exception {
    SendMessageBatchRequest batch =
        new SendMessageBatchRequest(URL)
            .withEntries(
                new SendMessageBatchRequestEntry("a", "one").withDelaySeconds(3),
                new SendMessageBatchRequestEntry("b", "two")
                    .withMessageGroupId("g")
                    .withMessageAttributes(
                        Map.of(
                            "bin",
                            new MessageAttributeValue()
                                .withDataType("Binary")
                                .withBinaryValue(ByteBuffer.wrap(new byte[] {1, 2})))));
    assertTree(
        "{\"QueueUrl\":\""
            + URL
            + "\",\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"one\",\"DelaySeconds\":3},"
            + "{\"Id\":\"b\",\"MessageBody\":\"two\",\"MessageGroupId\":\"g\","
            + "\"MessageAttributes\":{\"bin\":{\"DataType\":\"Binary\",\"BinaryValue\":\"AQI=\"}}}]}",
        tree("SendMessageBatch", new SendMessageBatchRequestMarshaller().marshall(batch)));
  }

  @Test
  void tagActions_requestShapes_andListQueueTagsAnswer() throws Exception {
    assertTree(
        "{\"QueueUrl\":\"" + URL + "\",\"Tags\":{\"team\":\"a\",\"env\":\"b\"}}",
        tree(
            "TagQueue",
            new TagQueueRequestMarshaller()
                .marshall(
                    new TagQueueRequest(
                        URL, new LinkedHashMap<>(Map.of("team", "a", "env", "b"))))));
    assertTree(
        "{\"QueueUrl\":\"" + URL + "\",\"TagKeys\":[\"team\",\"env\"]}",
        tree(
            "UntagQueue",
            new UntagQueueRequestMarshaller()
                .marshall(new UntagQueueRequest(URL, List.of("team", "env")))));
    assertTree(
        "{\"QueueUrl\":\"" + URL + "\"}",
        tree(
            "ListQueueTags",
            new ListQueueTagsRequestMarshaller().marshall(new ListQueueTagsRequest(URL))));
    ListQueueTagsResult tags =
        unmarshal(
            ListQueueTagsResultStaxUnmarshaller.getInstance(),
            "ListQueueTags",
            "{\"Tags\":{\"team\":\"a & b\",\"env\":\"<prod>\"}}");
    assertEquals(Map.of("team", "a & b", "env", "<prod>"), tags.getTags());
  }

  @Test
  void permissionActions_requestShapes() throws Exception {
    assertTree(
        "{\"QueueUrl\":\""
            + URL
            + "\",\"Label\":\"l\",\"AWSAccountIds\":[\"111122223333\",\"444455556666\"],"
            + "\"Actions\":[\"SendMessage\",\"ReceiveMessage\"]}",
        tree(
            "AddPermission",
            new AddPermissionRequestMarshaller()
                .marshall(
                    new AddPermissionRequest(
                        URL,
                        "l",
                        List.of("111122223333", "444455556666"),
                        List.of("SendMessage", "ReceiveMessage")))));
    assertTree(
        "{\"QueueUrl\":\"" + URL + "\",\"Label\":\"l\"}",
        tree(
            "RemovePermission",
            new RemovePermissionRequestMarshaller()
                .marshall(new RemovePermissionRequest(URL, "l"))));
    String xml = QueryXml.response("AddPermission", JSON.createObjectNode(), "r");
    assertTrue(!xml.contains("AddPermissionResult") && xml.contains("<RequestId>r</RequestId>"));
  }

  @Test
  void listDeadLetterSourceQueues_requestAndAnswer() throws Exception {
    assertTree(
        "{\"QueueUrl\":\"" + URL + "\",\"MaxResults\":2,\"NextToken\":\"t\"}",
        tree(
            "ListDeadLetterSourceQueues",
            new ListDeadLetterSourceQueuesRequestMarshaller()
                .marshall(
                    new ListDeadLetterSourceQueuesRequest()
                        .withQueueUrl(URL)
                        .withMaxResults(2)
                        .withNextToken("t"))));
    ListDeadLetterSourceQueuesResult r =
        unmarshal(
            ListDeadLetterSourceQueuesResultStaxUnmarshaller.getInstance(),
            "ListDeadLetterSourceQueues",
            "{\"queueUrls\":[\"http://h/000000000000/a\",\"http://h/000000000000/b\"],"
                + "\"NextToken\":\"n\"}");
    assertEquals(List.of("http://h/000000000000/a", "http://h/000000000000/b"), r.getQueueUrls());
    assertEquals("n", r.getNextToken());
  }

  @Test
  void messageMoveTasks_requestsAndAnswers() throws Exception {
    String source = "arn:aws:sqs:us-east-1:000000000000:dlq";
    assertTree(
        "{\"SourceArn\":\""
            + source
            + "\",\"DestinationArn\":\"arn:aws:sqs:us-east-1:000000000000:work\","
            + "\"MaxNumberOfMessagesPerSecond\":50}",
        tree(
            "StartMessageMoveTask",
            new StartMessageMoveTaskRequestMarshaller()
                .marshall(
                    new StartMessageMoveTaskRequest()
                        .withSourceArn(source)
                        .withDestinationArn("arn:aws:sqs:us-east-1:000000000000:work")
                        .withMaxNumberOfMessagesPerSecond(50))));
    assertTree(
        "{\"SourceArn\":\"" + source + "\",\"MaxResults\":10}",
        tree(
            "ListMessageMoveTasks",
            new ListMessageMoveTasksRequestMarshaller()
                .marshall(
                    new ListMessageMoveTasksRequest().withSourceArn(source).withMaxResults(10))));
    assertTree(
        "{\"TaskHandle\":\"h\"}",
        tree(
            "CancelMessageMoveTask",
            new CancelMessageMoveTaskRequestMarshaller()
                .marshall(new CancelMessageMoveTaskRequest().withTaskHandle("h"))));

    StartMessageMoveTaskResult started =
        unmarshal(
            StartMessageMoveTaskResultStaxUnmarshaller.getInstance(),
            "StartMessageMoveTask",
            "{\"TaskHandle\":\"h\"}");
    assertEquals("h", started.getTaskHandle());
    ListMessageMoveTasksResult listed =
        unmarshal(
            ListMessageMoveTasksResultStaxUnmarshaller.getInstance(),
            "ListMessageMoveTasks",
            "{\"Results\":[{\"TaskHandle\":\"h\",\"Status\":\"RUNNING\",\"SourceArn\":\""
                + source
                + "\",\"ApproximateNumberOfMessagesMoved\":3,"
                + "\"ApproximateNumberOfMessagesToMove\":7,\"StartedTimestamp\":1700000000000},"
                + "{\"Status\":\"FAILED\",\"FailureReason\":\"gone\"}]}");
    List<ListMessageMoveTasksResultEntry> entries = listed.getResults();
    assertEquals(2, entries.size());
    assertEquals("RUNNING", entries.get(0).getStatus());
    assertEquals(3L, entries.get(0).getApproximateNumberOfMessagesMoved());
    assertEquals(7L, entries.get(0).getApproximateNumberOfMessagesToMove());
    assertEquals(1700000000000L, entries.get(0).getStartedTimestamp());
    assertEquals("gone", entries.get(1).getFailureReason());
    CancelMessageMoveTaskResult cancelled =
        unmarshal(
            CancelMessageMoveTaskResultStaxUnmarshaller.getInstance(),
            "CancelMessageMoveTask",
            "{\"ApproximateNumberOfMessagesMoved\":5}");
    assertEquals(5L, cancelled.getApproximateNumberOfMessagesMoved());
  }

  @Test
  void badIndexOrMissingKey_isInvalidParameterValue_namingTheParameter() {
    SqsError badIndex =
        assertThrows(
            SqsError.class,
            () -> QueryForm.tree("GetQueueAttributes", Map.of("AttributeName.x", "All")));
    assertEquals("InvalidParameterValue", badIndex.code());
    assertTrue(badIndex.getMessage().contains("AttributeName.x"), badIndex.getMessage());
    SqsError noKey =
        assertThrows(
            SqsError.class,
            () -> QueryForm.tree("SetQueueAttributes", Map.of("Attribute.1.Value", "5")));
    assertTrue(noKey.getMessage().contains("Attribute.1.Name"), noKey.getMessage());
  }

  @Test
  void listEntries_followTheirIndex_notTheirOrderOfArrival() {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("AttributeName.2", "b");
    form.put("AttributeName.10", "c");
    form.put("AttributeName.1", "a");
    assertEquals(
        "[\"a\",\"b\",\"c\"]",
        QueryForm.tree("GetQueueAttributes", form).get("AttributeNames").toString());
  }
}
