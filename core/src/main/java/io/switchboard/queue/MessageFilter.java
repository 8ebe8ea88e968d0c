package io.switchboard.queue;

/**
 * Restricts a receive or browse to the messages it accepts. The selector language compiles to one;
 * any predicate works. A filter must be a pure function of the message: the engine may call it any
 * number of times, under the queue's lock, and caches nothing about its answers.
 */
@FunctionalInterface
public interface MessageFilter {

  boolean test(MessageView message);

  /**
   * Tests at a given time; the engine always calls this form, with its clock's time, so that
   * filters over a message's age agree with the engine's timers. By default ignores the time.
   */
  default boolean test(MessageView message, long nowMillis) {
    return test(message);
  }
}
