package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A fair queue (a standard queue with group ids) keeps per-group state only while the group has a
 * message available or in flight, however its messages leave, and purge or a reconfiguration
 * rebuilds it from what is in the queue, leases included.
 */
class FairQueueStateTest extends OneQueueFixture {

  @Override
  String queueName() {
    return "fair";
  }

  private int groups() {
    return queue().groupCount();
  }

  private void send(String group, String body) {
    engine.send("fair", NewMessage.builder(body).groupId(group).build());
  }

  private List<Message> take(int n) {
    return engine.receive(
        "fair",
        ReceiveRequest.builder().maxMessages(n).visibilityTimeout(Duration.ofSeconds(30)).build());
  }

  @Test
  void thousandGroupsDrainedByAck_noGroupKept() {
    for (int i = 0; i < 1000; i++) {
      send("g" + i, "m" + i);
    }
    assertEquals(1000, groups());
    List<Message> got;
    while (!(got = take(10)).isEmpty()) {
      for (Message m : got) {
        engine.ack("fair", m.receipt().orElseThrow());
      }
    }
    assertEquals(0, groups());
  }

  @Test
  void groupsLeavingByLeaseEndRemoveAndPurge_noGroupKept() {
    for (int i = 0; i < 40; i++) {
      send("noisy", "n" + i);
    }
    send("quiet", "q");
    take(30);
    clock.advanceSeconds(30); // every lease ends: back to available
    assertEquals(2, groups());
    for (Message m : engine.browse("fair", BrowseRequest.first(100)).items()) {
      engine.remove("fair", m.id());
    }
    assertEquals(0, groups());
    send("again", "a");
    take(1);
    engine.purge("fair");
    assertEquals(0, groups());
  }

  @Test
  void reconfigured_noisyGroupStillDeprioritised() {
    for (int i = 0; i < 40; i++) {
      send("noisy", "n" + i);
    }
    send("quiet", "q");
    List<Message> held = new ArrayList<>(take(30));
    QueueConfig now = engine.queue("fair").config();
    engine.updateQueue("fair", now.toBuilder().indexedAttributes(java.util.Set.of("x")).build());
    assertEquals(List.of("q", "n30"), take(2).stream().map(Message::body).toList());
    assertEquals(30, held.size());
  }
}
