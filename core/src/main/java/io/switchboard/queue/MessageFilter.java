package io.switchboard.queue;

/**
 * Restricts a receive or browse to the messages it accepts. The selector language compiles to one;
 * any predicate works. A filter must be a pure function of the message: the engine may call it any
 * number of times, under the queue's lock, and caches nothing about its answers.
 */
@FunctionalInterface
public interface MessageFilter {

  boolean test(MessageView message);
}
