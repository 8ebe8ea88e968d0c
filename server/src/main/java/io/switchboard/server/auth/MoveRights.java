package io.switchboard.server.auth;

import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.spi.SystemRecords;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Who may move messages into which queue ({@code docs/security.md}, "Moving messages between
 * queues"): every operation that names a second queue, or moves messages into one, needs {@code
 * queue:send} on it, checked when the queue is named and again whenever a message moves for a key.
 *
 * <ul>
 *   <li>Per request, {@link #forKey} wraps the engine a key's request uses, so the native API and
 *       the SQS endpoint check alike: naming a dead-letter target (create, update), dead-lettering
 *       a message (by lease or by id), restoring one, starting a redrive or move task, receiving
 *       from a queue with a dead-letter target (each receive counts toward {@code
 *       maxReceiveCount}), and sending to one whose expired messages are dead-lettered.
 *   <li>For a redrive task, which moves messages for as long as it runs, this is the engine's
 *       {@link MoveCheck}: the key that started it (kept as a system record {@code redrive/<task
 *       id>}, so every server of a cluster and a restarted one know it) must still exist and still
 *       have {@code queue:send} on each queue a message goes to; otherwise the task stops, failed,
 *       and what it has not moved stays in the dead-letter queue.
 * </ul>
 *
 * Every refusal is one audit line, as a 403 is.
 */
public final class MoveRights implements MoveCheck {

  /** The prefix of the system records naming the key that started a redrive task. */
  static final String OWNER_PREFIX = "redrive/";

  /** The key whose request starts a redrive task, while the engine makes the task's first moves. */
  private static final ThreadLocal<@Nullable Principal> STARTING = new ThreadLocal<>();

  private final KeyRing keys;
  private final @Nullable SystemRecords records;
  private final ConcurrentHashMap<String, String> owners = new ConcurrentHashMap<>();

  /**
   * @param keys the server's keys, read at each move (a grant changed or a key revoked applies to
   *     the next move)
   * @param records where the starters of tasks are kept; null for an engine without a store (a
   *     remote one, whose own server checks its tasks)
   */
  public MoveRights(KeyRing keys, @Nullable SystemRecords records) {
    this.keys = keys;
    this.records = records;
  }

  /** The check of {@code engine}'s tasks, with the records of its store if it has one. */
  public static MoveRights of(KeyRing keys, QueueEngine engine) {
    SystemRecords records;
    try {
      records = engine.systemRecords();
    } catch (UnsupportedOperationException remote) {
      records = null;
    }
    return new MoveRights(keys, records);
  }

  /**
   * What is done with a refused request: write its audit line and make the error the API answers
   * (403 {@code DESTINATION_FORBIDDEN} on the native API, {@code AccessDenied} on SQS).
   */
  @FunctionalInterface
  public interface Refusal {
    RuntimeException refuse(Access needed, String message);
  }

  /**
   * {@code engine} as {@code key} uses it in one request: every operation that moves messages into
   * a second queue, or names one to move them into later, first checks that {@code key} may send
   * there, and is refused through {@code refusal} (having changed nothing) when it may not.
   */
  public static QueueEngine forKey(QueueEngine engine, Principal key, Refusal refusal) {
    return new KeyedEngine(engine, key, refusal);
  }

  /**
   * Runs {@code start} (a redrive task's start) with {@code key} as its starter, then records it.
   */
  static <T> T starting(Principal key, java.util.function.Supplier<T> start) {
    Principal before = STARTING.get();
    STARTING.set(key);
    try {
      return start.get();
    } finally {
      if (before == null) {
        STARTING.remove();
      } else {
        STARTING.set(before);
      }
    }
  }

  /** Records that {@code key} started task {@code taskId}, for the moves it makes from now on. */
  static void started(QueueEngine engine, String taskId, Principal key) {
    try {
      engine
          .systemRecords()
          .put(OWNER_PREFIX + taskId, key.keyId().getBytes(StandardCharsets.UTF_8));
    } catch (UnsupportedOperationException remote) {
      // a remote engine's tasks are checked by the server that runs them
    }
  }

  @Override
  public @Nullable String refusal(String taskId, String source, String target) {
    Principal starting = STARTING.get();
    Optional<String> owner = starting != null ? Optional.of(starting.keyId()) : owner(taskId);
    if (owner.isEmpty()) {
      return null; // started without a key (keyless mode, or before starters were recorded)
    }
    if (keys.keyless()) {
      return null;
    }
    Access needed = Access.queue(Action.QUEUE_SEND, target);
    Optional<Principal> key = starting != null ? Optional.of(starting) : keys.find(owner.get());
    String why;
    if (key.isEmpty()) {
      why = "access key " + owner.get() + ", which started it, no longer exists";
    } else if (key.get().may(needed)) {
      return null;
    } else {
      why =
          "access key "
              + key.get().describe()
              + ", which started it, lacks queue:send on queue '"
              + target
              + "' (queue:send is needed on every queue a task moves messages to)";
    }
    String message =
        "stopped: "
            + why
            + "; the messages it had not moved stay in '"
            + source
            + "' (docs/security.md, \"Moving messages between queues\")";
    Audit.refused(owner.get(), needed, 403, "redrive-task/" + taskId, message);
    return message;
  }

  private Optional<String> owner(String taskId) {
    String known = owners.get(taskId);
    if (known != null) {
      return Optional.of(known);
    }
    if (records == null) {
      return Optional.empty();
    }
    Optional<String> stored =
        records.get(OWNER_PREFIX + taskId).map(b -> new String(b, StandardCharsets.UTF_8));
    stored.ifPresent(k -> owners.put(taskId, k)); // a task's starter never changes
    return stored;
  }
}
