package io.switchboard.bench.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Item sizes and units against sizes worked out by hand from DynamoDB's rules. */
class ItemSizeTest {

  private static AttributeValue s(String v) {
    return AttributeValue.fromS(v);
  }

  private static AttributeValue n(String v) {
    return AttributeValue.fromN(v);
  }

  @Test
  void strings_countUtf8BytesOfNameAndValue() {
    // "name" 4 bytes + "héllo" 6 bytes (é is two in UTF-8)
    assertEquals(10, ItemSize.of(Map.of("name", s("héllo"))));
    // an empty string is its name alone
    assertEquals(1, ItemSize.of(Map.of("e", s(""))));
  }

  @Test
  void numbers_oneBytePerTwoSignificantDigitsPlusOne() {
    assertEquals(4, ItemSize.number("12345")); // 5 digits: 3 + 1
    assertEquals(2, ItemSize.number("100")); // trailing zeroes trimmed: 1 digit: 1 + 1
    assertEquals(2, ItemSize.number("0.001")); // leading zeroes trimmed
    assertEquals(5, ItemSize.number("-1234567")); // 7 digits: 4 + 1
    assertEquals(2, ItemSize.number("0"));
    assertEquals(11, ItemSize.number("1733140000000123456")); // 19 digits: 10 + 1
    // "n" 1 byte + 4
    assertEquals(5, ItemSize.of(Map.of("n", n("12345"))));
  }

  @Test
  void binaryBooleanNullAndSets() {
    assertEquals(
        1 + 10,
        ItemSize.of(Map.of("b", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[10])))));
    assertEquals(2 + 1, ItemSize.of(Map.of("ok", AttributeValue.fromBool(true))));
    assertEquals(2 + 1, ItemSize.of(Map.of("no", AttributeValue.fromNul(true))));
    // string set: 1 + 2 bytes; number set: 2 + 2
    assertEquals(2 + 3, ItemSize.of(Map.of("ss", AttributeValue.fromSs(List.of("a", "bc")))));
    assertEquals(2 + 4, ItemSize.of(Map.of("ns", AttributeValue.fromNs(List.of("1", "22")))));
  }

  @Test
  void listsAndMaps_threeBytesAndOnePerElement() {
    // list: 3 + ("ab" 2 + 1) + (number "1" 2 + 1) = 9, name "l" 1
    assertEquals(10, ItemSize.of(Map.of("l", AttributeValue.fromL(List.of(s("ab"), n("1"))))));
    // map: 3 + (name "k" 1 + "v" 1 + 1) = 6, name "m" 1
    assertEquals(7, ItemSize.of(Map.of("m", AttributeValue.fromM(Map.of("k", s("v"))))));
    // empty list: 3
    assertEquals(1 + 3, ItemSize.of(Map.of("l", AttributeValue.fromL(List.of()))));
  }

  @Test
  void aQueueItemOfOneKilobyteBody_isOverOneWriteUnit() {
    Map<String, AttributeValue> item = new LinkedHashMap<>();
    item.put("pk", s("m#q#7#0")); // 2 + 7
    item.put("sk", s("0000000000000000042")); // 2 + 19
    item.put("b", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[1024]))); // 1 + 1024
    item.put("ep", n("1")); // 2 + 2
    assertEquals(9 + 21 + 1025 + 4, ItemSize.of(item));
    assertEquals(2, ItemSize.writeUnits(ItemSize.of(item)));
  }

  @Test
  void units_roundUpPerStartedKilobyteOrFourKilobytes_andAtLeastOne() {
    assertEquals(1, ItemSize.writeUnits(0));
    assertEquals(1, ItemSize.writeUnits(1024));
    assertEquals(2, ItemSize.writeUnits(1025));
    assertEquals(1.0, ItemSize.readUnits(0, true));
    assertEquals(0.5, ItemSize.readUnits(0, false));
    assertEquals(1.0, ItemSize.readUnits(4096, true));
    assertEquals(2.0, ItemSize.readUnits(4097, true));
    assertEquals(1.0, ItemSize.readUnits(4097, false));
  }
}
