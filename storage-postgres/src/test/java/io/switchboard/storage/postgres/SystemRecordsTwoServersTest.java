package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.ReceiptKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * System records and the receipt key kept in them, across servers: two engines on one database,
 * each with its own pool, as two servers of a cluster.
 */
class SystemRecordsTwoServersTest {

  private static PostgresQueueEngine server(String url) {
    return PostgresQueueEngine.builder().url(url, "postgres", "postgres").poolSize(3).build();
  }

  @Test
  void recordWrittenThroughOneServer_readByTheOtherAtOnce() throws Exception {
    String url = TestDatabase.freshDatabase("sb_records_two");
    try (QueueEngine a = server(url);
        QueueEngine b = server(url)) {
      a.systemRecords().put("key/AKID1", "secret".getBytes(StandardCharsets.UTF_8));
      assertEquals(
          "secret",
          new String(b.systemRecords().get("key/AKID1").orElseThrow(), StandardCharsets.UTF_8));
      assertEquals(List.of("key/AKID1"), List.copyOf(b.systemRecords().list("key/").keySet()));
      assertTrue(b.systemRecords().delete("key/AKID1"));
      assertTrue(a.systemRecords().get("key/AKID1").isEmpty());
    }
  }

  @Test
  void serversStartingTogetherOnANewDatabase_shareOneReceiptKey() throws Exception {
    String url = TestDatabase.freshDatabase("sb_records_start");
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<QueueEngine> servers = new ArrayList<>();
    try {
      List<Future<QueueEngine>> started = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        started.add(pool.submit(() -> server(url)));
      }
      for (Future<QueueEngine> f : started) {
        servers.add(f.get());
      }
      byte[] key = servers.get(0).systemRecords().get(ReceiptKeys.RECORD).orElseThrow();
      assertEquals(ReceiptKeys.KEY_BYTES, key.length);
      servers.get(0).createQueue("q", QueueConfig.defaults());
      for (QueueEngine s : servers) {
        assertArrayEquals(key, s.systemRecords().get(ReceiptKeys.RECORD).orElseThrow());
        // a receipt issued by one server is accepted by every other
        QueueEngine other = servers.get((servers.indexOf(s) + 1) % servers.size());
        s.send("q", NewMessage.of("m"));
        Message m = s.receive("q", ReceiveRequest.one()).get(0);
        other.ack("q", m.receipt().orElseThrow());
      }
    } finally {
      servers.forEach(QueueEngine::close);
      pool.shutdownNow();
    }
  }

  @Test
  void receipt_validAfterEveryServerRestarts_andRefusedOnAnotherQueue() throws Exception {
    String url = TestDatabase.freshDatabase("sb_records_restart");
    String receipt;
    try (QueueEngine a = server(url)) {
      a.createQueue("a", QueueConfig.defaults());
      a.createQueue("b", QueueConfig.defaults());
      a.send("a", NewMessage.of("m"));
      a.send("b", NewMessage.of("n"));
      receipt = a.receive("a", ReceiveRequest.one()).get(0).receipt().orElseThrow();
      a.receive("b", ReceiveRequest.one());
    }
    try (QueueEngine b = server(url)) {
      QueueException e = assertThrows(QueueException.class, () -> b.ack("b", receipt));
      assertEquals(ErrorCode.RECEIPT_INVALID, e.code());
      b.ack("a", receipt);
      assertEquals(0, b.stats("a").inFlight());
    }
  }
}
