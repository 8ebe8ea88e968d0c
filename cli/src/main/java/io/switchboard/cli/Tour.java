package io.switchboard.cli;

import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A narrated walk through the four seed patterns on an in-memory engine. The clock is simulated, so
 * the tour takes no time and prints the same every run.
 */
final class Tour {

  private final PrintStream out;
  private final ManualClock clock = ManualClock.create();

  Tour(PrintStream out) {
    this.out = out;
  }

  int run(String[] args) {
    try (QueueEngine engine = QueueEngine.builder().clock(clock).build()) {
      agentQueue(engine);
      priorityQueue(engine);
      lifoWithTtl(engine);
      groupedFifo(engine);
    }
    return Main.OK;
  }

  /** Seed 000: the earliest available agent matching language and gender. */
  private void agentQueue(QueueEngine engine) {
    title("Seed 000: filtered agent queue");
    engine.createQueue("agents", QueueConfig.defaults());
    agent(engine, "ana", "es", "F");
    agent(engine, "luis", "es", "M");
    agent(engine, "jean", "fr", "M");
    agent(engine, "pablo", "es", "M");
    List<Message> got =
        engine.receive(
            "agents",
            ReceiveRequest.builder()
                .filter(
                    m ->
                        "es".equals(text(m.attributeOrNull("language")))
                            && "M".equals(text(m.attributeOrNull("gender"))))
                .build());
    say("a caller wants a Spanish-speaking male agent: " + got.get(0).body());
    say("the earliest such agent wins; pablo stays available for the next caller");
    engine.ack("agents", got.get(0).receipt().orElseThrow());
  }

  private void agent(QueueEngine engine, String name, String language, String gender) {
    engine.send(
        "agents",
        NewMessage.builder(name)
            .attribute("language", language)
            .attribute("gender", gender)
            .build());
    clock.advanceSeconds(1);
  }

  /** Seed 001: priorities, change of priority while queued, dead letters and restore. */
  private void priorityQueue(QueueEngine engine) {
    title("Seed 001: priority queue with change-priority and dead letters");
    engine.createQueue("shipments-dlq", QueueConfig.defaults());
    engine.createQueue(
        "shipments",
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(30))
            .deadLetter("shipments-dlq", 2)
            .build());
    String a = engine.send("shipments", NewMessage.of("shipment-A")).id();
    engine.send("shipments", NewMessage.of("shipment-B"));
    String c = engine.send("shipments", NewMessage.of("shipment-C")).id();
    engine.update("shipments", c, MessageUpdate.priority(10));
    say("C raised to priority 10 while queued; next out: " + next(engine, "shipments"));
    engine.touch("shipments", a);
    say("A touched to the back; next out: " + next(engine, "shipments"));
    for (int attempt = 1; attempt <= 2; attempt++) {
      Message m = engine.receive("shipments", ReceiveRequest.one()).get(0);
      say("attempt " + attempt + " on " + m.body() + " fails; its lease runs out");
      clock.advanceSeconds(30);
    }
    say(
        "after 2 receives A went to the dead-letter queue: "
            + engine.get("shipments-dlq", a).state().wireName());
    engine.restore("shipments-dlq", a);
    say("restored, A is back: " + engine.get("shipments", a).state().wireName());
    stats(engine, "shipments");
  }

  private String next(QueueEngine engine, String queue) {
    Message m = engine.receive(queue, ReceiveRequest.one()).get(0);
    engine.ack(queue, m.receipt().orElseThrow());
    return m.body();
  }

  /** Seed 002: LIFO, old tasks shed by TTL and by a depth limit. */
  private void lifoWithTtl(QueueEngine engine) {
    title("Seed 002: LIFO task queue with TTL and load shedding");
    engine.createQueue(
        "validations",
        QueueConfig.builder()
            .order(Order.LIFO)
            .retention(Duration.ofSeconds(60))
            .onExpire(ExpiryAction.DELETE)
            .maxDepth(3, Overflow.DROP_OLDEST)
            .build());
    for (int i = 1; i <= 5; i++) {
      engine.send("validations", NewMessage.of("connection-" + i));
      clock.advanceSeconds(5);
    }
    say("5 tasks sent 5 s apart into a queue of depth 3 with 60 s retention");
    say("shed (oldest first): " + engine.stats("validations").counters().shed());
    clock.advanceSeconds(50);
    QueueStats s = engine.stats("validations");
    say(
        "50 s later: expired "
            + s.counters().expired()
            + ", left "
            + s.depth()
            + "; newest first: "
            + next(engine, "validations"));
  }

  /** Seed 003: SQS FIFO message groups and their batch rules. */
  private void groupedFifo(QueueEngine engine) {
    title("Seed 003: grouped FIFO (SQS FIFO rules)");
    engine.createQueue("bids.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    List<NewMessage> bids = new ArrayList<>();
    for (int i = 1; i <= 11; i++) {
      bids.add(NewMessage.builder("A" + i).groupId("A").build());
      bids.add(NewMessage.builder("B" + i).groupId("B").build());
    }
    engine.sendBatch("bids.fifo", bids);
    say("11 bids each for auctions A and B, interleaved");
    List<Message> one = engine.receive("bids.fifo", ReceiveRequest.max(10));
    List<Message> two = engine.receive("bids.fifo", ReceiveRequest.max(10));
    say("consumer 1 gets " + bodies(one));
    say("consumer 2 gets " + bodies(two));
    one.forEach(m -> engine.ack("bids.fifo", m.receipt().orElseThrow()));
    say(
        "consumer 1 acks and asks again while B is in flight: "
            + bodies(engine.receive("bids.fifo", ReceiveRequest.max(10))));
  }

  private static String bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList().toString();
  }

  private static @Nullable String text(@Nullable Object value) {
    return value instanceof io.switchboard.queue.AttributeValue.StringValue s ? s.value() : null;
  }

  private void stats(QueueEngine engine, String queue) {
    QueueStats s = engine.stats(queue);
    say(
        "stats: available "
            + s.available()
            + ", in flight "
            + s.inFlight()
            + ", sent "
            + s.counters().sent()
            + ", acked "
            + s.counters().acked()
            + ", dead-lettered "
            + s.counters().deadLettered());
  }

  private void title(String text) {
    out.println();
    out.println("== " + text);
  }

  private void say(String text) {
    out.println("   " + text);
  }
}
