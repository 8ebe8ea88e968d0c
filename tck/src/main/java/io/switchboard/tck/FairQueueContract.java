package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Fair queues (Amazon SQS fair queues): in a standard queue the group id names a message's tenant.
 * A tenant holding at least 30 messages in flight and more than 10% of the queue's in-flight
 * messages is noisy; while it is, unfiltered receives take quiet tenants' messages first (a message
 * without a group is a tenant of its own), and when only noisy tenants have messages, the one with
 * the fewest in flight goes first. Counts only: the clock never moves, nothing is acked unless
 * said.
 */
public abstract class FairQueueContract extends EngineContract {

  private static final String Q = "fair";

  private void put(String group, String body) {
    engine.send(Q, NewMessage.builder(body).groupId(group).build());
  }

  private List<Message> take(int max) {
    return engine.receive(
        Q,
        ReceiveRequest.builder().maxMessages(max).visibilityTimeout(Duration.ofHours(1)).build());
  }

  private static String groupOf(Message m) {
    return m.groupId().orElse("-");
  }

  @Test
  void send_standardQueueWithGroupId_keptAndReturnedOnReceive() {
    create(Q);
    put("tenant-1", "a");
    Message m = receiveOne(Q);
    assertEquals(Optional.of("tenant-1"), m.groupId());
  }

  @Test
  void receive_noNoisyGroup_plainQueueOrder() {
    create(Q);
    for (int i = 0; i < 25; i++) {
      put("big", "big-" + i);
    }
    put("small", "small-0");
    List<String> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      got.addAll(bodies(take(10)));
    }
    assertEquals(26, got.size());
    assertEquals("big-0", got.get(0));
    assertEquals("small-0", got.get(25), "below 30 in flight a group is not noisy");
  }

  @Test
  void receive_noisyGroup_quietGroupsServedBeforeItsBacklog() {
    create(Q);
    for (int i = 0; i < 300; i++) {
      put("noisy", "noisy-" + i);
    }
    for (int i = 0; i < 10; i++) {
      for (int g = 0; g < 20; g++) {
        put("quiet-" + g, "quiet-" + g + "-" + i);
      }
    }
    List<Message> got = new ArrayList<>();
    for (int i = 0; i < 23; i++) {
      got.addAll(take(10));
    }
    assertEquals(230, got.size());
    // The noisy group's first 30 go before it is noisy; then every quiet message goes before it.
    for (int i = 0; i < 30; i++) {
      assertEquals("noisy-" + i, got.get(i).body());
    }
    for (int i = 30; i < 230; i++) {
      assertTrue(groupOf(got.get(i)).startsWith("quiet-"), "at " + i + ": " + got.get(i).body());
    }
    // Each quiet group in its own order.
    Map<String, Integer> next = new HashMap<>();
    for (Message m : got.subList(30, 230)) {
      int n = next.merge(groupOf(m), 1, Integer::sum) - 1;
      assertEquals(groupOf(m) + "-" + n, m.body());
    }
    assertEquals(20, next.size());
    assertEquals(List.of("noisy-30", "noisy-31"), bodies(take(2)), "then the backlog again");
  }

  @Test
  void receive_noisyGroup_messagesWithoutGroupAreQuietTenants() {
    create(Q);
    for (int i = 0; i < 40; i++) {
      put("noisy", "noisy-" + i);
    }
    sendAll(Q, "loose-0", "loose-1");
    assertEquals(30, take(10).size() + take(10).size() + take(10).size());
    assertEquals(List.of("loose-0", "loose-1", "noisy-30"), bodies(take(3)));
  }

  @Test
  void receive_onlyNoisyGroupsLeft_fewestInFlightFirst() {
    create(Q);
    for (int i = 0; i < 60; i++) {
      put("a", "a-" + i);
    }
    for (int i = 0; i < 60; i++) {
      put("b", "b-" + i);
    }
    List<Message> first = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      first.addAll(take(10));
    }
    // a is noisy at 30 in flight, so b is served; b is noisy at 30 too.
    assertEquals(30, first.stream().filter(m -> groupOf(m).equals("a")).count());
    assertEquals(30, first.stream().filter(m -> groupOf(m).equals("b")).count());
    // Both noisy: each message goes to the one with fewer in flight (a first on a tie).
    assertEquals(List.of("a-30", "b-30", "a-31", "b-31"), bodies(take(4)));
  }

  @Test
  void receive_noisyGroupAcked_isNoLongerDeprioritised() {
    create(Q);
    for (int i = 0; i < 40; i++) {
      put("noisy", "noisy-" + i);
    }
    put("quiet", "quiet-0");
    put("quiet", "quiet-1");
    List<Message> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.addAll(take(10));
    }
    ackAll(Q, held.subList(0, 1));
    // 29 in flight: not noisy any more, so queue order again.
    assertEquals(List.of("noisy-30"), bodies(take(1)));
    assertEquals(List.of("quiet-0", "quiet-1", "noisy-31"), bodies(take(3)));
  }

  @Test
  void receive_fairness_everyMessageDeliveredExactlyOnce() {
    create(Q);
    int sent = 0;
    for (int i = 0; i < 200; i++) {
      put("noisy", "n" + i);
      sent++;
      if (i % 10 == 0) {
        put("q" + (i / 10), "q" + i);
        sent++;
        send(Q, "u" + i);
        sent++;
      }
    }
    Set<String> seen = new HashSet<>();
    List<Message> got;
    while (!(got = take(10)).isEmpty()) {
      for (Message m : got) {
        assertTrue(seen.add(m.id()), "delivered twice: " + m.body());
      }
    }
    assertEquals(sent, seen.size());
  }
}
