package io.switchboard.server.sqs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json;
import io.switchboard.queue.RedriveTask;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * SQS answers declared as records: the property names are the SQS model's (upper camel case, from
 * the components' names; {@code queueUrls} of ListDeadLetterSourceQueues as the model spells it),
 * absent ({@code null}) members left out. {@link #tree} makes the answer tree that both protocols
 * write (JSON 1.0 as is, the query protocol as XML). The hot answers (SendMessage, ReceiveMessage)
 * are still built as trees directly, without the record's extra pass.
 */
final class SqsAnswers {

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(Json.newFactory())
          .propertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private SqsAnswers() {}

  /** The answer tree of a record. */
  static ObjectNode tree(Object answer) {
    return MAPPER.valueToTree(answer);
  }

  /** CreateQueue, GetQueueUrl. */
  record QueueUrl(String queueUrl) {}

  /** ListQueues; the token only when a page was asked for and more follow. */
  record QueueUrls(List<String> queueUrls, @Nullable String nextToken) {}

  /** ListDeadLetterSourceQueues. */
  record SourceQueueUrls(
      @JsonProperty("queueUrls") List<String> queueUrls, @Nullable String nextToken) {}

  /** StartMessageMoveTask. */
  record TaskHandle(String taskHandle) {}

  /** CancelMessageMoveTask. */
  record MessagesMoved(long approximateNumberOfMessagesMoved) {}

  /** ListMessageMoveTasks. */
  record MoveTasks(List<MoveTask> results) {}

  /** One message move task; a handle only while it runs. */
  record MoveTask(
      @Nullable String taskHandle,
      String status,
      String sourceArn,
      @Nullable String destinationArn,
      @Nullable Integer maxNumberOfMessagesPerSecond,
      long approximateNumberOfMessagesMoved,
      long approximateNumberOfMessagesToMove,
      @Nullable String failureReason,
      long startedTimestamp) {

    static MoveTask of(QueueAddress address, RedriveTask t, String handle) {
      return new MoveTask(
          t.status() == RedriveTask.Status.RUNNING ? handle : null,
          t.status().name(),
          address.arn(t.source()),
          t.destination().map(address::arn).orElse(null),
          t.maxPerSecond().isPresent() ? t.maxPerSecond().getAsInt() : null,
          t.moved(),
          t.toMove(),
          t.failureReason().orElse(null),
          t.startedAt().toEpochMilli());
    }
  }

  /** A failed entry of a batch. */
  record BatchError(String id, boolean senderFault, String code, @Nullable String message) {

    static BatchError of(String id, SqsError e) {
      return new BatchError(id, e.senderFault(), e.code(), e.getMessage());
    }
  }
}
