package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.MessageEvent;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.RedriveRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What becomes of a message beyond the answers of calls ({@link MessageEvent}, {@code
 * QueueEngine.onMessageEvent}): dead-lettered by the engine or by a call, redriven or restored,
 * dropped at expiry; told once the change is made, and nothing told for the ordinary life of a
 * message.
 */
public abstract class MessageEventContract extends EngineContract {

  private final List<MessageEvent> told = new CopyOnWriteArrayList<>();

  @BeforeEach
  void listen() {
    engine.onMessageEvent(told::add);
  }

  /** A short description of each event told so far: kind, queues, message id, cause. */
  private List<String> told() {
    return told.stream()
        .map(
            e ->
                switch (e) {
                  case MessageEvent.DeadLettered d ->
                      "dead-lettered "
                          + d.queue()
                          + ">"
                          + d.target()
                          + " "
                          + d.message().id()
                          + " "
                          + d.cause();
                  case MessageEvent.Redriven r ->
                      "redriven " + r.queue() + ">" + r.target() + " " + r.message().id();
                  case MessageEvent.Expired x -> "expired " + x.queue() + " " + x.message().id();
                })
        .toList();
  }

  @Test
  void ordinaryLife_sendReceiveAckRelease_tellsNothing() {
    create("q", config().visibilityTimeout(seconds(10)));
    sendAll("q", "a", "b");
    engine.ack("q", receipt(receiveOne("q")));
    engine.release("q", receipt(receiveOne("q")));
    clock.advanceSeconds(20);
    assertEquals(1, engine.stats("q").depth());
    assertEquals(List.of(), told());
  }

  @Test
  void receivesRunOut_deadLettered_toldWithTheMessageItsTargetAndCause() {
    create("dlq");
    create("q", config().visibilityTimeout(seconds(10)).deadLetter("dlq", 1));
    String id =
        engine.send("q", NewMessage.builder("x").attribute("traceparent", "tp").build()).id();
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("dlq").depth());
    assertEquals(List.of("dead-lettered q>dlq " + id + " MAX_RECEIVES"), told());
    assertEquals(
        AttributeValue.string("tp"),
        told.get(0).message().attributes().get("traceparent"),
        "the message's attributes, where its trace context is");
  }

  @Test
  void receivesRunOut_onRelease_deadLettered() {
    create("dlq");
    create("q", config().visibilityTimeout(seconds(10)).deadLetter("dlq", 1));
    String id = send("q", "x").id();
    engine.release("q", receipt(receiveOne("q")));
    assertEquals(List.of("dead-lettered q>dlq " + id + " MAX_RECEIVES"), told());
  }

  @Test
  void deadLetteredOnRequest_toldAsRequested() {
    create("dlq");
    create("q", config().deadLetter("dlq", 5));
    String byId = send("q", "a").id();
    String byReceipt = send("q", "b").id();
    engine.deadLetterById("q", byId);
    engine.deadLetter("q", receipt(receiveOne("q")));
    assertEquals(
        List.of(
            "dead-lettered q>dlq " + byId + " REQUESTED",
            "dead-lettered q>dlq " + byReceipt + " REQUESTED"),
        told());
  }

  @Test
  void queueDeadLetteringToItself_toldWithItselfAsTarget() {
    create("q", config().visibilityTimeout(seconds(10)).deadLetter("q", 1));
    String id = send("q", "x").id();
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("q").available());
    assertEquals(List.of("dead-lettered q>q " + id + " MAX_RECEIVES"), told());
  }

  @Test
  void expired_dropped_orDeadLettered_asTheQueueSays() {
    create("dlq");
    create("drops");
    create("keeps", config().deadLetter("dlq", 5).onExpire(ExpiryAction.DEAD_LETTER));
    String dropped =
        engine.send("drops", NewMessage.builder("a").timeToLive(seconds(1)).build()).id();
    String kept = engine.send("keeps", NewMessage.builder("b").timeToLive(seconds(1)).build()).id();
    clock.advanceSeconds(1);
    assertEquals(0, engine.stats("drops").depth());
    assertEquals(1, engine.stats("dlq").depth());
    assertEquals(
        List.of("dead-lettered keeps>dlq " + kept + " EXPIRED", "expired drops " + dropped),
        told().stream().sorted().toList());
  }

  @Test
  void redriveAndRestore_toldForEachMessageMoved() {
    create("dlq");
    create("q", config().deadLetter("dlq", 5));
    List<String> ids = sendAll("q", "a", "b", "c");
    ids.forEach(id -> engine.deadLetterById("q", id));
    told.clear();
    engine.restore("dlq", ids.get(0));
    engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(0, engine.stats("dlq").depth());
    assertEquals(
        List.of(
            "redriven dlq>q " + ids.get(0),
            "redriven dlq>q " + ids.get(1),
            "redriven dlq>q " + ids.get(2)),
        told());
  }
}
