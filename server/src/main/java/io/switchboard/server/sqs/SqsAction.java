package io.switchboard.server.sqs;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * What an SQS request asks for, read before it is served, for the server around the endpoint: the
 * action, which names the request in the metrics, and for a {@code ReceiveMessage} the queue and
 * the wait it names, from which the server tells a long poll (which a stop ends at once with no
 * messages) from ordinary work (which a stop lets finish). Read leniently and without a signature
 * check: whatever cannot be read here is left for {@link SqsEndpoint#handle} to refuse.
 *
 * @param name the action, if the request names one this endpoint serves (so that the metrics see a
 *     bounded set of names)
 * @param queue the queue a {@code ReceiveMessage} names
 * @param waitTime the {@code WaitTimeSeconds} of a {@code ReceiveMessage}; empty if it names none
 *     (the queue's receive wait applies)
 */
public record SqsAction(
    Optional<String> name, Optional<String> queue, Optional<Duration> waitTime) {

  private static final String RECEIVE = "ReceiveMessage";

  /**
   * Reads {@code request}'s action, in either protocol, the way the endpoint will; its queue is the
   * engine's queue of {@code address} (none if the request has no address).
   */
  static SqsAction of(SqsHttpRequest request, Optional<QueueAddress> address) {
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
    if (!name.equals(Optional.of(RECEIVE)) || address.isEmpty()) {
      return new SqsAction(name, Optional.empty(), Optional.empty());
    }
    try {
      SqsRequest r =
          SqsRequest.readAhead(
              json ? SqsRequest.parseBody(request.body()) : QueryForm.tree(RECEIVE, parameters),
              address.get());
      Optional<String> queue = r.string("QueueUrl");
      if (queue.isEmpty() && !json && SqsEndpoint.isQueuePath(request.rawPath())) {
        queue = Optional.of(request.rawPath()); // a query request posted to the queue URL
      }
      var wait = r.integer("WaitTimeSeconds");
      return new SqsAction(
          name,
          queue.map(address.get()::fromUrl),
          wait.isPresent() ? Optional.of(Duration.ofSeconds(wait.getAsInt())) : Optional.empty());
    } catch (SqsError malformed) {
      return new SqsAction(name, Optional.empty(), Optional.empty());
    }
  }

  /** True for a {@code ReceiveMessage} that names its queue. */
  public boolean receive() {
    return name.equals(Optional.of(RECEIVE)) && queue.isPresent();
  }
}
