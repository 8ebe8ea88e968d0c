package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A body is stored Deflate-compressed when that is smaller (docs/design.md, "A message's body,
 * compressed"), and every body reads back as sent: compressed or not, unicode, empty, the largest a
 * queue allows, and an item written before bodies were compressed.
 */
@ExtendWith(Moto.class)
class StoredBodiesTest {

  private final String prefix = Moto.prefix();
  private DynamoDbClient client;
  private QueueEngine engine;

  @BeforeEach
  void open() {
    client = Moto.client();
    engine =
        DynamoQueueEngine.builder()
            .client(client)
            .tablePrefix(prefix)
            .clock(ManualClock.create())
            .sweepInterval(Duration.ofDays(1))
            .build();
    engine.createQueue("q", QueueConfig.defaults());
  }

  @AfterEach
  void close() {
    engine.close();
    client.close();
  }

  /** The one message item of queue q, as stored. */
  private Map<String, AttributeValue> storedItem() {
    List<Map<String, AttributeValue>> items =
        client.scan(b -> b.tableName(new StoreTable(prefix).name())).items().stream()
            .filter(i -> i.get("pk").s().startsWith("m#q#"))
            .toList();
    assertEquals(1, items.size(), "message items: " + items);
    return items.get(0);
  }

  private String roundTrip(String body) {
    engine.send("q", NewMessage.of(body));
    return body;
  }

  private String received() {
    List<Message> got = engine.receive("q", ReceiveRequest.one());
    assertEquals(1, got.size());
    return got.get(0).body();
  }

  @Test
  void aCompressibleBody_isStoredDeflated_underAKilobyte_andReadsBackAsSent() {
    StringBuilder json = new StringBuilder("{\"items\":[");
    while (json.length() < 1024) {
      json.append("{\"sku\":\"Größe-42\",\"note\":\"naïve café ☕ 🌍\",\"qty\":1},");
    }
    String body = roundTrip(json.toString());
    Map<String, AttributeValue> item = storedItem();
    assertNull(item.get(Bodies.PLAIN), "no plain body beside the deflated one");
    assertTrue(
        item.get(Bodies.DEFLATED).b().asByteArray().length < 300,
        "deflated bytes: " + item.get(Bodies.DEFLATED).b().asByteArray().length);
    assertEquals(body, received());
  }

  @Test
  void bytesThatDoNotShrink_areStoredAsTheyAre() {
    // any text of some length shrinks under Deflate (UTF-8 never uses every byte value): what
    // does not is what is compressed or encrypted already, here random bytes
    byte[] noise = new byte[4096];
    new Random(7).nextBytes(noise);
    Map<String, AttributeValue> item = new HashMap<>();
    Bodies.put(item, noise);
    assertNull(item.get(Bodies.DEFLATED));
    assertArrayEquals(noise, item.get(Bodies.PLAIN).b().asByteArray());
    assertArrayEquals(noise, Bodies.of(item));
  }

  @Test
  void anEmptyBody_isStoredAsItIs() {
    roundTrip("");
    assertEquals(0, storedItem().get(Bodies.PLAIN).b().asByteArray().length);
    assertEquals("", received());
  }

  @Test
  void aShortBody_isStoredAsItIs_evenWhenItWouldShrink() {
    String body = roundTrip("a".repeat(Bodies.SMALLEST - 1));
    assertArrayEquals(
        body.getBytes(StandardCharsets.UTF_8), storedItem().get(Bodies.PLAIN).b().asByteArray());
    assertEquals(body, received());
  }

  @Test
  void theLargestBodyAQueueAllows_compressible_fitsAnItem_andReadsBackAsSent() {
    // a megabyte: over DynamoDB's 400 KB item limit as it is, far under it deflated
    StringBuilder s = new StringBuilder();
    while (s.length() < QueueConfig.MAX_MESSAGE_SIZE) {
      s.append("line ").append(s.length() % 97).append(" of a large log\n");
    }
    String body = roundTrip(s.substring(0, QueueConfig.MAX_MESSAGE_SIZE));
    assertTrue(storedItem().containsKey(Bodies.DEFLATED));
    assertEquals(body, received());
  }

  /** Random 7-bit text: Deflate keeps about 90 % of it. */
  private static String incompressible(int length) {
    Random random = new Random(11);
    StringBuilder s = new StringBuilder(length);
    while (s.length() < length) {
      s.append((char) (1 + random.nextInt(127)));
    }
    return s.toString();
  }

  @Test
  void aBodyThatDoesNotCompressUnderTheItemLimit_isRefusedAsTooLarge_andNothingIsStored() {
    String body = incompressible(500_000); // a queue allows it; a DynamoDB item holds 400 KB
    QueueException e =
        assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of(body)));
    assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.code());
    assertTrue(e.getMessage().contains("at most " + DynamoQueueEngine.MAX_STORED), e.getMessage());
    QueueException batch =
        assertThrows(
            QueueException.class,
            () -> engine.sendBatch("q", List.of(NewMessage.of("small"), NewMessage.of(body))));
    assertEquals(ErrorCode.MESSAGE_TOO_LARGE, batch.code());
    assertEquals(0, engine.stats("q").depth(), "nothing of the refused batch was sent");
  }

  @Test
  void anUpdateWhoseAttributesTakeTheItemPastTheLimit_isRefusedAsTooLarge_andChangesNothing() {
    String body = incompressible(300_000); // about 270 KB deflated: fits an item
    String id = engine.send("q", NewMessage.of(body)).id();
    // within the queue's 1 MiB, past DynamoDB's 400 KB item with the body
    Map<String, io.switchboard.queue.AttributeValue> big =
        Map.of(
            "a", io.switchboard.queue.AttributeValue.string(incompressible(80_000)),
            "b", io.switchboard.queue.AttributeValue.string(incompressible(80_000)));
    QueueException e =
        assertThrows(
            QueueException.class,
            () -> engine.update("q", id, io.switchboard.queue.MessageUpdate.attributes(big)));
    assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.code());
    assertTrue(e.getMessage().contains("at most " + DynamoQueueEngine.MAX_STORED), e.getMessage());
    assertEquals(Map.of(), engine.get("q", id).attributes(), "the message kept its attributes");
    assertEquals(body, received());
  }

  @Test
  void aBodyThatDoesNotCompressButFitsTheItem_isStored() {
    String body = roundTrip(incompressible(300_000));
    assertTrue(storedItem().containsKey(Bodies.DEFLATED), "it shrinks a little");
    assertEquals(body, received());
  }

  @Test
  void anItemWrittenBeforeCompression_readsAsItAlwaysDid() {
    String body = "x".repeat(2048);
    roundTrip(body);
    Map<String, AttributeValue> old = new HashMap<>(storedItem());
    assertTrue(old.containsKey(Bodies.DEFLATED));
    old.remove(Bodies.DEFLATED);
    old.put(
        Bodies.PLAIN,
        AttributeValue.fromB(SdkBytes.fromByteArray(body.getBytes(StandardCharsets.UTF_8))));
    client.putItem(b -> b.tableName(new StoreTable(prefix).name()).item(old));
    assertEquals(body, received());
  }

  @Test
  void aMovedMessage_keepsItsBody() {
    String body = "moved ".repeat(300);
    String id = engine.send("q", NewMessage.of(body)).id();
    engine.touch("q", id); // a new order serial: the item is written again
    assertEquals(body, engine.get("q", id).body());
    assertEquals(body, received());
  }

  @Test
  void aDamagedCompressedBody_isNamedAsSuch() {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put("pk", AttributeValue.fromS("m#q#1#0"));
    item.put("sk", AttributeValue.fromS("0000000000000000001"));
    item.put(Bodies.DEFLATED, AttributeValue.fromB(SdkBytes.fromUtf8String("not deflate")));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Bodies.of(item));
    assertTrue(e.getMessage().contains("compressed body does not inflate"), e.getMessage());
  }
}
