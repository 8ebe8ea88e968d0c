package io.switchboard.storage.rocksdb;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Child-JVM side of {@link FullDiskTest}: sends to the store in {@code args[0]} until its
 * write-ahead logs hold 2 MiB, acks a few, then (told {@code GO} on stdin, once the parent has
 * filled the rest of the disk with the file {@code args[1]}, which it keeps full) acks into the
 * outage, tries a send, and waits there to be killed. Reports on stdout, line by line: {@code SENT
 * id} for each acknowledged send, {@code ACKED id} for each ack that returned, {@code REFUSED send
 * code message} and {@code REFUSED ack id code message} for each refusal, and the markers {@code
 * FULL} and {@code OUTAGE}.
 */
final class FullDiskWorkload {

  private FullDiskWorkload() {}

  static final int BODY = 64 * 1024;

  public static void main(String[] args) throws Exception {
    QueueEngine engine =
        QueueEngine.builder()
            .journal(RocksJournal.open(Path.of(args[0]), Durability.sync()))
            .build();
    engine.createQueue("q", queueConfig());
    Random random = new Random(7);
    Path store = Path.of(args[0]);
    while (logBytes(store) < 2 * 1024 * 1024) {
      say("SENT " + engine.send("q", NewMessage.of(body(random))).id());
    }
    List<Message> received = new ArrayList<>();
    while (received.size() < 300) {
      List<Message> got = engine.receive("q", ReceiveRequest.max(10));
      if (got.isEmpty()) {
        break;
      }
      received.addAll(got);
    }
    int next = 0;
    for (; next < 5; next++) {
      ack(engine, received.get(next)); // nearly full: each ack is stored before it returns
    }
    say("FULL");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (!"GO".equals(in.readLine())) {
      return;
    }
    int refused = 0;
    for (; next < received.size() && refused < 2; next++) {
      SmallDisk.fill(Path.of(args[1])); // the other process goes on writing
      if (!ack(engine, received.get(next))) {
        refused++;
      }
    }
    try {
      engine.send("q", NewMessage.of(body(random)));
      say("SENT-IN-OUTAGE");
    } catch (QueueException e) {
      say("REFUSED send " + e.code() + " " + e.getMessage());
    }
    say("OUTAGE");
    in.readLine(); // until killed
  }

  /** Bytes in the store's write-ahead logs: what a recovery that flushes first has to write. */
  static long logBytes(Path store) throws java.io.IOException {
    try (var files = java.nio.file.Files.list(store)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".log"))
          .mapToLong(p -> p.toFile().length())
          .sum();
    }
  }

  static QueueConfig queueConfig() {
    return QueueConfig.builder()
        .maxMessageSize(1024 * 1024)
        .visibilityTimeout(Duration.ofMinutes(10))
        .build();
  }

  /** Random letters: LZ4 gains little on them, so the disk fills as the bodies say. */
  static String body(Random random) {
    char[] chars = new char[BODY];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }

  private static boolean ack(QueueEngine engine, Message m) {
    try {
      engine.ack("q", m.receipt().orElseThrow());
      say("ACKED " + m.id());
      return true;
    } catch (QueueException e) {
      say("REFUSED ack " + m.id() + " " + e.code() + " " + e.getMessage());
      return false;
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
