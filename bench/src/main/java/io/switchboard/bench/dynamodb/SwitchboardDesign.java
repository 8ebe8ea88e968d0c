package io.switchboard.bench.dynamodb;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.storage.dynamodb.DynamoQueueEngine;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The store's engine ({@link DynamoQueueEngine}) on a table of its own, one queue configured for
 * the pattern: FIFO, LIFO ({@link Order#LIFO}), priorities on the messages, or attributes the
 * receive's selector matches ({@code languages HAS 'es' AND gender = 'F'}). A manual clock: the
 * engine's minute sweep and its counters' flush, which cost per server and minute rather than per
 * message, stay out of the counted requests.
 */
final class SwitchboardDesign implements Design {

  static final String QUEUE = "bench";

  private final QueueEngine engine;
  private final DynamoDbClient shadow;
  private final String table;
  private final int bodyBytes;

  SwitchboardDesign(
      DynamoDbClient metered,
      DynamoDbClient shadow,
      String prefix,
      Order order,
      int bodyBytes,
      int shards) {
    this.engine =
        DynamoQueueEngine.builder()
            .client(metered)
            .tablePrefix(prefix)
            .clock(ManualClock.create())
            .sweepInterval(Duration.ofDays(1))
            .shards(shards)
            .build();
    this.shadow = shadow;
    this.table = prefix + "switchboard";
    this.bodyBytes = bodyBytes;
    engine.createQueue(QUEUE, QueueConfig.builder().order(order).build());
  }

  private NewMessage message(Message m) {
    NewMessage.Builder b = NewMessage.builder(m.body(bodyBytes));
    if (m.priority() != 0) {
      b.priority(m.priority());
    }
    if (!m.languages().isEmpty()) {
      b.attribute("gender", m.gender());
      b.attribute("languages", AttributeValue.stringList(m.languages()));
    }
    return b.build();
  }

  @Override
  public void send(List<Message> batch) {
    if (batch.size() == 1) {
      engine.send(QUEUE, message(batch.get(0)));
    } else {
      engine.sendBatch(QUEUE, batch.stream().map(this::message).toList());
    }
  }

  @Override
  public List<Taken> receive(@Nullable Want want, int max) {
    ReceiveRequest.Builder r = ReceiveRequest.builder().maxMessages(max).waitTime(Duration.ZERO);
    if (want != null) {
      r.selector("languages HAS '" + want.language() + "' AND gender = '" + want.gender() + "'");
    }
    List<Taken> out = new ArrayList<>();
    for (io.switchboard.queue.Message m : engine.receive(QUEUE, r.build())) {
      out.add(new Taken(Message.idOf(m.body()), m.receipt().orElseThrow()));
    }
    return out;
  }

  @Override
  public void ack(List<Taken> taken) {
    if (taken.size() == 1) {
      engine.ack(QUEUE, (String) taken.get(0).handle());
    } else if (!taken.isEmpty()) {
      engine.ackAll(QUEUE, taken.stream().map(t -> (String) t.handle()).toList());
    }
  }

  @Override
  public long bytesKept() {
    return Tables.bytesKept(shadow, table);
  }

  @Override
  public void close() {
    engine.close();
  }
}
