package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * This server's blocked receivers, one line per queue, served first come, first served among those
 * whose filter matches. A change on this server (a send, a release) serves the line before the call
 * that made it returns, so a waiter beats any later receive made through the same server; a change
 * on another server reaches the line by notification or polling. Serving and giving up both happen
 * under the line's lock, so a waiter that has given up is never handed messages.
 */
final class WaitLines {

  /** One blocked receive. */
  static final class Waiter {
    final ReceiveRequest request;
    private List<Message> result;

    Waiter(ReceiveRequest request) {
      this.request = request;
    }

    boolean done() {
      synchronized (this) {
        return result != null;
      }
    }

    List<Message> result() {
      synchronized (this) {
        return result == null ? List.of() : result;
      }
    }

    private void complete(List<Message> messages) {
      synchronized (this) {
        result = messages;
      }
    }
  }

  private final Map<String, ArrayDeque<Waiter>> lines = new ConcurrentHashMap<>();

  private ArrayDeque<Waiter> line(String queue) {
    return lines.computeIfAbsent(queue, k -> new ArrayDeque<>());
  }

  void add(String queue, Waiter w) {
    ArrayDeque<Waiter> line = line(queue);
    synchronized (line) {
      line.addLast(w);
    }
  }

  int size(String queue) {
    ArrayDeque<Waiter> line = lines.get(queue);
    if (line == null) {
      return 0;
    }
    synchronized (line) {
      return line.size();
    }
  }

  /** Gives up a wait; false if it was served meanwhile (its result stands). */
  boolean abandon(String queue, Waiter w) {
    ArrayDeque<Waiter> line = line(queue);
    synchronized (line) {
      if (w.done()) {
        return false;
      }
      line.remove(w);
      return true;
    }
  }

  /**
   * Serves the line in order: each waiter takes what it can; stops at the first unfiltered waiter
   * that finds nothing (nothing is eligible). A deleted queue ends every wait with nothing.
   */
  void serve(String queue, BiFunction<String, ReceiveRequest, List<Message>> take) {
    ArrayDeque<Waiter> line = lines.get(queue);
    if (line == null) {
      return;
    }
    synchronized (line) {
      Iterator<Waiter> it = line.iterator();
      while (it.hasNext()) {
        Waiter w = it.next();
        List<Message> got;
        try {
          got = take.apply(queue, w.request);
        } catch (QueueException e) {
          if (e.code() == ErrorCode.QUEUE_NOT_FOUND) {
            releaseAll(line);
            return;
          }
          throw e;
        }
        if (!got.isEmpty()) {
          w.complete(got);
          it.remove();
        } else if (w.request.filter().isEmpty()) {
          return;
        }
      }
    }
  }

  /** Ends every wait with nothing (engine closing). */
  void releaseAll() {
    for (ArrayDeque<Waiter> line : lines.values()) {
      synchronized (line) {
        releaseAll(line);
      }
    }
  }

  private static void releaseAll(ArrayDeque<Waiter> line) {
    for (Waiter w : line) {
      w.complete(List.of());
    }
    line.clear();
  }
}
