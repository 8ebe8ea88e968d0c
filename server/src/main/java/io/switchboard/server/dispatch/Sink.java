package io.switchboard.server.dispatch;

import io.switchboard.queue.Message;
import io.switchboard.queue.QueueException;
import java.util.List;

/**
 * Where a {@link Subscription} puts what it takes: a transport's outbound side (a gRPC stream, an
 * HTTP endpoint). Called from the subscription's own thread, one call at a time, in delivery order.
 */
public interface Sink {

  /** One leased message; it counts against the credit until settled or its lease runs out. */
  void deliver(Message message);

  /**
   * What one receive took (topped up for {@link ConsumeOptions#batchWindow}), 1 or more messages in
   * delivery order: a sink that sends batches sends them as one. By default {@link #deliver} each.
   */
  default void deliverBatch(List<Message> messages) {
    for (Message m : messages) {
      deliver(m);
    }
  }

  /**
   * The subscription ended without its owner closing it: the engine refused a receive ({@code
   * error}, e.g. the queue was deleted), or the dispatcher closed (the server is stopping, {@code
   * UNAVAILABLE}). Its leases are released by then.
   */
  void failed(QueueException error);
}
