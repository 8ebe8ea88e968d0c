package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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
 * @param read what was read here that serving the request reads again, kept so that it is read once
 *     ({@link Read}: the protocol, the request's queue address, the JSON body, the queue URL
 *     resolved)
 */
public record SqsAction(
    Optional<String> name, Optional<String> queue, Optional<Duration> waitTime, Read read) {

  /**
   * What the read-ahead found that {@link SqsEndpoint} would otherwise find again when it admits
   * and serves the same request (docs/bench-history/sqs.md: the SQS path read each of these two or
   * three times per request): whether the request speaks the JSON protocol, its {@link
   * QueueAddress} (none if its region could not be read: the endpoint refuses it), the JSON body as
   * a tree (none for a query request or a body that is not a JSON object: the endpoint parses, and
   * refuses, it), and the {@code QueueUrl} with the engine queue it resolved to (none if it did not
   * resolve: the action resolves it again and says why). Only meaningful for the request it was
   * read from.
   */
  public static final class Read {
    final boolean json;
    final @Nullable QueueAddress address;
    final @Nullable ObjectNode tree;
    final @Nullable String url;
    final @Nullable String queue;

    Read(
        boolean json,
        @Nullable QueueAddress address,
        @Nullable ObjectNode tree,
        @Nullable String url,
        @Nullable String queue) {
      this.json = json;
      this.address = address;
      this.tree = tree;
      this.url = url;
      this.queue = queue;
    }

    @Override
    public String toString() {
      return "Read[json=" + json + ", tree=" + (tree != null) + ", queue=" + queue + "]";
    }
  }

  /**
   * The JSON-protocol body as read here, which {@link SqsEndpoint#handle} serves instead of parsing
   * the body again (a read-only tree until then); empty if it was not read (a query request, no
   * action or address, or a body that is not a JSON object: the endpoint refuses it).
   */
  public Optional<ObjectNode> json() {
    return Optional.ofNullable(read.tree);
  }

  /**
   * The access control action of each SQS action this endpoint serves, by name: a view of {@link
   * SqsOperation#access}.
   */
  static final Map<String, Action> ACCESS =
      java.util.Arrays.stream(SqsOperation.values())
          .collect(
              java.util.stream.Collectors.toUnmodifiableMap(
                  SqsOperation::action, SqsOperation::access));

  /**
   * Reads {@code request}'s action, in either protocol, the way the endpoint will, and the engine
   * queue it names (its {@code QueueUrl}, {@code QueueName}, {@code SourceArn} or move task handle;
   * none if the request has no address); {@code baseUrl} completes a query request posted to a
   * queue URL's path.
   */
  static SqsAction of(SqsHttpRequest request, @Nullable QueueAddress address, String baseUrl) {
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
      return new SqsAction(
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          new Read(json, address, null, null, null));
    }
    if (name.isEmpty() || address == null) {
      return new SqsAction(
          name, Optional.empty(), Optional.empty(), new Read(json, address, null, null, null));
    }
    ObjectNode body = null;
    try {
      ObjectNode tree =
          json ? SqsRequest.parseBody(request.body()) : QueryForm.tree(name.get(), parameters);
      body = json ? tree : null;
      SqsRequest r = SqsRequest.readAhead(tree, address);
      Optional<String> url = r.string("QueueUrl");
      // only a URL the request carries is kept for serving: a query request's path is not in its
      // tree until the endpoint puts it there
      String carried = url.orElse(null);
      if (url.isEmpty() && !json && SqsEndpoint.isQueuePath(request.rawPath())) {
        url = Optional.of(baseUrl + request.rawPath()); // a query request posted to the queue URL
      }
      Optional<String> queue = queue(r, url, address);
      Read read =
          new Read(
              json,
              address,
              body,
              carried,
              carried != null && queue.isPresent() ? queue.get() : null);
      if (!SqsOperation.has(name.get(), SqsOperation.Flag.LONG_POLL)) {
        return new SqsAction(name, queue, Optional.empty(), read);
      }
      var wait = r.integer("WaitTimeSeconds");
      return new SqsAction(
          name,
          queue,
          wait.isPresent() ? Optional.of(Duration.ofSeconds(wait.getAsInt())) : Optional.empty(),
          read);
    } catch (SqsError malformed) {
      return new SqsAction(
          name, Optional.empty(), Optional.empty(), new Read(json, address, body, null, null));
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
    SqsOperation operation =
        SqsOperation.named(name.get())
            .orElseThrow(() -> new IllegalStateException("not served: " + name.get()));
    if (operation.namesNoQueue()) {
      return Optional.of(Access.any(operation.access()));
    }
    return Optional.of(Access.queue(operation.access(), queue.orElse("*")));
  }

  /** True for a long poll ({@code ReceiveMessage}) that names its queue. */
  public boolean receive() {
    return name.filter(n -> SqsOperation.has(n, SqsOperation.Flag.LONG_POLL)).isPresent()
        && queue.isPresent();
  }
}
