package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.config.SqsAccount;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.Clock;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The profile-guided cut of the SQS path (docs/bench-history/sqs.md), where a change could alter
 * behaviour: the queue URL resolved by the read-ahead is reused only for the same URL at the same
 * address; answers written by walking the tree are byte for byte the mapper's; entry ids, message
 * characters and a batch's size are judged exactly as before.
 */
class SqsReadOnceTest {

  private static final String BASE = "http://127.0.0.1:9324";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final SqsEndpoint endpoint =
      SqsEndpoint.create(
          QueueEngine.inMemory(), new MemoryKeyRing(), SqsAccount.DEFAULT, Clock.system());

  private static SqsHttpRequest json(String action, String body) {
    return new SqsHttpRequest(
        "POST",
        "/",
        "",
        Map.of(
            "x-amz-target", List.of("AmazonSQS." + action),
            "content-type", List.of("application/x-amz-json-1.0")),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(SqsApi.Answer a) {
    return new String(a.body(), StandardCharsets.UTF_8);
  }

  private String create(String name) {
    SqsApi.Answer a =
        endpoint.handle(json("CreateQueue", "{\"QueueName\":\"" + name + "\"}"), BASE, "c");
    assertEquals(200, a.status(), text(a));
    return BASE + "/000000000000/" + name;
  }

  @Test
  void queueUrlResolvedByTheReadAhead_isTheQueueServed() {
    String url = create("first");
    create("second");
    SqsHttpRequest send =
        json("SendMessage", "{\"QueueUrl\":\"" + url + "\",\"MessageBody\":\"to first\"}");
    SqsAction action = endpoint.action(send, BASE);
    assertEquals(java.util.Optional.of("first"), action.queue());
    assertEquals(200, endpoint.handle(send, BASE, "s", action).status());

    String second = BASE + "/000000000000/second";
    SqsApi.Answer none =
        endpoint.handle(json("ReceiveMessage", "{\"QueueUrl\":\"" + second + "\"}"), BASE, "r1");
    assertTrue(!text(none).contains("to first"), text(none));
    SqsApi.Answer got =
        endpoint.handle(json("ReceiveMessage", "{\"QueueUrl\":\"" + url + "\"}"), BASE, "r2");
    assertTrue(text(got).contains("\"to first\""), text(got));
  }

  @Test
  void queueUrlTheReadAheadCouldNotResolve_refusedWhenServed_asBefore() {
    create("here");
    // another account's queue URL: the read-ahead resolves nothing, serving refuses it
    SqsHttpRequest send =
        json(
            "SendMessage",
            "{\"QueueUrl\":\"" + BASE + "/111111111111/here\",\"MessageBody\":\"x\"}");
    SqsAction action = endpoint.action(send, BASE);
    assertEquals(java.util.Optional.empty(), action.queue());
    SqsApi.Answer a = endpoint.handle(send, BASE, "s", action);
    assertEquals(400, a.status(), text(a));
    assertTrue(text(a).contains("QueueDoesNotExist"), text(a));
  }

  @Test
  void answerBytes_equalTheMappersByteForByte() throws Exception {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode tree = f.objectNode();
    tree.put("MessageId", "0f1e2d3c-aaaa-bbbb-cccc-000000000000");
    tree.put(
        "Body", "quotes \" backslash \\ slash / </script> tab\t nl\n cr\r nul\u0000 bell\u0007");
    tree.put("Unicode", "é € 𝄞 \uD83D\uDE00 \u2028 \u2029 \uFFFD");
    tree.put("Int", 42).put("Long", 1L << 40).put("Negative", -7);
    tree.put("Decimal", new BigDecimal("1.50")).put("Double", 0.1).put("True", true);
    tree.putNull("Null");
    tree.putObject("Empty");
    tree.putArray("EmptyList");
    var list = tree.putArray("Successful");
    for (int i = 0; i < 3; i++) {
      list.addObject()
          .put("Id", "e" + i)
          .put("MD5OfMessageBody", "d41d8cd98f00b204e9800998ecf8427e");
    }
    list.add("text").add(3).addNull().addArray().add(f.objectNode());
    tree.putObject("Nested").putObject("Deeper").putArray("Deepest").add("x");
    assertArrayEquals(MAPPER.writeValueAsBytes(tree), SqsApi.bytes(tree));

    // and the real answers of a single and a batch cycle
    String url = create("bytes");
    String body = "{\"QueueUrl\":\"" + url + "\",";
    List<SqsApi.Answer> answers =
        List.of(
            endpoint.handle(
                json("SendMessage", body + "\"MessageBody\":\"ünïcödé \\\"q\\\"\"}"), BASE, "1"),
            endpoint.handle(
                json(
                    "SendMessageBatch",
                    body
                        + "\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"one\"},"
                        + "{\"Id\":\"b\",\"MessageBody\":\"two\",\"MessageAttributes\":"
                        + "{\"k\":{\"DataType\":\"String\",\"StringValue\":\"v\"}}},"
                        + "{\"Id\":\"c\",\"MessageBody\":\"\"}]}"),
                BASE,
                "2"),
            endpoint.handle(
                json(
                    "ReceiveMessage",
                    body
                        + "\"MaxNumberOfMessages\":10,\"AttributeNames\":[\"All\"],"
                        + "\"MessageAttributeNames\":[\"All\"]}"),
                BASE,
                "3"));
    for (SqsApi.Answer a : answers) {
      assertEquals(200, a.status(), text(a));
      JsonNode reread = MAPPER.readTree(a.body());
      assertArrayEquals(MAPPER.writeValueAsBytes(reread), a.body(), text(a));
    }
    assertTrue(text(answers.get(1)).contains("\"Failed\""), text(answers.get(1)));
  }

  private static final Pattern OLD_ID = Pattern.compile("[A-Za-z0-9_-]{1,80}");

  @Test
  void batchEntryIds_judgedAsTheRegularExpressionJudgedThem() {
    List<String> ids =
        List.of(
            "",
            "a",
            "A-z_09",
            "x".repeat(80),
            "x".repeat(81),
            "with space",
            "dot.",
            "é",
            "\u0663", // an Arabic-Indic digit: not [0-9]
            "Ａ", // a full-width letter
            "tab\t",
            "-_-");
    for (String id : ids) {
      assertEquals(OLD_ID.matcher(id).matches(), BatchEntries.validId(id), "'" + id + "'");
    }
    for (char c = 0; c < 0x3000; c++) {
      String id = "a" + c;
      assertEquals(OLD_ID.matcher(id).matches(), BatchEntries.validId(id), "char " + (int) c);
    }
  }

  private static OptionalInt oldFirstInvalid(String text) {
    return text.codePoints()
        .filter(
            c ->
                !(c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || (c >= 0x10000 && c <= 0x10FFFF)))
        .findFirst();
  }

  @Test
  void messageCharacters_judgedAsTheCodePointStreamJudgedThem() {
    List<String> texts =
        List.of(
            "",
            "plain",
            "tab\tnl\ncr\r",
            "nul\u0000after",
            "bell\u0007",
            "\uFFFE",
            "\uFFFF",
            "𝄞 and \uD83D\uDE00",
            "lone high \uD800 then",
            "lone low \uDC00",
            "high at end \uD83D",
            "\uE000\uFFFD");
    for (String t : texts) {
      assertEquals(oldFirstInvalid(t), MessageActions.firstInvalidCharacter(t), t);
    }
    for (int c = 0; c < 0x11000; c += 7) {
      String t = "x" + new String(Character.toChars(c)) + "y";
      assertEquals(oldFirstInvalid(t), MessageActions.firstInvalidCharacter(t), "U+" + c);
    }
  }

  private SqsApi.Answer batchOf(String url, String body) {
    StringBuilder entries = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      entries
          .append(i == 0 ? "" : ",")
          .append("{\"Id\":\"e")
          .append(i)
          .append("\",\"MessageBody\":\"")
          .append(body)
          .append("\"}");
    }
    return endpoint.handle(
        json("SendMessageBatch", "{\"QueueUrl\":\"" + url + "\",\"Entries\":[" + entries + "]}"),
        BASE,
        "b");
  }

  @Test
  void batchSize_countedInUtf8Bytes_whenItsBoundIsOverTheLimit() {
    String url = create("sized");
    // 10 × 52,000 two-byte characters: 1,040,000 bytes, under 1 MiB (its 3-per-character bound
    // is over): sent
    SqsApi.Answer under = batchOf(url, "é".repeat(52_000));
    assertEquals(200, under.status(), text(under).substring(0, 200));
    assertTrue(text(under).endsWith("\"Failed\":[]}"), text(under).substring(0, 200));
    // 10 × 53,000: 1,060,000 bytes, over: refused with the exact count
    SqsApi.Answer over = batchOf(url, "é".repeat(53_000));
    assertEquals(400, over.status(), text(over));
    assertTrue(text(over).contains("You have sent 1060000 bytes"), text(over));
  }

  @Test
  void queueUrlPath_readFromItsEnd_asItsSplitReadIt() {
    List<String> paths =
        List.of(
            "",
            "/",
            "//",
            "q",
            "/q",
            "/000000000000/q",
            "000000000000/q",
            "/queue/eu-west-1/000000000000/q.fifo",
            "queue/eu-west-1/000000000000/q",
            "/a/queue/us-east-1/000000000000/q",
            "/x//q",
            "a//",
            "/queue//000000000000/q");
    for (String path : paths) {
      String[] seg = path.split("/", -1);
      int n = seg.length;
      QueueAddress.Tail tail = QueueAddress.Tail.of(path);
      assertEquals(seg[n - 1], tail.name(), path);
      assertEquals(n >= 2 ? seg[n - 2] : null, tail.account(), path);
      assertEquals(n >= 3 ? seg[n - 3] : null, tail.region(), path);
      assertEquals(n >= 4 ? seg[n - 4] : null, tail.queueWord(), path);
    }
  }
}
