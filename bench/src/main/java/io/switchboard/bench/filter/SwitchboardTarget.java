package io.switchboard.bench.filter;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The in-memory Switchboard engine, queue indexed on the four attributes the selector uses. */
final class SwitchboardTarget implements Target {

  static final String QUEUE = "filtered";

  private final QueueEngine engine = QueueEngine.inMemory();
  private final ReceiveRequest request =
      ReceiveRequest.builder()
          .maxMessages(1)
          .waitTime(Duration.ZERO)
          .selector(Workload.SELECTOR)
          .build();
  private int sent;

  SwitchboardTarget() {
    engine.createQueue(
        QUEUE,
        QueueConfig.builder()
            .indexedAttributes("language", "gender", "tier", "skills")
            .retention(QueueConfig.MAX_RETENTION)
            .build());
  }

  @Override
  public String name() {
    return "switchboard";
  }

  private NewMessage message(Workload.Msg m) {
    return NewMessage.builder(Workload.body(sent++))
        .attribute("language", m.language())
        .attribute("gender", m.gender())
        .attribute("tier", AttributeValue.number(m.tier()))
        .attribute("skills", AttributeValue.stringList(m.skills()))
        .build();
  }

  @Override
  public void fill(List<Workload.Msg> messages) {
    List<NewMessage> batch = new ArrayList<>(1000);
    for (Workload.Msg m : messages) {
      batch.add(message(m));
      if (batch.size() == 1000) {
        engine.sendBatch(QUEUE, batch);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      engine.sendBatch(QUEUE, batch);
    }
  }

  @Override
  public long receiveAndAckNanos() {
    long start = System.nanoTime();
    List<Message> got = engine.receive(QUEUE, request);
    if (got.isEmpty()) {
      throw new IllegalStateException("switchboard: no message matched " + Workload.SELECTOR);
    }
    engine.ack(QUEUE, got.get(0).receipt().orElseThrow());
    long elapsed = System.nanoTime() - start;
    return elapsed;
  }

  @Override
  public void send(Workload.Msg message) {
    engine.send(QUEUE, message(message));
  }

  @Override
  public long depth() {
    return engine.stats(QUEUE).depth();
  }

  @Override
  public void close() {
    engine.close();
  }
}
