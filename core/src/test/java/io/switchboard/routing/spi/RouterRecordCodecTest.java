package io.switchboard.routing.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.routing.ContactState;
import io.switchboard.routing.Presence;
import io.switchboard.routing.ReservationState;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every stored record comes back equal from its bytes, attribute types included. */
class RouterRecordCodecTest {

  private static final Map<String, Object> EVERY_TYPE =
      Map.ofEntries(
          Map.entry("s", "text ü"),
          Map.entry("t", true),
          Map.entry("f", false),
          Map.entry("i", 7),
          Map.entry("j", 1L << 40),
          Map.entry("h", (short) -3),
          Map.entry("y", (byte) 9),
          Map.entry("d", 2.5),
          Map.entry("r", 1.25f),
          Map.entry("m", new BigDecimal("123.450")),
          Map.entry("g", new BigInteger("123456789012345678901234567890")),
          Map.entry("l", List.of("a", "", "c")));

  @Test
  void agent_roundTrip_keepsAttributeTypes() {
    StoredAgent a =
        new StoredAgent(
            "chad",
            4,
            EVERY_TYPE,
            Map.of("voice", 1, "chat", 3),
            Presence.away("lunch"),
            1_000,
            12,
            2);
    assertEquals(a, RouterRecordCodec.agent(RouterRecordCodec.encode(a)));
    StoredAgent offline = new StoredAgent("x", 1, Map.of(), Map.of(), Presence.offline(), 0, 0, 0);
    assertEquals(offline, RouterRecordCodec.agent(RouterRecordCodec.encode(offline)));
  }

  @Test
  void contact_roundTrip_withAndWithoutOptionalParts() {
    StoredContact full =
        StoredContact.builder("call-1", "voice")
            .attributes(EVERY_TYPE)
            .priority(-5)
            .seq(17)
            .createdAt(1_000)
            .steps(
                List.of(
                    new StoredContact.Step(60_000, Optional.of("lang = 'es'")),
                    new StoredContact.Step(120_000, Optional.empty())))
            .deadline(9_000)
            .requirement(Optional.of("skills HAS 'a'"))
            .step(1)
            .state(ContactState.WRAP_UP)
            .agentId(Optional.of("chad"))
            .reservationId(Optional.of("res-3"))
            .answeredAt(2_000)
            .wrapUpUntil(5_000)
            .timerSeq(40)
            .wrapUpTimerSeq(41)
            .build();
    assertEquals(full, RouterRecordCodec.contact(RouterRecordCodec.encode(full)));
    StoredContact bare = StoredContact.builder("c", "chat").seq(1).build();
    assertEquals(bare, RouterRecordCodec.contact(RouterRecordCodec.encode(bare)));
  }

  @Test
  void contactBuilder_defaults_aQueuedContactWithNoOptionalParts() {
    assertEquals(
        new StoredContact(
            "c",
            "chat",
            Map.of(),
            0,
            0,
            0,
            List.of(),
            Long.MAX_VALUE,
            Optional.empty(),
            0,
            ContactState.QUEUED,
            Optional.empty(),
            Optional.empty(),
            -1,
            -1,
            -1,
            0,
            0,
            0,
            Optional.empty(),
            Optional.empty()),
        StoredContact.builder("c", "chat").build());
  }

  @Test
  void reservationAndCounters_roundTrip() {
    StoredReservation r =
        new StoredReservation(
            "res-9", 9, "call-1", "chad", 100, 30_100, ReservationState.PENDING, 8);
    assertEquals(r, RouterRecordCodec.reservation(RouterRecordCodec.encode(r)));
    RouterCounters c = new RouterCounters(1, 2, 3, 4, 5, 6, Long.MAX_VALUE);
    assertEquals(c, RouterRecordCodec.counters(RouterRecordCodec.encode(c)));
  }

  @Test
  void attributeOfAnotherType_isRefusedNamingIt() {
    StoredAgent a =
        new StoredAgent(
            "a", 1, Map.of("when", new Object()), Map.of(), Presence.available(), 0, 0, 0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RouterRecordCodec.encode(a));
    assertEquals(true, e.getMessage().contains("'when'"), e.getMessage());
  }
}
