package io.switchboard.storage.rocksdb;

import static io.switchboard.storage.rocksdb.WindowedStore.body;
import static io.switchboard.storage.rocksdb.WindowedStore.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Message groups over cold messages (docs/design.md, "Message groups over cold messages"): with a
 * store that keeps the order index, a grouped queue keeps the first messages of each group's line
 * in the heap (at most {@code 2k}, {@code k} the smaller of the window and 10) and the rest in the
 * store only, and every FIFO rule holds across the boundary. The window is 4 here, so {@code k} is
 * 4.
 */
class GroupWindowTest {

  private static final int WINDOW = 4;
  private static final String Q = "g.fifo";

  /** Bodies are numbered, so content-based deduplication never takes one for another. */
  private static final QueueConfig DEDUPED =
      QueueConfig.builder().contentBasedDeduplication(true).build();

  @TempDir Path dir;

  private WindowedStore store;
  private QueueEngine engine;

  @BeforeEach
  void open() {
    store = new WindowedStore(dir, WINDOW, ManualClock.create());
    engine = store.open();
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Sends {@code n} messages, message i to group {@code "g" + i % groups}, in batches of 10. */
  private void sendAll(int n, int groups) {
    for (int i = 0; i < n; i += 10) {
      List<NewMessage> batch = new ArrayList<>();
      for (int j = i; j < Math.min(n, i + 10); j++) {
        batch.add(NewMessage.builder(body(j)).groupId("g" + j % groups).build());
      }
      engine.sendBatch(Q, batch);
    }
  }

  /** The numbers sent to each group, in the order received, are the numbers sent to it in order. */
  private static void assertEachGroupInOrder(List<Integer> received, int n, int groups) {
    assertEquals(n, received.size(), "every message once");
    for (int g = 0; g < groups; g++) {
      int group = g;
      assertEquals(
          IntStream.range(0, n).filter(i -> i % groups == group).boxed().toList(),
          received.stream().filter(i -> i % groups == group).toList(),
          "group g" + g + " in order");
    }
  }

  @Test
  void tenThousandMessages_costTheHeapOnlyEachGroupsWindow_andEachGroupComesInOrder() {
    engine.ensureQueue(Q, DEDUPED);
    int groups = 5;
    sendAll(10_000, groups);

    assertEquals(10_000, engine.stats(Q).available());
    long bound = (long) groups * 2 * WINDOW;
    assertTrue(store.heldInHeap(Q) <= bound, "held " + store.heldInHeap(Q));
    List<Integer> received = new ArrayList<>();
    while (true) {
      List<Message> got = engine.receive(Q, ReceiveRequest.max(10));
      if (got.isEmpty()) {
        break;
      }
      assertTrue(store.heldInHeap(Q) <= bound + got.size(), "held " + store.heldInHeap(Q));
      for (Message m : got) {
        received.add(number(m));
        engine.ack(Q, m.receipt().orElseThrow());
      }
    }
    assertEachGroupInOrder(received, 10_000, groups);
    assertEquals(0, engine.stats(Q).available());
    assertEquals(0, engine.queuedBytes(Q));
  }

  @Test
  void aGroupInFlight_keepsItsColdMessagesBack_untilItsHeadIsAcked() {
    engine.ensureQueue(Q, DEDUPED);
    sendAll(100, 2);
    Message first = engine.receive(Q, ReceiveRequest.one()).get(0);
    assertEquals(0, number(first));

    List<Integer> others = new ArrayList<>();
    for (List<Message> got = engine.receive(Q, ReceiveRequest.max(3));
        !got.isEmpty();
        got = engine.receive(Q, ReceiveRequest.max(3))) {
      for (Message m : got) {
        others.add(number(m));
        engine.ack(Q, m.receipt().orElseThrow());
      }
    }
    assertEquals(IntStream.range(0, 50).map(i -> 2 * i + 1).boxed().toList(), others);

    engine.ack(Q, first.receipt().orElseThrow());
    assertEquals(IntStream.range(1, 50).map(i -> 2 * i).boxed().toList(), store.drain(Q, 4));
  }

  @Test
  void aReleasedHead_comesBackBeforeItsColdLine() {
    engine.ensureQueue(Q, DEDUPED);
    sendAll(30, 1);
    List<Message> batch = engine.receive(Q, ReceiveRequest.max(10));
    assertEquals(
        IntStream.range(0, 10).boxed().toList(), batch.stream().map(m -> number(m)).toList());
    for (Message m : batch) {
      engine.release(Q, m.receipt().orElseThrow());
    }
    assertEquals(IntStream.range(0, 30).boxed().toList(), store.drain(Q, 7));
  }

  @Test
  void aColdMessage_isReadChangedAndDeletedById() {
    engine.ensureQueue(Q, DEDUPED);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      ids.add(engine.send(Q, NewMessage.builder(body(i)).groupId("a").build()).id());
    }
    Message cold = engine.get(Q, ids.get(20));
    assertEquals(20, number(cold));
    assertEquals(MessageState.AVAILABLE, cold.state());
    engine.update(Q, ids.get(20), MessageUpdate.priority(9));
    engine.remove(Q, ids.get(25));
    assertEquals(
        ErrorCode.MESSAGE_NOT_FOUND,
        assertThrows(QueueException.class, () -> engine.get(Q, ids.get(25))).code());
    assertEquals(29, engine.stats(Q).available());
    assertTrue(store.heldInHeap(Q) <= 2 * WINDOW, "held " + store.heldInHeap(Q));

    List<Integer> expected = new ArrayList<>(IntStream.range(0, 30).boxed().toList());
    expected.remove(Integer.valueOf(25));
    assertEquals(expected, store.drain(Q, 4), "a priority does not reorder a group's line");
  }

  /**
   * Once every cold message of a group was deleted by id the queue has nothing cold: the group, its
   * messages in the heap all acked, takes a new send as its head.
   */
  @Test
  void aGroupWhoseColdMessagesWereAllDeleted_takesANewSendAsItsHead() {
    engine.ensureQueue(Q, DEDUPED);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ids.add(engine.send(Q, NewMessage.builder(body(i)).groupId("a").build()).id());
    }
    for (int i = WINDOW; i < 20; i++) {
      engine.remove(Q, ids.get(i));
    }
    List<Message> hot = engine.receive(Q, ReceiveRequest.max(WINDOW));
    assertEquals(List.of(0, 1, 2, 3), hot.stream().map(WindowedStore::number).toList());
    hot.forEach(m -> engine.ack(Q, m.receipt().orElseThrow()));
    engine.send(Q, NewMessage.builder(body(20)).groupId("a").build());
    assertEquals(List.of(20), store.drain(Q, 10));
  }

  @Test
  void aColdMessage_expiresAtItsTime() {
    engine.ensureQueue(Q, DEDUPED);
    for (int i = 0; i < 30; i++) {
      Duration ttl = i == 25 ? Duration.ofSeconds(10) : Duration.ofHours(1);
      engine.send(Q, NewMessage.builder(body(i)).groupId("a").timeToLive(ttl).build());
    }
    store.clock.advanceMillis(9_999);
    assertEquals(30, engine.stats(Q).available());
    store.clock.advanceMillis(1);
    assertEquals(29, engine.stats(Q).available());
    assertEquals(1, engine.stats(Q).counters().expired());
    List<Integer> expected = new ArrayList<>(IntStream.range(0, 30).boxed().toList());
    expected.remove(Integer.valueOf(25));
    assertEquals(expected, store.drain(Q, 10));
  }

  @Test
  void droppingTheOldest_shedsColdMessagesInArrivalOrder() {
    engine.ensureQueue(
        Q,
        QueueConfig.builder()
            .contentBasedDeduplication(true)
            .maxDepth(20, Overflow.DROP_OLDEST)
            .build());
    sendAll(30, 2);
    assertEquals(20, engine.stats(Q).available());
    assertEquals(10, engine.stats(Q).counters().shed());
    assertEachGroupInOrderFrom(store.drain(Q, 3), 10, 30, 2);
  }

  private static void assertEachGroupInOrderFrom(
      List<Integer> received, int from, int to, int groups) {
    for (int g = 0; g < groups; g++) {
      int group = g;
      assertEquals(
          IntStream.range(from, to).filter(i -> i % groups == group).boxed().toList(),
          received.stream().filter(i -> i % groups == group).toList());
    }
    assertEquals(to - from, received.size());
  }

  @Test
  void purge_dropsTheColdMessagesToo() {
    engine.ensureQueue(Q, DEDUPED);
    sendAll(50, 3);
    assertEquals(50, engine.purge(Q));
    assertEquals(0, engine.stats(Q).available());
    engine.send(Q, NewMessage.builder(body(7)).groupId("g0").build());
    assertEquals(List.of(7), store.drain(Q, 10));
  }

  @Test
  void aBrowse_showsColdMessagesInDeliveryOrder() {
    engine.ensureQueue(Q, DEDUPED);
    sendAll(40, 3);
    List<Integer> shown = new ArrayList<>();
    BrowseRequest request = BrowseRequest.first(7);
    while (true) {
      Page page = engine.browse(Q, request);
      page.items().forEach(m -> shown.add(number(m)));
      if (page.nextCursor().isEmpty()) {
        break;
      }
      request = request.after(page.nextCursor().get());
    }
    assertEquals(IntStream.range(0, 40).boxed().toList(), shown);
    assertTrue(store.heldInHeap(Q) <= 3 * 2 * WINDOW, "held " + store.heldInHeap(Q));
  }

  @Test
  void aRestart_keepsTheColdLines_andAMessageInFlight() {
    engine.ensureQueue(Q, DEDUPED);
    sendAll(1_000, 4);
    Message inFlight =
        engine
            .receive(
                Q,
                ReceiveRequest.builder()
                    .maxMessages(1)
                    .visibilityTimeout(Duration.ofHours(1))
                    .build())
            .get(0);
    engine = store.restart();

    assertEquals(999, engine.stats(Q).available());
    assertEquals(1, engine.stats(Q).inFlight());
    assertTrue(store.heldInHeap(Q) <= 4, "the first of each group: held " + store.heldInHeap(Q));
    List<Integer> rest = store.drain(Q, 10);
    assertTrue(rest.stream().noneMatch(i -> i % 4 == 0), "its group waits for the lease");
    engine.ack(Q, inFlight.receipt().orElseThrow());
    rest.addAll(store.drain(Q, 10));
    rest.add(0, number(inFlight));
    assertEachGroupInOrder(rest, 1_000, 4);
  }
}
