package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Limits per key ({@code docs/design.md}, "Limits per key"): a queue's {@code keyLimit} caps how
 * many messages of one message group are in flight at once. A receive skips a group at its limit
 * and takes the next eligible messages in the queue's order; a message without a group is never
 * limited; a group's next message is eligible again as soon as one of its messages settles, and a
 * blocked receive is woken for it. In a grouped queue the limit caps how many of a group's messages
 * are in flight (so how many one receive takes of it). Time moves only by the manual clock.
 */
public abstract class KeyLimitContract extends EngineContract {

  private static final String Q = "limited";
  private static final String G = "limited.fifo";

  private void put(String queue, String group, String body) {
    NewMessage.Builder b = NewMessage.builder(body).groupId(group);
    if (queue.endsWith(".fifo")) {
      b.deduplicationId(body);
    }
    engine.send(queue, b.build());
  }

  private List<Message> take(String queue, int max) {
    return engine.receive(
        queue,
        ReceiveRequest.builder()
            .maxMessages(max)
            .visibilityTimeout(Duration.ofSeconds(30))
            .build());
  }

  private long keyLimited(String queue) {
    return engine.stats(queue).counters().keyLimited();
  }

  private static Message named(List<Message> got, String body) {
    return got.stream().filter(m -> m.body().equals(body)).findFirst().orElseThrow();
  }

  @Test
  void keyLimit_isKeptWithTheQueue_andRemoved() {
    create(Q, config().keyLimit(3));
    assertEquals(OptionalInt.of(3), engine.queue(Q).config().keyLimit());
    engine.updateQueue(Q, c -> c.toBuilder().keyLimit(5).build());
    assertEquals(OptionalInt.of(5), engine.queue(Q).config().keyLimit());
    engine.updateQueue(Q, c -> c.toBuilder().noKeyLimit().build());
    assertEquals(OptionalInt.empty(), engine.queue(Q).config().keyLimit());
  }

  @Test
  void receive_groupAtItsLimit_isSkipped_theNextEligibleTakenInOrder() {
    create(Q, config().keyLimit(2));
    for (int i = 1; i <= 5; i++) {
      put(Q, "a", "a" + i);
    }
    put(Q, "b", "b1");
    put(Q, "b", "b2");
    put(Q, "b", "b3");
    send(Q, "loose");
    assertEquals(0, keyLimited(Q));

    assertEquals(List.of("a1", "a2", "b1", "b2", "loose"), bodies(take(Q, 10)));
    assertEquals(5, engine.stats(Q).inFlight());
    assertEquals(4, engine.stats(Q).available(), "a3..a5 and b3 wait; nothing is dropped");
    assertEquals(1, keyLimited(Q), "one receive passed over groups at their limit");

    assertEquals(List.of(), bodies(take(Q, 10)), "both groups at their limit");
    assertEquals(2, keyLimited(Q));
  }

  @Test
  void receive_takesAtMostTheRoomLeftOfAGroup_countingItsOwnTakes() {
    create(Q, config().keyLimit(3));
    for (int i = 1; i <= 5; i++) {
      put(Q, "a", "a" + i);
    }
    assertEquals(List.of("a1"), bodies(take(Q, 1)));
    assertEquals(0, keyLimited(Q), "a receive that took all it asked for passed nothing over");
    assertEquals(List.of("a2", "a3"), bodies(take(Q, 10)));
    assertEquals(List.of(), bodies(take(Q, 10)));
  }

  @Test
  void ack_freesTheGroup_itsNextMessageInOrder() {
    create(Q, config().keyLimit(2));
    for (int i = 1; i <= 4; i++) {
      put(Q, "a", "a" + i);
    }
    List<Message> first = take(Q, 10);
    assertEquals(List.of("a1", "a2"), bodies(first));
    engine.ack(Q, receipt(named(first, "a1")));
    assertEquals(List.of("a3"), bodies(take(Q, 10)));
    engine.fail(Q, receipt(named(first, "a2")));
    assertEquals(List.of("a4"), bodies(take(Q, 10)));
  }

  @Test
  void releaseAndLeaseEnd_freeTheGroup_messagesBackAtTheirPlace() {
    create(Q, config().keyLimit(2));
    for (int i = 1; i <= 3; i++) {
      put(Q, "a", "a" + i);
    }
    List<Message> first = take(Q, 10);
    assertEquals(List.of("a1", "a2"), bodies(first));
    engine.release(Q, receipt(named(first, "a2")));
    assertEquals(List.of("a2"), bodies(take(Q, 10)), "released: back at its place, before a3");
    clock.advance(Duration.ofSeconds(31)); // every lease ends
    assertEquals(List.of("a1", "a2"), bodies(take(Q, 10)));
    assertEquals(List.of(), bodies(take(Q, 10)));
  }

  @Test
  void messagesWithoutAGroup_areNeverLimited() {
    create(Q, config().keyLimit(1));
    sendAll(Q, "u1", "u2", "u3", "u4");
    assertEquals(List.of("u1", "u2", "u3", "u4"), bodies(take(Q, 10)));
    assertEquals(0, keyLimited(Q));
  }

  @Test
  void priorityAndLifo_holdAmongTheMessagesAReceiveMayTake() {
    create(Q, config().keyLimit(1).order(io.switchboard.queue.Order.LIFO));
    put(Q, "a", "a-old");
    put(Q, "b", "b-old");
    put(Q, "a", "a-new");
    engine.send(Q, NewMessage.builder("b-urgent").groupId("b").priority(5).build());
    assertEquals(List.of("b-urgent", "a-new"), bodies(take(Q, 10)));
  }

  @Test
  void filteredReceive_obeysTheLimit() {
    create(Q, config().keyLimit(1));
    for (String g : List.of("a", "b")) {
      for (int i = 1; i <= 3; i++) {
        engine.send(
            Q,
            NewMessage.builder(g + i)
                .groupId(g)
                .attribute("kind", i == 2 ? "other" : "job")
                .build());
      }
    }
    List<Message> got =
        engine.receive(
            Q, ReceiveRequest.builder().maxMessages(10).selector("kind = 'job'").build());
    assertEquals(List.of("a1", "b1"), bodies(got));
    assertEquals(1, keyLimited(Q));
    ackAll(Q, got);
    got =
        engine.receive(
            Q, ReceiveRequest.builder().maxMessages(10).selector("kind = 'job'").build());
    assertEquals(List.of("a3", "b3"), bodies(got), "a2 and b2 do not match; each group one");
  }

  @Test
  void blockedReceive_isWokenWhenItsGroupComesUnderItsLimit() throws Exception {
    create(Q, config().keyLimit(1));
    put(Q, "a", "a1");
    put(Q, "a", "a2");
    Message a1 = receiveOne(Q);
    assertEquals("a1", a1.body());
    Future<List<Message>> waiting = blockedReceive(Q, waiting(Duration.ofSeconds(20)));
    engine.ack(Q, receipt(a1));
    assertEquals(List.of("a2"), bodies(result(waiting)));
  }

  @Test
  void blockedFilteredReceive_isWokenForAFreedGroupsMessageThatIsNotItsFirst() throws Exception {
    create(Q, config().keyLimit(1));
    for (String[] m :
        List.of(new String[] {"a1", "x"}, new String[] {"a2", "x"}, new String[] {"a3", "y"})) {
      engine.send(Q, NewMessage.builder(m[0]).groupId("a").attribute("kind", m[1]).build());
    }
    Message a1 = receiveOne(Q);
    assertEquals("a1", a1.body());
    Future<List<Message>> waiting =
        blockedReceive(
            Q,
            ReceiveRequest.builder()
                .maxMessages(10)
                .selector("kind = 'y'")
                .waitTime(Duration.ofSeconds(20))
                .build());
    engine.ack(Q, receipt(a1));
    assertEquals(List.of("a3"), bodies(result(waiting)));
  }

  @Test
  void raisingOrRemovingTheLimit_releasesHeldGroups() {
    create(Q, config().keyLimit(1));
    put(Q, "a", "a1");
    put(Q, "a", "a2");
    put(Q, "a", "a3");
    assertEquals(List.of("a1"), bodies(take(Q, 10)));
    engine.updateQueue(Q, c -> c.toBuilder().keyLimit(2).build());
    assertEquals(List.of("a2"), bodies(take(Q, 10)));
    engine.updateQueue(Q, c -> c.toBuilder().keyLimit(1).build());
    assertEquals(List.of(), bodies(take(Q, 10)), "two in flight, over the lowered limit");
    engine.updateQueue(Q, c -> c.toBuilder().noKeyLimit().build());
    assertEquals(List.of("a3"), bodies(take(Q, 10)));
  }

  @Test
  void groupedQueue_aReceiveTakesAtMostTheLimitOfEachGroup() {
    create(G, config().keyLimit(2));
    for (int i = 1; i <= 4; i++) {
      put(G, "g1", "g1-" + i);
    }
    put(G, "g2", "g2-1");
    List<Message> got = take(G, 10);
    assertEquals(List.of("g1-1", "g1-2", "g2-1"), bodies(got));
    assertEquals(1, keyLimited(G));
    engine.ack(G, receipt(named(got, "g1-1")));
    assertEquals(List.of(), bodies(take(G, 10)), "g1's head g1-2 is in flight: blocked");
    engine.ack(G, receipt(named(got, "g1-2")));
    assertEquals(List.of("g1-3", "g1-4"), bodies(take(G, 10)), "in order, two at most");
  }

  @Test
  void groupedQueue_aGroupAtItsLimitWaitsThoughItsHeadCameBack() {
    create(G);
    for (int i = 1; i <= 3; i++) {
      put(G, "g1", "g1-" + i);
    }
    put(G, "g2", "g2-1");
    List<Message> got = take(G, 2);
    assertEquals(List.of("g1-1", "g1-2"), bodies(got));
    engine.updateQueue(G, c -> c.toBuilder().keyLimit(1).build());
    engine.release(G, receipt(named(got, "g1-1"))); // the head is back, g1-2 still in flight
    assertEquals(List.of("g2-1"), bodies(take(G, 10)), "g1 holds its limit's worth in flight");
    engine.ack(G, receipt(named(got, "g1-2")));
    assertEquals(List.of("g1-1"), bodies(take(G, 10)), "then one at a time, in order");
    assertEquals(List.of(), bodies(take(G, 10)));
  }

  @Test
  void everyMessageIsDeliveredOnce_andNoGroupEverHoldsMoreThanItsLimit() {
    create(Q, config().keyLimit(3));
    int sent = 0;
    for (int i = 0; i < 120; i++) {
      put(Q, "g" + (i % 4 == 0 ? "big" : i % 7), "m" + i);
      sent++;
    }
    Set<String> seen = new HashSet<>();
    List<Message> held = new ArrayList<>();
    int rounds = 0;
    while (seen.size() < sent && rounds++ < 1000) {
      List<Message> got = take(Q, 7);
      for (Message m : got) {
        assertTrue(seen.add(m.id()), "delivered twice: " + m.body());
      }
      held.addAll(got);
      for (String g : held.stream().map(m -> m.groupId().orElseThrow()).distinct().toList()) {
        long n = held.stream().filter(m -> m.groupId().orElseThrow().equals(g)).count();
        assertTrue(n <= 3, g + " has " + n + " in flight");
      }
      if (!held.isEmpty()) { // settle the oldest two
        for (int k = 0; k < 2 && !held.isEmpty(); k++) {
          engine.ack(Q, receipt(held.remove(0)));
        }
      }
    }
    assertEquals(sent, seen.size());
  }

  @Test
  void restart_keepsTheLimit_andTheLeasesItCounts() {
    create(Q, config().keyLimit(1));
    put(Q, "a", "a1");
    put(Q, "a", "a2");
    put(Q, "b", "b1");
    assertEquals(List.of("a1", "b1"), bodies(take(Q, 10)));
    engine = track(restart(engine));
    assertEquals(OptionalInt.of(1), engine.queue(Q).config().keyLimit());
    assertEquals(List.of(), bodies(take(Q, 10)), "a1 and b1 are still in flight");
    clock.advance(Duration.ofSeconds(31));
    assertEquals(List.of("a1", "b1"), bodies(take(Q, 10)));
  }

  @Test
  void twoServers_shareTheLimit() {
    create(Q, config().keyLimit(1));
    QueueEngine other = track(peer(engine));
    put(Q, "a", "a1");
    put(Q, "a", "a2");
    assertEquals(List.of("a1"), bodies(take(Q, 10)));
    List<Message> there = other.receive(Q, ReceiveRequest.builder().maxMessages(10).build());
    assertEquals(List.of(), bodies(there), "the other server sees a's message in flight");
  }
}
