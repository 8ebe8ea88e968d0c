package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.client.ConsumeOptions;
import io.switchboard.client.Credentials;
import io.switchboard.client.Delivery;
import io.switchboard.client.Subscription;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.testing.Await;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Java client's streaming consumer ({@link SwitchboardClient#consume}) against a server. */
class GrpcClientConsumeTest {

  private GrpcHarness h;
  private final BlockingQueue<Delivery> got = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() {
    h = new GrpcHarness(c -> c);
    h.server.keys().put(Principal.admin("ADMIN", "ADMIN-secret"));
    h.server
        .keys()
        .put(
            new Principal(
                "SENDER",
                "SENDER-secret",
                Optional.empty(),
                List.of(Grant.of("*", Action.QUEUE_SEND)),
                Optional.empty()));
    h.engine.createQueue("jobs", QueueConfig.defaults());
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private SwitchboardClient client(String key) {
    return SwitchboardClient.builder()
        .baseUri(h.server.uri())
        .grpcPort(h.server.grpcPort().orElseThrow())
        .credentials(Credentials.of(key, key + "-secret"))
        .build();
  }

  private Delivery next() throws InterruptedException {
    Delivery d = got.poll(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    assertTrue(d != null, "a message within " + GrpcHarness.LIMIT);
    return d;
  }

  @Test
  void consume_pushesMessages_andSettlesThemOnTheStream() throws Exception {
    try (SwitchboardClient client = client("ADMIN");
        Subscription sub = client.consume("jobs", ConsumeOptions.credit(2), got::add)) {
      Await.until(() -> h.engine.stats("jobs").waitingReceivers() == 1, "the stream waits");
      h.engine.send(
          "jobs",
          NewMessage.builder("one").attribute("region", AttributeValue.string("eu")).build());
      Delivery d = next();
      assertEquals("one", d.message().body());
      assertEquals(AttributeValue.string("eu"), d.message().attributes().get("region"));
      d.ack().get(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      assertEquals(0, h.engine.stats("jobs").depth(), "acked: gone");

      h.engine.send("jobs", NewMessage.of("two"));
      Delivery two = next();
      two.release().get(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      Delivery again = next();
      assertEquals(two.message().id(), again.message().id());
      ExecutionException stale =
          assertThrows(
              ExecutionException.class,
              () -> two.ack().get(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS));
      assertEquals(
          ErrorCode.RECEIPT_STALE,
          ((SwitchboardException) stale.getCause()).code(),
          stale.getCause().getMessage());
    }
    // closed: the lease it still held is released at once
    assertEquals(1, h.engine.stats("jobs").available());
    assertEquals(0, h.engine.stats("jobs").inFlight());
  }

  @Test
  void aKeyWithoutReceive_isRefusedAtOpen_namingTheRight() throws Exception {
    try (SwitchboardClient client = client("SENDER")) {
      Subscription sub = client.consume("jobs", ConsumeOptions.credit(1), got::add);
      ExecutionException refused =
          assertThrows(
              ExecutionException.class,
              () -> sub.done().get(GrpcHarness.LIMIT.toMillis(), TimeUnit.MILLISECONDS));
      SwitchboardException e = (SwitchboardException) refused.getCause();
      assertEquals("FORBIDDEN", e.wireCode());
      assertTrue(e.getMessage().contains("queue:receive"), e.getMessage());
    }
  }

  @Test
  void withoutAGrpcPort_consumeSaysWhatIsMissing() {
    try (SwitchboardClient client = SwitchboardClient.create(URI.create("http://127.0.0.1:1"))) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () -> client.consume("jobs", ConsumeOptions.credit(1), got::add));
      assertTrue(e.getMessage().contains("grpcPort"), e.getMessage());
    }
  }
}
