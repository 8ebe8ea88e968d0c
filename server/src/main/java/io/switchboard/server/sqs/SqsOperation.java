package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.Action;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every SQS action this endpoint serves, each declared once: its name as SQS spells it, what runs
 * it, the access it needs of a key ({@code docs/security.md}: sending is {@code queue:send};
 * receiving, deleting and changing visibility {@code queue:receive}; reading without change {@code
 * queue:browse}; the rest {@code queue:admin}), and what the server around it must know:
 *
 * <ul>
 *   <li>{@link Flag#READ_ONLY}: it only reads, so it may come over {@code GET} in keyless mode
 *       ({@link SqsRoute}); any other action is refused there;
 *   <li>{@link Flag#NAMES_NO_QUEUE}: it names no queue, so a key needs its access on some queue
 *       pattern ({@link SqsAction#access});
 *   <li>{@link Flag#LONG_POLL}: it may wait for messages, so it takes a long-poll place and a stop
 *       ends it at once; it also reads the selector extension's header;
 *   <li>{@link Flag#NO_RESULT}: its output shape is empty, so its query-protocol answer has no
 *       {@code <XResult>} ({@link QueryXml});
 *   <li>{@link Flag#GRANTABLE}: an {@code AddPermission} may grant it, as AWS allows ({@link
 *       QueuePermissions}).
 * </ul>
 */
enum SqsOperation {
  CREATE_QUEUE("CreateQueue", Action.QUEUE_ADMIN, SqsApi::createQueue),
  GET_QUEUE_URL(
      "GetQueueUrl", Action.QUEUE_BROWSE, SqsApi::getQueueUrl, Flag.READ_ONLY, Flag.GRANTABLE),
  LIST_QUEUES(
      "ListQueues", Action.QUEUE_BROWSE, SqsApi::listQueues, Flag.READ_ONLY, Flag.NAMES_NO_QUEUE),
  DELETE_QUEUE("DeleteQueue", Action.QUEUE_ADMIN, SqsApi::deleteQueue, Flag.NO_RESULT),
  GET_QUEUE_ATTRIBUTES(
      "GetQueueAttributes",
      Action.QUEUE_BROWSE,
      SqsApi::getQueueAttributes,
      Flag.READ_ONLY,
      Flag.GRANTABLE),
  SET_QUEUE_ATTRIBUTES(
      "SetQueueAttributes", Action.QUEUE_ADMIN, SqsApi::setQueueAttributes, Flag.NO_RESULT),
  PURGE_QUEUE("PurgeQueue", Action.QUEUE_ADMIN, SqsApi::purgeQueue, Flag.NO_RESULT, Flag.GRANTABLE),
  SEND_MESSAGE("SendMessage", Action.QUEUE_SEND, MessageActions::send, Flag.GRANTABLE),
  SEND_MESSAGE_BATCH("SendMessageBatch", Action.QUEUE_SEND, MessageActions::sendBatch),
  RECEIVE_MESSAGE(
      "ReceiveMessage",
      Action.QUEUE_RECEIVE,
      ReceiveAction::receive,
      Flag.LONG_POLL,
      Flag.GRANTABLE),
  DELETE_MESSAGE(
      "DeleteMessage",
      Action.QUEUE_RECEIVE,
      MessageActions::delete,
      Flag.NO_RESULT,
      Flag.GRANTABLE),
  DELETE_MESSAGE_BATCH("DeleteMessageBatch", Action.QUEUE_RECEIVE, MessageActions::deleteBatch),
  CHANGE_MESSAGE_VISIBILITY(
      "ChangeMessageVisibility",
      Action.QUEUE_RECEIVE,
      MessageActions::changeVisibility,
      Flag.NO_RESULT,
      Flag.GRANTABLE),
  CHANGE_MESSAGE_VISIBILITY_BATCH(
      "ChangeMessageVisibilityBatch", Action.QUEUE_RECEIVE, MessageActions::changeVisibilityBatch),
  LIST_DEAD_LETTER_SOURCE_QUEUES(
      "ListDeadLetterSourceQueues",
      Action.QUEUE_BROWSE,
      DeadLetterActions::listSources,
      Flag.READ_ONLY,
      Flag.GRANTABLE),
  START_MESSAGE_MOVE_TASK("StartMessageMoveTask", Action.QUEUE_ADMIN, DeadLetterActions::start),
  LIST_MESSAGE_MOVE_TASKS(
      "ListMessageMoveTasks", Action.QUEUE_BROWSE, DeadLetterActions::list, Flag.READ_ONLY),
  CANCEL_MESSAGE_MOVE_TASK("CancelMessageMoveTask", Action.QUEUE_ADMIN, DeadLetterActions::cancel),
  TAG_QUEUE("TagQueue", Action.QUEUE_ADMIN, QueueTags::tag, Flag.NO_RESULT),
  UNTAG_QUEUE("UntagQueue", Action.QUEUE_ADMIN, QueueTags::untag, Flag.NO_RESULT),
  LIST_QUEUE_TAGS(
      "ListQueueTags", Action.QUEUE_BROWSE, QueueTags::list, Flag.READ_ONLY, Flag.GRANTABLE),
  ADD_PERMISSION("AddPermission", Action.QUEUE_ADMIN, QueuePermissions::add, Flag.NO_RESULT),
  REMOVE_PERMISSION(
      "RemovePermission", Action.QUEUE_ADMIN, QueuePermissions::remove, Flag.NO_RESULT);

  /** What an operation is, beyond its name, handler and access (see the class comment). */
  enum Flag {
    READ_ONLY,
    NAMES_NO_QUEUE,
    LONG_POLL,
    NO_RESULT,
    GRANTABLE
  }

  /** Runs one action on a parsed request; the answer in the JSON protocol's shape. */
  @FunctionalInterface
  interface Handler {
    ObjectNode run(QueueEngine engine, SqsRequest request);
  }

  private static final Map<String, SqsOperation> BY_NAME =
      Arrays.stream(values())
          .collect(Collectors.toUnmodifiableMap(SqsOperation::action, Function.identity()));

  private final String action;
  private final Action access;
  private final Handler handler;
  private final Set<Flag> flags;

  SqsOperation(String action, Action access, Handler handler, Flag... flags) {
    this.action = action;
    this.access = access;
    this.handler = handler;
    this.flags =
        flags.length == 0 ? EnumSet.noneOf(Flag.class) : EnumSet.copyOf(Arrays.asList(flags));
  }

  /** The operation SQS calls {@code action}; empty if this endpoint serves none of that name. */
  static Optional<SqsOperation> named(String action) {
    return Optional.ofNullable(BY_NAME.get(action));
  }

  /** The action's name, as SQS spells it ({@code SendMessageBatch}). */
  String action() {
    return action;
  }

  /** The access control action a key needs for it. */
  Action access() {
    return access;
  }

  Handler handler() {
    return handler;
  }

  /** It only reads (and may come over {@code GET} in keyless mode). */
  boolean readOnly() {
    return flags.contains(Flag.READ_ONLY);
  }

  /** It names no queue: a key needs its access on some queue pattern. */
  boolean namesNoQueue() {
    return flags.contains(Flag.NAMES_NO_QUEUE);
  }

  /** It may wait for messages (a long poll), and reads the selector extension's header. */
  boolean longPoll() {
    return flags.contains(Flag.LONG_POLL);
  }

  /** Its output shape is empty: a query-protocol answer has no {@code <XResult>}. */
  boolean noResult() {
    return flags.contains(Flag.NO_RESULT);
  }

  boolean has(Flag flag) {
    return flags.contains(flag);
  }

  /** Whether {@code action} names an operation served that has {@code flag}. */
  static boolean has(String action, Flag flag) {
    SqsOperation op = BY_NAME.get(action);
    return op != null && op.flags.contains(flag);
  }
}
