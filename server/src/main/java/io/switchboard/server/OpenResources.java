package io.switchboard.server;

import java.util.ArrayDeque;
import java.util.Deque;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server has opened, in the order it opened it, closed in reverse by a failed start, a stop
 * and a halt alike: one list, so the three cannot disagree on what is closed. Each resource is
 * pushed as it opens, with what a stop (and a failed start) does to it and what a halt does to it
 * (a halt is a process dying: no lease released, nothing more written; {@link #LEFT} for a resource
 * a dead process would just leave). A step that fails is logged and the next still runs.
 */
final class OpenResources {

  private static final Logger LOG = LoggerFactory.getLogger(OpenResources.class);

  /** One way of closing a resource. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /** The halt step of a resource a dead process would leave as it is. */
  static final Step LEFT = () -> {};

  private record Resource(String name, Step stop, Step halt) {}

  private final Deque<Resource> open = new ArrayDeque<>();

  /** {@code name}, just opened, closed by {@code close} on a stop, a failed start and a halt. */
  synchronized void push(String name, Step close) {
    push(name, close, close);
  }

  /**
   * {@code name}, just opened: {@code stop} on a stop or a failed start, {@code halt} on a halt.
   */
  synchronized void push(String name, Step stop, Step halt) {
    open.push(new Resource(name, stop, halt));
  }

  /** Closes every resource, the newest first, with its stop step. */
  void stop() {
    unwind(false);
  }

  /** Closes every resource, the newest first, with its halt step. */
  void halt() {
    unwind(true);
  }

  private void unwind(boolean halt) {
    for (Resource r = next(); r != null; r = next()) {
      try {
        (halt ? r.halt : r.stop).run();
      } catch (InterruptedException e) {
        // the rest is closed all the same; whoever interrupted is told on return
        Thread.currentThread().interrupt();
        LOG.atWarn().addKeyValue("resource", r.name).log("interrupted while closing " + r.name);
      } catch (Exception | LinkageError e) {
        LOG.atWarn()
            .addKeyValue("resource", r.name)
            .setCause(e)
            .log("closing " + r.name + " failed");
      }
    }
  }

  private synchronized @Nullable Resource next() {
    return open.poll();
  }
}
