package io.switchboard.client;

/**
 * Takes the messages a {@link Subscription} pushes: one call at a time, in delivery order, on a
 * thread of the client's gRPC transport (hand long work to another thread and settle from there).
 */
@FunctionalInterface
public interface MessageHandler {

  void onMessage(Delivery delivery);
}
