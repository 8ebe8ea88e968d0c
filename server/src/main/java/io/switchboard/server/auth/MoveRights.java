package io.switchboard.server.auth;

import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.Clock;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Who may move messages into which queue ({@code docs/security.md}, "Moving messages between
 * queues"): every operation that names a second queue, or moves messages into one, needs {@code
 * queue:send} on it, checked when the queue is named and again whenever a message moves for a key.
 *
 * <ul>
 *   <li>Per request, {@link #forKey} wraps the engine a key's request uses, so the native API and
 *       the SQS endpoint check alike: naming a dead-letter target (create, update), dead-lettering
 *       a message (by lease or by id), restoring one, starting a redrive or move task. Receiving
 *       and sending need nothing on the target: a consumer needs only its own queue.
 *   <li>For the moves the engine makes on its own (a message's lease ends after its {@code
 *       maxReceiveCount}th receive; it expires in an {@code onExpire: deadLetter} queue), this is
 *       the engine's {@link MoveCheck#deadLetterRefusal}: the key that set the queue's dead-letter
 *       target (kept as a system record {@code dead-letter/<queue>} with that target) must still
 *       exist and still have {@code queue:send} on it; otherwise the message stays in its queue.
 *   <li>For a redrive task, which moves messages for as long as it runs, this is the engine's
 *       {@link MoveCheck}: the key that started it (kept as a system record {@code redrive/<task
 *       id>}, so every server of a cluster and a restarted one know it) must still exist and still
 *       have {@code queue:send} on each queue a message goes to; otherwise the task stops, failed,
 *       and what it has not moved stays in the dead-letter queue.
 * </ul>
 *
 * Every refusal is one audit line, as a 403 is; refused dead-letter moves at most one line per
 * queue and target a minute ({@link #AUDIT_EVERY_MILLIS}), counting the refusals it stands for.
 */
public final class MoveRights implements MoveCheck {

  /** The prefix of the system records naming the key that started a redrive task. */
  static final String OWNER_PREFIX = "redrive/";

  /**
   * The prefix of the system records naming the key that set a queue's dead-letter target: {@code
   * dead-letter/<queue>} holds the key id, a line feed, and the target it set.
   */
  static final String CONFIGURER_PREFIX = "dead-letter/";

  /** At most one audit line a minute per queue and target for refused dead-letter moves. */
  static final long AUDIT_EVERY_MILLIS = 60_000;

  /** The key whose request starts a redrive task, while the engine makes the task's first moves. */
  private static final ThreadLocal<@Nullable Principal> STARTING = new ThreadLocal<>();

  private final KeyRing keys;
  private final @Nullable SystemRecords records;
  private final ConcurrentHashMap<String, String> owners = new ConcurrentHashMap<>();
  private final Clock clock;
  private final AtomicLong deadLetterRefusals = new AtomicLong();

  /** Per "source\ntarget": when its last refusal line was written, and refusals since. */
  private final ConcurrentHashMap<String, long[]> refusedLines = new ConcurrentHashMap<>();

  /**
   * @param keys the server's keys, read at each move (a grant changed or a key revoked applies to
   *     the next move)
   * @param records where the starters of tasks and the configurers of dead-letter targets are kept;
   *     null for an engine without a store (a remote one, whose own server checks its moves)
   * @param clock what spaces the audit lines of refused dead-letter moves
   */
  public MoveRights(KeyRing keys, @Nullable SystemRecords records, Clock clock) {
    this.keys = keys;
    this.records = records;
    this.clock = clock;
  }

  /** The check of {@code engine}'s tasks, with the records of its store if it has one. */
  public static MoveRights of(KeyRing keys, QueueEngine engine) {
    SystemRecords records;
    try {
      records = engine.systemRecords();
    } catch (UnsupportedOperationException remote) {
      records = null;
    }
    return new MoveRights(keys, records, engine.clock());
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

  /**
   * Records that {@code key} set {@code target} as the dead-letter target of {@code queue} (none:
   * the queue has no other target now, and the record goes), for the moves the engine makes there
   * on its own from now on.
   */
  static void configured(QueueEngine engine, String queue, Optional<String> target, Principal key) {
    try {
      SystemRecords store = engine.systemRecords();
      if (target.isEmpty()) {
        store.delete(CONFIGURER_PREFIX + queue);
      } else {
        store.put(
            CONFIGURER_PREFIX + queue,
            (key.keyId() + "\n" + target.get()).getBytes(StandardCharsets.UTF_8));
      }
    } catch (UnsupportedOperationException remote) {
      // a remote engine's moves are checked by the server that makes them
    }
  }

  /**
   * The key that set {@code target} as {@code source}'s dead-letter target must still exist and may
   * send there. No record (set in keyless mode, by the {@code --init} file, or before configurers
   * were recorded), or one for another target (set since without a key), checks nothing.
   */
  @Override
  public @Nullable String deadLetterRefusal(String source, String target, String messageId) {
    if (records == null || keys.keyless()) {
      return null;
    }
    Optional<String> stored =
        records.get(CONFIGURER_PREFIX + source).map(b -> new String(b, StandardCharsets.UTF_8));
    if (stored.isEmpty()) {
      return null;
    }
    int cut = stored.get().indexOf('\n');
    if (cut < 0 || !stored.get().substring(cut + 1).equals(target)) {
      return null;
    }
    String keyId = stored.get().substring(0, cut);
    Access needed = Access.queue(Action.QUEUE_SEND, target);
    Optional<Principal> key = keys.find(keyId);
    String why;
    if (key.isEmpty()) {
      why = "access key " + keyId + ", which set it, no longer exists";
    } else if (key.get().may(needed)) {
      return null;
    } else {
      why =
          "access key "
              + key.get().describe()
              + ", which set it, lacks queue:send on queue '"
              + target
              + "'";
    }
    String message =
        "dead-lettering message "
            + messageId
            + " of queue '"
            + source
            + "' into its dead-letter target '"
            + target
            + "' refused: "
            + why
            + "; the message stays in '"
            + source
            + "' with its receive count, and moves once that key may send there again or a key"
            + " that may sets the target anew"
            + SEE;
    deadLetterRefusals.incrementAndGet();
    long now = clock.millis();
    long[] line =
        refusedLines.computeIfAbsent(source + "\n" + target, k -> new long[] {Long.MIN_VALUE, 0});
    boolean write;
    long refusals;
    synchronized (line) {
      line[1]++;
      write = line[0] == Long.MIN_VALUE || now - line[0] >= AUDIT_EVERY_MILLIS;
      refusals = line[1];
      if (write) {
        line[0] = now;
        line[1] = 0;
      }
    }
    if (write) {
      Audit.refused(
          keyId,
          needed,
          403,
          CONFIGURER_PREFIX + source,
          message
              + (refusals > 1
                  ? " ("
                      + refusals
                      + " dead-letter moves of this queue refused since the last line)"
                  : ""));
    }
    return message;
  }

  /** How many dead-letter moves the engine would have made on its own were refused so far. */
  public long deadLetterRefusals() {
    return deadLetterRefusals.get();
  }

  private static final String SEE = " (docs/security.md, \"Moving messages between queues\")";

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
