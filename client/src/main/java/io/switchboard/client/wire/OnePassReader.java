package io.switchboard.client.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.NativeWire.MessageView;
import io.switchboard.client.wire.NativeWire.Messages;
import io.switchboard.queue.SendResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads the native API's busiest bodies in one pass with Jackson's parser, for the plain shape each
 * end writes: a receive's or browse's answer ({@code {"messages":[...], "nextCursor"?}}), a batch
 * send ({@code {"messages":[...]}}) and a batch ack ({@code {"receipts":[...]}}); each object's
 * known fields at most once, each of its exact JSON type, no attributes (or {@code {}}), no {@code
 * null}, nothing after the object. It gives up (null) on anything else, which the caller ({@link
 * Messages#read}, {@link NativeWire.SendBatch#read}, {@link NativeWire.AckBatch#read}) then binds
 * as before ({@link Json}): so for what it accepts it gives the record the binding would, and for
 * the rest the binding's result or error. The strict requests and the lenient answers differ only
 * where it gives up anyway (unknown fields).
 *
 * <p>The parser's factory ({@link Json#newFactory}) does no duplicate detection (the reader notices
 * a repeated known field itself and gives up on any unknown one), so that no set of field names is
 * made per object.
 */
final class OnePassReader {

  /**
   * A plain factory: no duplicate detection (see above), Jackson's buffers from the shared pool.
   */
  private static final JsonFactory FACTORY = Json.newFactory();

  private OnePassReader() {}

  /** Anything but the plain shape: the binding reads it instead. */
  private static final class NotPlain extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotPlain() {
      super("not the plain shape", null, false, false);
    }
  }

  private static final NotPlain NOT_PLAIN = new NotPlain();

  /** A batch send's record, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable SendBatch sendBatch(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"messages".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<NativeWire.SendMessage> messages = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        messages.add(sendMessage(p));
      }
      return p.currentToken() == JsonToken.END_ARRAY && end(p)
          ? new NativeWire.SendBatch(messages)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** A batch ack's record, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable AckBatch ackBatch(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"receipts".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<String> receipts = new ArrayList<>();
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        receipts.add(text(p, t));
      }
      return end(p) ? new NativeWire.AckBatch(receipts) : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** After the one field's value: the object ends, and nothing follows it. */
  private static boolean end(JsonParser p) throws IOException {
    return p.nextToken() == JsonToken.END_OBJECT && p.nextToken() == null;
  }

  private static NativeWire.SendMessage sendMessage(JsonParser p) throws IOException {
    String body = null;
    JsonNode attributes = null;
    Integer priority = null;
    String groupId = null;
    String deduplicationId = null;
    Long delaySeconds = null;
    Long timeToLiveSeconds = null;
    int seen = 0;
    for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      int bit;
      switch (f) {
        case "body" -> {
          bit = 1;
          body = text(p, t);
        }
        case "attributes" -> {
          bit = 1 << 1;
          attributes = emptyObject(p, t);
        }
        case "priority" -> {
          bit = 1 << 2;
          priority = integer(p, t);
        }
        case "groupId" -> {
          bit = 1 << 3;
          groupId = text(p, t);
        }
        case "deduplicationId" -> {
          bit = 1 << 4;
          deduplicationId = text(p, t);
        }
        case "delaySeconds" -> {
          bit = 1 << 5;
          delaySeconds = longInteger(p, t);
        }
        case "timeToLiveSeconds" -> {
          bit = 1 << 6;
          timeToLiveSeconds = longInteger(p, t);
        }
        default -> throw NOT_PLAIN;
      }
      seen = once(seen, bit);
    }
    if (p.currentToken() != JsonToken.END_OBJECT || body == null) {
      throw NOT_PLAIN;
    }
    return new NativeWire.SendMessage(
        body, attributes, priority, groupId, deduplicationId, delaySeconds, timeToLiveSeconds);
  }

  /** {@code seen} with {@code bit} added: a field met twice is not the plain shape. */
  private static int once(int seen, int bit) {
    if ((seen & bit) != 0) {
      throw NOT_PLAIN;
    }
    return seen | bit;
  }

  /** {@code {}}: anything else in attributes is left to the binding. */
  private static JsonNode emptyObject(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT || p.nextToken() != JsonToken.END_OBJECT) {
      throw NOT_PLAIN;
    }
    return Json.STRICT.getNodeFactory().objectNode();
  }

  /** A receive's request, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable Receive receive(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Integer maxMessages = null;
      Long visibilityTimeoutSeconds = null;
      Long waitTimeSeconds = null;
      String selector = null;
      int seen = 0;
      for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
        JsonToken t = p.nextToken();
        int bit;
        switch (f) {
          case "maxMessages" -> {
            bit = 1;
            maxMessages = integer(p, t);
          }
          case "visibilityTimeoutSeconds" -> {
            bit = 1 << 1;
            visibilityTimeoutSeconds = longInteger(p, t);
          }
          case "waitTimeSeconds" -> {
            bit = 1 << 2;
            waitTimeSeconds = longInteger(p, t);
          }
          case "selector" -> {
            bit = 1 << 3;
            selector = text(p, t);
          }
          default -> {
            return null;
          }
        }
        seen = once(seen, bit); // caught below: null
      }
      return p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null
          ? new NativeWire.Receive(maxMessages, visibilityTimeoutSeconds, waitTimeSeconds, selector)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** A batch send's answer, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable SendResults sendResults(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"results".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<SendResult> results = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String id = null;
        long sequence = 0;
        boolean duplicate = false;
        int seen = 0;
        for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
          JsonToken t = p.nextToken();
          int bit;
          switch (f) {
            case "id" -> {
              bit = 1;
              id = text(p, t);
            }
            case "sequence" -> {
              bit = 1 << 1;
              sequence = longInteger(p, t);
            }
            case "duplicate" -> {
              bit = 1 << 2;
              duplicate = bool(t);
            }
            default -> throw NOT_PLAIN;
          }
          seen = once(seen, bit);
        }
        if (seen != 0b111 || id == null || p.currentToken() != JsonToken.END_OBJECT) {
          return null; // a field left out: the binding decides what that means
        }
        results.add(new SendResult(id, sequence, duplicate));
      }
      return p.currentToken() == JsonToken.END_ARRAY && end(p)
          ? new NativeWire.SendResults(results)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  /** A batch ack's answer, or null if it is not the plain shape (or not JSON). */
  static NativeWire.@Nullable AckResults ackResults(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || !"results".equals(p.nextFieldName())
          || p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<NativeWire.Acked> results = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String receipt = null;
        boolean acked = false;
        String code = null;
        String message = null;
        int seen = 0;
        for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
          JsonToken t = p.nextToken();
          int bit;
          switch (f) {
            case "receipt" -> {
              bit = 1;
              receipt = text(p, t);
            }
            case "acked" -> {
              bit = 1 << 1;
              acked = bool(t);
            }
            case "code" -> {
              bit = 1 << 2;
              code = text(p, t);
            }
            case "message" -> {
              bit = 1 << 3;
              message = text(p, t);
            }
            default -> throw NOT_PLAIN;
          }
          seen = once(seen, bit);
        }
        if ((seen & 0b11) != 0b11 || p.currentToken() != JsonToken.END_OBJECT) {
          return null; // receipt or acked left out: the binding decides
        }
        results.add(new NativeWire.Acked(receipt, acked, code, message));
      }
      return p.currentToken() == JsonToken.END_ARRAY && end(p)
          ? new NativeWire.AckResults(results)
          : null;
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  private static boolean bool(@Nullable JsonToken t) {
    if (t == JsonToken.VALUE_TRUE) {
      return true;
    }
    if (t == JsonToken.VALUE_FALSE) {
      return false;
    }
    throw NOT_PLAIN;
  }

  /** A receive's or browse's answer, or null if it is not the plain shape (or not JSON). */
  static @Nullable Messages messages(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      List<MessageView> messages = null;
      String cursor = null;
      for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
        switch (f) {
          case "messages" -> {
            if (messages != null || p.nextToken() != JsonToken.START_ARRAY) {
              return null;
            }
            messages = new ArrayList<>();
            while (p.nextToken() == JsonToken.START_OBJECT) {
              messages.add(message(p));
            }
            if (p.currentToken() != JsonToken.END_ARRAY) {
              return null;
            }
          }
          case "nextCursor" -> {
            if (cursor != null) {
              return null;
            }
            cursor = text(p, p.nextToken());
          }
          default -> {
            return null;
          }
        }
      }
      if (messages == null || p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null;
      }
      return new Messages(messages, cursor);
    } catch (NotPlain | IOException e) {
      return null;
    }
  }

  private static MessageView message(JsonParser p) throws IOException {
    String id = null;
    String body = null;
    JsonNode attributes = null;
    int priority = 0;
    String groupId = null;
    String deduplicationId = null;
    long sequence = 0;
    String state = null;
    String sentAt = null;
    String firstReceivedAt = null;
    int receiveCount = 0;
    String visibleAt = null;
    String expiresAt = null;
    String receipt = null;
    String deadLetterSource = null;
    int seen = 0;
    for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      int bit;
      switch (f) {
        case "id" -> {
          bit = 1;
          id = text(p, t);
        }
        case "body" -> {
          bit = 1 << 1;
          body = text(p, t);
        }
        case "attributes" -> {
          bit = 1 << 2;
          attributes = emptyObject(p, t);
        }
        case "priority" -> {
          bit = 1 << 3;
          priority = integer(p, t);
        }
        case "groupId" -> {
          bit = 1 << 4;
          groupId = text(p, t);
        }
        case "deduplicationId" -> {
          bit = 1 << 5;
          deduplicationId = text(p, t);
        }
        case "sequence" -> {
          bit = 1 << 6;
          sequence = longInteger(p, t);
        }
        case "state" -> {
          bit = 1 << 7;
          state = text(p, t);
        }
        case "sentAt" -> {
          bit = 1 << 8;
          sentAt = text(p, t);
        }
        case "firstReceivedAt" -> {
          bit = 1 << 9;
          firstReceivedAt = text(p, t);
        }
        case "receiveCount" -> {
          bit = 1 << 10;
          receiveCount = integer(p, t);
        }
        case "visibleAt" -> {
          bit = 1 << 11;
          visibleAt = text(p, t);
        }
        case "expiresAt" -> {
          bit = 1 << 12;
          expiresAt = text(p, t);
        }
        case "receipt" -> {
          bit = 1 << 13;
          receipt = text(p, t);
        }
        case "deadLetterSource" -> {
          bit = 1 << 14;
          deadLetterSource = text(p, t);
        }
        default -> throw NOT_PLAIN;
      }
      seen = once(seen, bit); // a repeated field: the binding words the error
    }
    if (p.currentToken() != JsonToken.END_OBJECT || id == null || body == null) {
      throw NOT_PLAIN;
    }
    return new MessageView(
        id,
        body,
        attributes,
        priority,
        groupId,
        deduplicationId,
        sequence,
        state,
        sentAt,
        firstReceivedAt,
        receiveCount,
        visibleAt,
        expiresAt,
        receipt,
        deadLetterSource);
  }

  private static String text(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_STRING) {
      throw NOT_PLAIN;
    }
    return p.getText();
  }

  private static int integer(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
      throw NOT_PLAIN;
    }
    return p.getIntValue();
  }

  private static long longInteger(JsonParser p, @Nullable JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT
        || (p.getNumberType() != JsonParser.NumberType.INT
            && p.getNumberType() != JsonParser.NumberType.LONG)) {
      throw NOT_PLAIN;
    }
    return p.getLongValue();
  }
}
