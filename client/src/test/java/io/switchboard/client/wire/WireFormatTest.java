package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.RedriveTask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class WireFormatTest {

  private static JsonFields strict(String json) {
    return JsonFields.strict(WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)), "body");
  }

  @Test
  void config_roundTripsEveryField() {
    QueueConfig c =
        QueueConfig.builder()
            .order(Order.LIFO)
            .visibilityTimeout(Duration.ofSeconds(45))
            .delay(Duration.ofSeconds(3))
            .retention(Duration.ofHours(2))
            .deadLetter("dlq", 4)
            .onExpire(ExpiryAction.DEAD_LETTER)
            .maxMessageSize(2048)
            .receiveWait(Duration.ofSeconds(20))
            .maxDepth(500, Overflow.DROP_OLDEST)
            .contentBasedDeduplication(true)
            .dedupScope(DedupScope.GROUP)
            .historyRetention(Duration.ofMinutes(5))
            .indexedAttributes("a", "b")
            .build();
    JsonFields f =
        JsonFields.strict(WireFormat.parse(WireFormat.bytes(WireFormat.config(c))), "config");
    assertEquals(c, WireFormat.config(f, QueueConfig.defaults()));
    f.finish();
  }

  @Test
  void config_wireNamesAreLowerCamel() {
    String json =
        new String(
            WireFormat.bytes(
                WireFormat.config(QueueConfig.builder().maxDepth(1, Overflow.DROP_OLDEST).build())),
            StandardCharsets.UTF_8);
    assertTrue(json.contains("\"overflow\":\"dropOldest\""), json);
    assertTrue(json.contains("\"onExpire\":\"delete\""), json);
  }

  @Test
  void config_nullsClearDeadLetterAndMaxDepth() {
    QueueConfig base =
        QueueConfig.builder().deadLetter("d", 2).maxDepth(5, Overflow.REJECT).build();
    QueueConfig c = WireFormat.config(strict("{\"deadLetter\":null,\"maxDepth\":null}"), base);
    assertEquals(Optional.empty(), c.deadLetter());
    assertTrue(c.maxDepth().isEmpty());
  }

  @Test
  void newMessage_shortAndLongAttributeForms() {
    NewMessage m =
        WireFormat.newMessage(
            strict(
                "{\"body\":\"b\",\"attributes\":{\"s\":\"x\",\"n\":1.50,\"l\":[\"a\",\"b\"],"
                    + "\"bin\":{\"dataType\":\"Binary\",\"value\":\"AQID\"},"
                    + "\"i\":{\"dataType\":\"Number.int\",\"value\":\"7\"}},"
                    + "\"priority\":4,\"delaySeconds\":2,\"timeToLiveSeconds\":60}"));
    assertEquals(AttributeValue.string("x"), m.attributes().get("s"));
    assertEquals(AttributeValue.number("1.50"), m.attributes().get("n"));
    assertEquals(AttributeValue.stringList("a", "b"), m.attributes().get("l"));
    assertEquals(AttributeValue.binary(new byte[] {1, 2, 3}), m.attributes().get("bin"));
    assertEquals(new AttributeValue.NumberValue("Number.int", "7"), m.attributes().get("i"));
    assertEquals(4, m.priority());
    assertEquals(Optional.of(Duration.ofSeconds(2)), m.delay());
    JsonFields back =
        JsonFields.strict(WireFormat.parse(WireFormat.bytes(WireFormat.newMessage(m))), "m");
    assertEquals(m, WireFormat.newMessage(back));
  }

  /** A message with every field there. */
  private static final Message FULL_MESSAGE =
      new Message(
          "m1",
          "body",
          Map.of("k", AttributeValue.string("v")),
          3,
          Optional.of("g"),
          Optional.of("d"),
          42,
          MessageState.IN_FLIGHT,
          Instant.parse("2026-01-01T00:00:00Z"),
          Optional.of(Instant.parse("2026-01-01T00:00:01.5Z")),
          1,
          Optional.of(Instant.parse("2026-01-01T00:00:31Z")),
          Instant.parse("2026-01-05T00:00:00Z"),
          Optional.of("receipt"),
          Optional.of("src"));

  @Test
  void message_roundTrips() {
    Message m = FULL_MESSAGE;
    assertEquals(
        m,
        WireFormat.message(
            JsonFields.lenient(WireFormat.parse(WireFormat.bytes(WireFormat.message(m))))));
  }

  /**
   * A message in an answer is written byte for byte as the hand-built tree wrote it before it
   * became a record (the core {@link Message}, bound by {@link MessageJson}): field order, absent
   * fields left out, empty attributes as {@code {}}, instants as {@link Instant#toString}. The
   * texts were printed by the tree writer at 93d16cd.
   */
  @Test
  void message_isWrittenAsTheTreeWroteIt() {
    Message full = FULL_MESSAGE;
    Message bare =
        new Message(
            "m2",
            "",
            Map.of(),
            0,
            Optional.empty(),
            Optional.empty(),
            0,
            MessageState.AVAILABLE,
            Instant.parse("2026-01-01T00:00:00Z"),
            Optional.empty(),
            0,
            Optional.empty(),
            Instant.parse("2026-01-05T00:00:00Z"),
            Optional.empty(),
            Optional.empty());
    assertEquals(
        "{\"id\":\"m1\",\"body\":\"body\",\"attributes\":{\"k\":\"v\"},\"priority\":3,"
            + "\"groupId\":\"g\",\"deduplicationId\":\"d\",\"sequence\":42,\"state\":\"in_flight\","
            + "\"sentAt\":\"2026-01-01T00:00:00Z\",\"firstReceivedAt\":\"2026-01-01T00:00:01.500Z\","
            + "\"receiveCount\":1,\"visibleAt\":\"2026-01-01T00:00:31Z\","
            + "\"expiresAt\":\"2026-01-05T00:00:00Z\",\"receipt\":\"receipt\","
            + "\"deadLetterSource\":\"src\"}",
        new String(Json.bytes(full), StandardCharsets.UTF_8));
    assertEquals(
        "{\"messages\":[{\"id\":\"m2\",\"body\":\"\",\"attributes\":{},\"priority\":0,"
            + "\"sequence\":0,\"state\":\"available\",\"sentAt\":\"2026-01-01T00:00:00Z\","
            + "\"receiveCount\":0,\"expiresAt\":\"2026-01-05T00:00:00Z\"}]}",
        new String(
            Json.bytes(NativeWire.Messages.of(List.of(bare), Optional.empty())),
            StandardCharsets.UTF_8));
    assertEquals(full, WireFormat.message(JsonFields.lenient(WireFormat.message(full))));
    assertEquals(
        List.of(bare, full),
        Json.lenient(
                Json.bytes(NativeWire.Messages.of(List.of(bare, full), Optional.empty())),
                NativeWire.Messages.class)
            .toMessages());
  }

  /** As {@link #message_isWrittenAsTheTreeWroteIt}, for redrive tasks (texts from 93d16cd). */
  @Test
  void redriveTask_isWrittenAsTheTreeWroteIt() {
    RedriveTask full =
        new RedriveTask(
            "t1",
            "dlq",
            Optional.of("q"),
            OptionalInt.of(50),
            RedriveTask.Status.FAILED,
            7,
            9,
            Instant.parse("2026-01-01T00:00:00Z"),
            Optional.of("gone"));
    RedriveTask bare =
        new RedriveTask(
            "t2",
            "dlq",
            Optional.empty(),
            OptionalInt.empty(),
            RedriveTask.Status.RUNNING,
            0,
            0,
            Instant.parse("2026-01-01T00:00:00.123Z"),
            Optional.empty());
    assertEquals(
        "{\"tasks\":[{\"id\":\"t1\",\"source\":\"dlq\",\"destination\":\"q\","
            + "\"maxPerSecond\":50,\"status\":\"failed\",\"moved\":7,\"toMove\":9,"
            + "\"startedAt\":\"2026-01-01T00:00:00Z\",\"failureReason\":\"gone\"},"
            + "{\"id\":\"t2\",\"source\":\"dlq\",\"status\":\"running\",\"moved\":0,"
            + "\"toMove\":0,\"startedAt\":\"2026-01-01T00:00:00.123Z\"}]}",
        new String(
            Json.bytes(NativeWire.RedriveTasks.of(List.of(full, bare))), StandardCharsets.UTF_8));
    assertEquals(full, WireFormat.redriveTask(JsonFields.lenient(WireFormat.redriveTask(full))));
    assertEquals(
        List.of(full, bare),
        Json.lenient(
                Json.bytes(NativeWire.RedriveTasks.of(List.of(full, bare))),
                NativeWire.RedriveTasks.class)
            .toTasks());
  }

  @Test
  void stats_roundTrip() {
    QueueStats s =
        new QueueStats(
            1,
            2,
            3,
            Optional.of(Duration.ofMillis(1500)),
            Map.of(5, 2L, 0, 4L),
            7,
            new QueueStats.Counters(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
    assertEquals(
        s,
        WireFormat.stats(
            JsonFields.lenient(WireFormat.parse(WireFormat.bytes(WireFormat.stats(s))))));
  }

  @Test
  void strictReader_refusesUnknownFieldsWrongTypesAndMalformedJson() {
    JsonFields f = strict("{\"body\":\"b\",\"extra\":1}");
    f.requiredString("body");
    assertEquals("UNKNOWN_FIELD", assertThrows(WireFormatException.class, f::finish).code());
    assertEquals(
        "INVALID_ARGUMENT",
        assertThrows(WireFormatException.class, () -> strict("{\"n\":\"5\"}").int32("n")).code());
    assertEquals(
        "INVALID_ARGUMENT",
        assertThrows(WireFormatException.class, () -> strict("{\"n\":5000000000}").int32("n"))
            .code());
    assertEquals(
        "MALFORMED_JSON",
        assertThrows(WireFormatException.class, () -> strict("{\"a\":1,\"a\":2}")).code());
    assertEquals(
        "MALFORMED_JSON", assertThrows(WireFormatException.class, () -> strict("{} {}")).code());
  }

  @Test
  void enumValue_acceptsWireAndJavaNames() {
    assertEquals(
        Overflow.DROP_OLDEST, WireFormat.enumValue(Overflow.class, "overflow", "dropOldest"));
    assertEquals(
        Overflow.DROP_OLDEST, WireFormat.enumValue(Overflow.class, "overflow", "DROP_OLDEST"));
    WireFormatException e =
        assertThrows(
            WireFormatException.class, () -> WireFormat.enumValue(Order.class, "order", "random"));
    assertTrue(e.getMessage().contains("fifo, lifo"), e.getMessage());
  }

  @Test
  void numberAttribute_textJsonWouldRewrite_roundTripsExactly() {
    NewMessage m =
        NewMessage.builder("b")
            .attribute("e", AttributeValue.number("-1.50e3"))
            .attribute("plain", AttributeValue.number("1.50"))
            .build();
    String json = new String(WireFormat.bytes(WireFormat.newMessage(m)), StandardCharsets.UTF_8);
    assertTrue(json.contains("\"plain\":1.50"), json);
    assertTrue(json.contains("{\"dataType\":\"Number\",\"value\":\"-1.50e3\"}"), json);
    JsonFields back =
        JsonFields.strict(WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)), "m");
    assertEquals(m.attributes(), WireFormat.newMessage(back).attributes());
  }

  @Test
  void config_metadataRoundTrips_absentKeepsIt() {
    QueueConfig c = QueueConfig.builder().metadata(Map.of("sqs.tag.team", "blue", "y", "")).build();
    JsonFields back =
        JsonFields.strict(WireFormat.parse(WireFormat.bytes(WireFormat.config(c))), "c");
    assertEquals(c, WireFormat.config(back, QueueConfig.defaults()));
    assertEquals(c.metadata(), WireFormat.config(strict("{}"), c).metadata());
    WireFormatException e =
        assertThrows(
            WireFormatException.class,
            () -> WireFormat.config(strict("{\"metadata\":{\"n\":1}}"), c));
    assertTrue(e.getMessage().contains("metadata.n"), e.getMessage());
  }

  /**
   * A configuration's bytes are those the tree writer wrote, field for field, since its tag (the
   * {@code ETag} a PATCH's {@code If-Match} compares) is a hash of them.
   */
  @Test
  void configView_bytesAsTheTreeWriterWroteThem_andReadBack() {
    QueueConfig c =
        QueueConfig.builder()
            .order(Order.LIFO)
            .visibilityTimeout(Duration.ofSeconds(45))
            .delay(Duration.ofSeconds(5))
            .retention(Duration.ofSeconds(3600))
            .onExpire(ExpiryAction.DEAD_LETTER)
            .maxMessageSize(2048)
            .receiveWait(Duration.ofSeconds(10))
            .deadLetter("dlq", 3)
            .maxDepth(100, Overflow.DROP_OLDEST)
            .contentBasedDeduplication(true)
            .dedupScope(DedupScope.GROUP)
            .historyRetention(Duration.ofSeconds(60))
            .indexedAttributes("b", "a")
            .metadata(Map.of("z", "1", "y", "2"))
            .build();
    String json =
        "{\"order\":\"lifo\",\"visibilityTimeoutSeconds\":45,\"delaySeconds\":5,"
            + "\"retentionSeconds\":3600,\"onExpire\":\"deadLetter\",\"maxMessageSizeBytes\":2048,"
            + "\"receiveWaitSeconds\":10,\"deadLetter\":{\"target\":\"dlq\",\"maxReceiveCount\":3},"
            + "\"maxDepth\":100,\"overflow\":\"dropOldest\",\"contentBasedDeduplication\":true,"
            + "\"dedupScope\":\"group\",\"historyRetentionSeconds\":60,"
            + "\"indexedAttributes\":[\"a\",\"b\"],\"metadata\":{\"y\":\"2\",\"z\":\"1\"}}";
    assertEquals(json, new String(Json.bytes(NativeWire.ConfigView.of(c)), StandardCharsets.UTF_8));
    assertEquals(json, WireFormat.config(c).toString());
    assertEquals(
        c,
        Json.lenient(json.getBytes(StandardCharsets.UTF_8), NativeWire.ConfigView.class)
            .toConfig());
  }
}
