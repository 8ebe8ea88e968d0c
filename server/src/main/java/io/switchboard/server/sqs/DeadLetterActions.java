package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * ListDeadLetterSourceQueues and the message move tasks (StartMessageMoveTask,
 * ListMessageMoveTasks, CancelMessageMoveTask) on the engine's redrive tasks, with SQS's rules: the
 * source must be a dead-letter queue of some queue, one running task per source, a destination that
 * must exist (or none: each message goes back to the queue it was dead-lettered from), at most 500
 * messages a second. A task handle names the source and the engine's task id, so a cancel needs
 * nothing else.
 */
final class DeadLetterActions {

  static final int MAX_RATE = 500;

  private DeadLetterActions() {}

  /** The queues whose RedrivePolicy names this one, by name, paged as ListQueues. */
  static ObjectNode listSources(QueueEngine engine, SqsRequest r) {
    String dlq = SqsApi.queue(r);
    engine.queue(dlq);
    var max = r.integer("MaxResults", 1, 1000);
    Optional<String> after = r.string("NextToken").map(SqsApi::decodeToken);
    List<String> names =
        sources(engine, dlq).stream()
            .filter(n -> r.address().nameInRegion(n).isPresent())
            .filter(n -> after.isEmpty() || n.compareTo(after.get()) > 0)
            .toList();
    List<String> page = names.subList(0, Math.min(max.orElse(1000), names.size()));
    String next =
        max.isPresent() && names.size() > page.size()
            ? SqsApi.encodeToken(page.get(page.size() - 1))
            : null;
    return SqsAnswers.tree(
        new SqsAnswers.SourceQueueUrls(page.stream().map(r.address()::url).toList(), next));
  }

  private static List<String> sources(QueueEngine engine, String dlq) {
    return engine.listQueues("").stream()
        .filter(q -> q.config().deadLetter().map(d -> d.target().equals(dlq)).orElse(false))
        .map(QueueInfo::name)
        .sorted()
        .toList();
  }

  static ObjectNode start(QueueEngine engine, SqsRequest r) {
    String source = existing(engine, r.address(), r.required("SourceArn"));
    Optional<String> destination =
        r.string("DestinationArn").map(arn -> existing(engine, r.address(), arn));
    OptionalInt rate = r.integer("MaxNumberOfMessagesPerSecond", 1, MAX_RATE);
    if (sources(engine, source).isEmpty()) {
      throw SqsError.invalidParameter(
          "Source queue must be configured as a Dead Letter Queue: no queue's RedrivePolicy names "
              + r.address().arn(source)
              + ".");
    }
    if (engine.redriveTasks(source).stream()
        .anyMatch(t -> t.status() == RedriveTask.Status.RUNNING)) {
      throw SqsError.invalidParameter(
          "There is already a task running. Only one active task is allowed for a source queue"
              + " arn at a given time.");
    }
    RedriveTask task = engine.startRedrive(source, new RedriveRequest(destination, rate));
    return SqsAnswers.tree(new SqsAnswers.TaskHandle(handle(task)));
  }

  static ObjectNode list(QueueEngine engine, SqsRequest r) {
    String source = existing(engine, r.address(), r.required("SourceArn"));
    int max = r.integer("MaxResults", 1, 10).orElse(1);
    return SqsAnswers.tree(
        new SqsAnswers.MoveTasks(
            engine.redriveTasks(source).stream()
                .limit(max)
                .map(t -> SqsAnswers.MoveTask.of(r.address(), t, handle(t)))
                .toList()));
  }

  static ObjectNode cancel(QueueEngine engine, SqsRequest r) {
    String handle = r.required("TaskHandle");
    String[] parts = decode(handle);
    if (r.address().nameInRegion(parts[0]).isEmpty()) {
      throw notFound("Task does not exist: " + handle); // a task of another region
    }
    RedriveTask task;
    try {
      task =
          engine.redriveTasks(parts[0]).stream()
              .filter(t -> t.id().equals(parts[1]))
              .findFirst()
              .orElseThrow(() -> notFound("Task does not exist: " + handle));
    } catch (QueueException e) {
      if (e.code() == ErrorCode.QUEUE_NOT_FOUND) {
        throw notFound("Task does not exist: " + handle);
      }
      throw e;
    }
    if (task.status() != RedriveTask.Status.RUNNING) {
      throw SqsError.legacySender(
          "UnsupportedOperation",
          "Only a RUNNING task can be cancelled; task " + handle + " is " + task.status() + ".");
    }
    RedriveTask cancelled = engine.cancelRedrive(task.id());
    return SqsAnswers.tree(new SqsAnswers.MessagesMoved(cancelled.moved()));
  }

  /**
   * The queue an ARN names, which must exist in the request's account and region ({@code
   * ResourceNotFoundException} otherwise).
   */
  private static String existing(QueueEngine engine, QueueAddress address, String arn) {
    String name =
        address
            .fromArn(arn)
            .orElseThrow(
                () -> notFound("The resource that you requested couldn't be found: " + arn));
    try {
      return engine.queue(name).name();
    } catch (QueueException e) {
      if (e.code() == ErrorCode.QUEUE_NOT_FOUND) {
        throw notFound("The resource that you requested couldn't be found: " + arn);
      }
      throw e;
    }
  }

  private static SqsError notFound(String message) {
    return SqsError.sender("ResourceNotFoundException", message);
  }

  private static String handle(RedriveTask t) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((t.source() + "\n" + t.id()).getBytes(StandardCharsets.UTF_8));
  }

  static String[] decode(String handle) {
    try {
      String s = new String(Base64.getUrlDecoder().decode(handle), StandardCharsets.UTF_8);
      String[] parts = s.split("\n", -1);
      if (parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty()) {
        return parts;
      }
    } catch (IllegalArgumentException e) {
      // not base64: falls through to the same answer as any unknown handle
    }
    throw notFound("Task does not exist: " + handle);
  }
}
