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
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

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
    private @Nullable List<Message> result;

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

  /** One queue's waiters, in arrival order, and the lock that serving and giving up take. */
  private static final class Line {
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    final ReentrantLock lock = new ReentrantLock();
    volatile int size;
  }

  private final Map<String, Line> lines = new ConcurrentHashMap<>();

  private Line line(String queue) {
    return lines.computeIfAbsent(queue, k -> new Line());
  }

  void add(String queue, Waiter w) {
    Line line = line(queue);
    line.lock.lock();
    try {
      line.waiters.addLast(w);
      line.size = line.waiters.size();
    } finally {
      line.lock.unlock();
    }
  }

  int size(String queue) {
    Line line = lines.get(queue);
    return line == null ? 0 : line.size;
  }

  /** Gives up a wait; false if it was served meanwhile (its result stands). */
  boolean abandon(String queue, Waiter w) {
    Line line = line(queue);
    line.lock.lock();
    try {
      if (w.done()) {
        return false;
      }
      line.waiters.remove(w);
      line.size = line.waiters.size();
      return true;
    } finally {
      line.lock.unlock();
    }
  }

  /**
   * Serves the line in order: each waiter takes what it can; stops at the first unfiltered waiter
   * that finds nothing (nothing is eligible). A deleted queue ends every wait with nothing.
   */
  void serve(String queue, BiFunction<String, ReceiveRequest, List<Message>> take) {
    Line line = lines.get(queue);
    if (line == null) {
      return;
    }
    line.lock.lock();
    try {
      Iterator<Waiter> it = line.waiters.iterator();
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
    } finally {
      line.size = line.waiters.size();
      line.lock.unlock();
    }
  }

  /** Ends every wait with nothing (engine closing). */
  void releaseAll() {
    for (Line line : lines.values()) {
      line.lock.lock();
      try {
        releaseAll(line);
      } finally {
        line.lock.unlock();
      }
    }
  }

  private static void releaseAll(Line line) {
    for (Waiter w : line.waiters) {
      w.complete(List.of());
    }
    line.waiters.clear();
    line.size = 0;
  }
}
