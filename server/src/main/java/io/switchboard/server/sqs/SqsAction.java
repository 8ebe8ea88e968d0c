package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What an SQS request asks for, read before it is served, for the server around the endpoint: the
 * action, which names the request in the metrics, and for a {@code ReceiveMessage} the queue and
 * the wait it names, from which the server tells a long poll (which a stop ends at once with no
 * messages) from ordinary work (which a stop lets finish). Read leniently and without a signature
 * check: whatever cannot be read here is left for {@link SqsEndpoint#handle} to refuse.
 *
 * @param name the action, if the request names one this endpoint serves (so that the metrics see a
 *     bounded set of names)
 * @param queue the engine queue the request names, if it names one that can be read
 * @param waitTime the {@code WaitTimeSeconds} of a {@code ReceiveMessage}; empty if it names none
 *     (the queue's receive wait applies)
 * @param json the JSON-protocol body as read here, which {@link SqsEndpoint#handle} serves instead
 *     of parsing the body again (a read-only tree until then); empty if it was not read (a query
 *     request, no action or address, or a body that is not a JSON object: the endpoint refuses it)
 */
public record SqsAction(
    Optional<String> name,
    Optional<String> queue,
    Optional<Duration> waitTime,
    Optional<ObjectNode> json) {

  SqsAction(Optional<String> name, Optional<String> queue, Optional<Duration> waitTime) {
    this(name, queue, waitTime, Optional.empty());
  }

  private static final String RECEIVE = "ReceiveMessage";

  /**
   * The access control action of each SQS action this endpoint serves ({@code docs/security.md}):
   * sending is {@code queue:send}; receiving, deleting and changing visibility {@code
   * queue:receive}; reading without change {@code queue:browse}; the rest {@code queue:admin}.
   */
  static final Map<String, Action> ACCESS =
      Map.ofEntries(
          Map.entry("SendMessage", Action.QUEUE_SEND),
          Map.entry("SendMessageBatch", Action.QUEUE_SEND),
          Map.entry("ReceiveMessage", Action.QUEUE_RECEIVE),
          Map.entry("DeleteMessage", Action.QUEUE_RECEIVE),
          Map.entry("DeleteMessageBatch", Action.QUEUE_RECEIVE),
          Map.entry("ChangeMessageVisibility", Action.QUEUE_RECEIVE),
          Map.entry("ChangeMessageVisibilityBatch", Action.QUEUE_RECEIVE),
          Map.entry("GetQueueUrl", Action.QUEUE_BROWSE),
          Map.entry("ListQueues", Action.QUEUE_BROWSE),
          Map.entry("GetQueueAttributes", Action.QUEUE_BROWSE),
          Map.entry("ListDeadLetterSourceQueues", Action.QUEUE_BROWSE),
          Map.entry("ListQueueTags", Action.QUEUE_BROWSE),
          Map.entry("ListMessageMoveTasks", Action.QUEUE_BROWSE),
          Map.entry("CreateQueue", Action.QUEUE_ADMIN),
          Map.entry("DeleteQueue", Action.QUEUE_ADMIN),
          Map.entry("SetQueueAttributes", Action.QUEUE_ADMIN),
          Map.entry("PurgeQueue", Action.QUEUE_ADMIN),
          Map.entry("StartMessageMoveTask", Action.QUEUE_ADMIN),
          Map.entry("CancelMessageMoveTask", Action.QUEUE_ADMIN),
          Map.entry("TagQueue", Action.QUEUE_ADMIN),
          Map.entry("UntagQueue", Action.QUEUE_ADMIN),
          Map.entry("AddPermission", Action.QUEUE_ADMIN),
          Map.entry("RemovePermission", Action.QUEUE_ADMIN));

  /** The SQS actions that name no queue: a key needs the action on some queue pattern. */
  private static final Set<String> QUEUELESS = Set.of("ListQueues");

  /**
   * Reads {@code request}'s action, in either protocol, the way the endpoint will, and the engine
   * queue it names (its {@code QueueUrl}, {@code QueueName}, {@code SourceArn} or move task handle;
   * none if the request has no address); {@code baseUrl} completes a query request posted to a
   * queue URL's path.
   */
  static SqsAction of(SqsHttpRequest request, Optional<QueueAddress> address, String baseUrl) {
    boolean json = SqsEndpoint.json(request);
    Map<String, String> parameters;
    Optional<String> name;
    try {
      parameters = json ? Map.of() : SqsEndpoint.parameters(request);
      name =
          (json
                  ? SqsApi.action(request.header("x-amz-target"))
                  : Optional.ofNullable(parameters.get("Action")))
              .filter(SqsApi::serves);
    } catch (SqsError malformed) {
      return new SqsAction(Optional.empty(), Optional.empty(), Optional.empty());
    }
    if (name.isEmpty() || address.isEmpty()) {
      return new SqsAction(name, Optional.empty(), Optional.empty());
    }
    Optional<ObjectNode> body = Optional.empty();
    try {
      ObjectNode tree =
          json ? SqsRequest.parseBody(request.body()) : QueryForm.tree(name.get(), parameters);
      body = json ? Optional.of(tree) : Optional.empty();
      SqsRequest r = SqsRequest.readAhead(tree, address.get());
      Optional<String> url = r.string("QueueUrl");
      if (url.isEmpty() && !json && SqsEndpoint.isQueuePath(request.rawPath())) {
        url = Optional.of(baseUrl + request.rawPath()); // a query request posted to the queue URL
      }
      Optional<String> queue = queue(r, url, address.get());
      if (!name.equals(Optional.of(RECEIVE))) {
        return new SqsAction(name, queue, Optional.empty(), body);
      }
      var wait = r.integer("WaitTimeSeconds");
      return new SqsAction(
          name,
          queue,
          wait.isPresent() ? Optional.of(Duration.ofSeconds(wait.getAsInt())) : Optional.empty(),
          body);
    } catch (SqsError malformed) {
      return new SqsAction(name, Optional.empty(), Optional.empty(), body);
    }
  }

  private static Optional<String> queue(SqsRequest r, Optional<String> url, QueueAddress address) {
    try {
      if (url.isPresent()) {
        return Optional.of(address.fromUrl(url.get()));
      }
      Optional<String> queueName = r.string("QueueName");
      if (queueName.isPresent()) {
        return Optional.of(address.lookup(queueName.get()));
      }
      Optional<String> arn = r.string("SourceArn");
      if (arn.isPresent()) {
        return address.fromArn(arn.get());
      }
      Optional<String> handle = r.string("TaskHandle");
      if (handle.isPresent()) {
        return Optional.of(DeadLetterActions.decode(handle.get())[0]);
      }
    } catch (SqsError | IllegalArgumentException unreadable) {
      // the action refuses it; access control checks it as naming no queue it could allow
    }
    return Optional.empty();
  }

  /**
   * What the request needs of its key: its action's access on the queue it names; an action that
   * names no queue (ListQueues) needs the action on some queue pattern, and one whose queue cannot
   * be read needs it on every queue ({@code *}), since the key could not be told what it may touch.
   * Empty for a request that names no action this endpoint serves (it is refused anyway).
   */
  public Optional<Access> access() {
    if (name.isEmpty()) {
      return Optional.empty();
    }
    Action action =
        Objects.requireNonNull(ACCESS.get(name.get()), "every action served has an access");
    if (QUEUELESS.contains(name.get())) {
      return Optional.of(Access.any(action));
    }
    return Optional.of(Access.queue(action, queue.orElse("*")));
  }

  /** True for a {@code ReceiveMessage} that names its queue. */
  public boolean receive() {
    return name.equals(Optional.of(RECEIVE)) && queue.isPresent();
  }
}
