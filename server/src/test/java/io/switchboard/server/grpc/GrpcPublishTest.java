package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.PublishResponse;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GrpcPublishTest {

  /** A send of this body waits in the engine until {@link #durable} is counted down. */
  private static final String HELD = "held";

  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch durable = new CountDownLatch(1);
  private GrpcHarness h;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    h = new GrpcHarness(c -> c, this::holdingSends);
    h.engine.createQueue("jobs", QueueConfig.defaults());
    channel = h.channel();
  }

  @AfterEach
  void stop() {
    durable.countDown();
    h.close();
  }

  /** The engine, but a send of {@link #HELD} returns (is durable) only when the test says. */
  private QueueEngine holdingSends(QueueEngine engine) {
    return (QueueEngine)
        Proxy.newProxyInstance(
            QueueEngine.class.getClassLoader(),
            new Class<?>[] {QueueEngine.class},
            (proxy, method, args) -> {
              if (method.getName().equals("send")
                  && args[1] instanceof NewMessage m
                  && m.body().equals(HELD)) {
                entered.countDown();
                assertTrue(durable.await(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS));
              }
              try {
                return method.invoke(engine, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static PublishRequest send(String queue, String body) {
    return PublishRequest.newBuilder()
        .setQueue(queue)
        .setMessage(OutgoingMessage.newBuilder().setBody(body))
        .build();
  }

  private static PublishRequest batch(String queue, String... bodies) {
    PublishRequest.Builder b = PublishRequest.newBuilder().setQueue(queue);
    for (String body : bodies) {
      b.addBatch(OutgoingMessage.newBuilder().setBody(body));
    }
    return b.build();
  }

  @Test
  void aBatch_isAnsweredByOneAck_withAResultPerMessage_inOrder_amongSingleSends() {
    var s = h.publish(channel, CallOptions.DEFAULT);
    s.requests().onNext(send("jobs", "first"));
    s.requests().onNext(batch("jobs", "b1", "b2", "b3"));
    s.requests().onNext(send("jobs", "last"));
    s.requests().onCompleted();

    PublishResponse first = s.answers().next();
    assertEquals(0, first.getResultsCount());
    PublishResponse batched = s.answers().next();
    assertEquals(3, batched.getResultsCount(), batched.toString());
    assertEquals("", batched.getId(), "a batch's answer carries its results only");
    PublishResponse last = s.answers().next();
    s.answers().completed();

    java.util.List<String> ids = new java.util.ArrayList<>();
    ids.add(first.getId());
    batched.getResultsList().forEach(r -> ids.add(r.getId()));
    ids.add(last.getId());
    var stored =
        h.engine.browse("jobs", io.switchboard.queue.BrowseRequest.first(10)).items().stream()
            .map(m -> m.id() + "=" + m.body())
            .toList();
    assertEquals(
        java.util.List.of(
            ids.get(0) + "=first",
            ids.get(1) + "=b1",
            ids.get(2) + "=b2",
            ids.get(3) + "=b3",
            ids.get(4) + "=last"),
        stored);
    assertTrue(
        batched.getResults(0).getSequence() < batched.getResults(2).getSequence(),
        "in the batch's order");
  }

  @Test
  void aBatchTooLarge_orARequestWithBothOrNeither_endsTheStream_havingSentNothingOfIt() {
    String[] tooMany = new String[h.server.config().maxBatch() + 1];
    java.util.Arrays.fill(tooMany, "x");
    var s = h.publish(channel, CallOptions.DEFAULT);
    s.requests().onNext(batch("jobs", tooMany));
    Status status = s.answers().status();
    assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode());
    assertTrue(status.getDescription().startsWith("BATCH_TOO_LARGE"), status.toString());

    var both = h.publish(channel, CallOptions.DEFAULT);
    both.requests()
        .onNext(
            batch("jobs", "a").toBuilder()
                .setMessage(OutgoingMessage.newBuilder().setBody("b"))
                .build());
    Status refused = both.answers().status();
    assertEquals(Status.Code.INVALID_ARGUMENT, refused.getCode());
    assertTrue(refused.getDescription().contains("not both"), refused.toString());

    var neither = h.publish(channel, CallOptions.DEFAULT);
    neither.requests().onNext(PublishRequest.newBuilder().setQueue("jobs").build());
    assertTrue(
        neither.answers().status().getDescription().contains("not neither"),
        "a request with no message");
    assertEquals(0, h.engine.stats("jobs").depth(), "nothing was sent");
  }

  @Test
  void everySendIsAnswered_inOrder_withWhatTheEngineStored() {
    var s = h.publish(channel, CallOptions.DEFAULT);
    for (int i = 0; i < 200; i++) {
      s.requests().onNext(send("jobs", "m" + i));
    }
    s.requests().onCompleted();
    long last = -1;
    for (int i = 0; i < 200; i++) {
      PublishResponse r = s.answers().next();
      assertEquals("m" + i, h.engine.get("jobs", r.getId()).body(), "answer " + i);
      assertTrue(r.getSequence() > last, "sequences rise in the order sent");
      assertEquals(false, r.getDuplicate());
      last = r.getSequence();
    }
    s.answers().completed();
    assertEquals(200, h.engine.stats("jobs").available());
  }

  @Test
  void aSendIsAnswered_onlyOnceTheEngineHasIt() throws Exception {
    var s = h.publish(channel, CallOptions.DEFAULT);
    s.requests().onNext(send("jobs", HELD));
    s.requests().onNext(send("jobs", "after"));
    assertTrue(entered.await(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS));
    assertTrue(
        s.answers().events.isEmpty(),
        "no answer while the send is not durable: " + s.answers().events);
    assertEquals(0, h.engine.stats("jobs").available(), "the next send waits behind it");
    durable.countDown();
    assertEquals(HELD, h.engine.get("jobs", s.answers().next().getId()).body());
    assertEquals("after", h.engine.get("jobs", s.answers().next().getId()).body());
  }

  @Test
  void aBadSend_endsTheStream_afterAnsweringThoseBefore_andEnqueuesNothingAfter() {
    var s = h.publish(channel, CallOptions.DEFAULT);
    s.requests().onNext(send("jobs", "first"));
    s.requests()
        .onNext(
            PublishRequest.newBuilder()
                .setQueue("jobs")
                .setMessage(
                    OutgoingMessage.newBuilder()
                        .setBody("late")
                        .setDelay(com.google.protobuf.Duration.newBuilder().setSeconds(901)))
                .build());
    s.requests().onNext(send("jobs", "never"));
    assertEquals("first", h.engine.get("jobs", s.answers().next().getId()).body());
    Status refused = s.answers().status();
    assertEquals(Status.Code.INVALID_ARGUMENT, refused.getCode(), refused.toString());
    assertTrue(refused.getDescription().contains("delay"), refused.getDescription());
    assertTrue(refused.getDescription().contains("901"), refused.getDescription());
    assertEquals(1, h.engine.stats("jobs").available());
  }

  @Test
  void aSendToAQueueThatDoesNotExist_isNotFound() {
    var s = h.publish(channel, CallOptions.DEFAULT);
    s.requests().onNext(send("nope", "x"));
    Status refused = s.answers().status();
    assertEquals(Status.Code.NOT_FOUND, refused.getCode(), refused.toString());
    assertTrue(refused.getDescription().startsWith("QUEUE_NOT_FOUND: "), refused.toString());

    var empty = h.publish(channel, CallOptions.DEFAULT);
    empty.requests().onNext(send("", "x"));
    assertEquals("INVALID_ARGUMENT: queue is required", empty.answers().status().getDescription());
  }
}
