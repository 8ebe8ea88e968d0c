package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.queue.MessageState;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The wire's instants written and read without {@code java.time.format}
 * (docs/bench-history/native-e2e.md: parsing a receive's instants was the largest cost of reading
 * its answer): the text must be exactly {@link Instant#toString()}'s and the instant exactly {@link
 * Instant#parse}'s, or an answer would change.
 */
class InstantTextTest {

  private static final long YEAR_10000 = Instant.parse("+10000-01-01T00:00:00Z").getEpochSecond();

  @Test
  void format_isInstantToString_atEveryPrecision() {
    SplittableRandom random = new SplittableRandom(19);
    for (int i = 0; i < 200_000; i++) {
      long second = random.nextLong(0, YEAR_10000);
      int nano =
          switch (i % 4) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> random.nextInt(1_000_000_000);
          };
      Instant t = Instant.ofEpochSecond(second, nano);
      assertEquals(t.toString(), InstantText.format(t));
    }
  }

  @Test
  void format_edgesAndTheRangeLeftToJavaTime() {
    for (Instant t :
        List.of(
            Instant.EPOCH,
            Instant.ofEpochSecond(0, 1),
            Instant.ofEpochSecond(0, 10_000_000),
            Instant.ofEpochSecond(-1),
            Instant.ofEpochSecond(-62_167_219_200L),
            Instant.parse("2000-02-29T23:59:59.999999999Z"),
            Instant.parse("2100-03-01T00:00:00Z"),
            Instant.parse("9999-12-31T23:59:59.999Z"),
            Instant.ofEpochSecond(YEAR_10000),
            Instant.MIN,
            Instant.MAX)) {
      assertEquals(t.toString(), InstantText.format(t), t::toString);
    }
  }

  @Test
  void parse_isInstantParse() {
    SplittableRandom random = new SplittableRandom(26);
    for (int i = 0; i < 200_000; i++) {
      Instant t =
          Instant.ofEpochSecond(
              random.nextLong(-62_167_219_200L, YEAR_10000), random.nextInt(1_000_000_000));
      String text = t.toString();
      assertEquals(t, InstantText.parse(text), text);
      // every number of fraction digits
      String seconds = text.substring(0, 19);
      String digits = String.valueOf(random.nextInt(1_000_000_000));
      String partial = seconds + "." + digits + "Z";
      assertEquals(Instant.parse(partial), InstantText.parse(partial), partial);
    }
  }

  @Test
  void parse_leavesAnythingUnusualToJavaTime() {
    for (String text :
        List.of(
            "2026-11-26t08:00:00Z",
            "2026-11-26T08:00:00z",
            "2026-11-26T08:00:00+01:00",
            "2026-11-26T08:00:00.Z",
            "2026-11-26T08:00:60Z",
            "2026-11-26T24:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-11-00T00:00:00Z",
            "2026-11-26T08:00:00.1234567890Z",
            "2026-11-26T08:0a:00Z",
            "+10000-01-01T00:00:00Z",
            "-0001-01-01T00:00:00Z",
            "2026-11-26 08:00:00Z",
            "2026-11-26T08:00Z",
            "")) {
      assertNull(InstantText.parse(text), text);
    }
    assertEquals(Instant.parse("1900-02-28T00:00:00Z"), InstantText.parse("1900-02-28T00:00:00Z"));
    assertNull(InstantText.parse("1900-02-29T00:00:00Z"));
  }

  @Test
  void wireFormatInstant_readsWhatJavaTimeReads_andRefusesAsBefore() {
    assertEquals(
        Optional.of(Instant.parse("2026-11-26T09:00:00Z")),
        WireFormat.instant("sentAt", "2026-11-26T08:00:00-01:00"));
    assertEquals(
        Optional.of(Instant.parse("2026-11-26T08:00:00.5Z")),
        WireFormat.instant("sentAt", "2026-11-26T08:00:00.5Z"));
    assertThrows(DateTimeParseException.class, () -> Instant.parse("2026-02-29T00:00:00Z"));
    WireFormatException e =
        assertThrows(
            WireFormatException.class, () -> WireFormat.instant("sentAt", "2026-02-29T00:00:00Z"));
    assertEquals("sentAt must be an ISO-8601 instant, got '2026-02-29T00:00:00Z'", e.getMessage());
  }

  /** The enum look-up by wire name that answers use reads what the slow path reads. */
  @Test
  void enumValue_byWireName_isTheSameConstant() {
    for (MessageState s : MessageState.values()) {
      assertEquals(s, WireFormat.enumValue(MessageState.class, "state", s.wireName()));
    }
    for (Overflow o : Overflow.values()) {
      assertEquals(o, WireFormat.enumValue(Overflow.class, "overflow", WireFormat.wireName(o)));
    }
    assertEquals(Order.LIFO, WireFormat.enumValue(Order.class, "order", "l_I_f_o"));
  }
}
