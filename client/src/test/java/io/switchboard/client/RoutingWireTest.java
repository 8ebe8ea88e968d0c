package io.switchboard.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The routing requests the client writes, the server reads back strictly as they were. */
class RoutingWireTest {

  private static <T> T overTheWire(Object sent, Class<T> type) {
    return Json.strict(WireFormat.parse(Json.bytes(sent)), "request body", type);
  }

  private static <T> T strict(String json, Class<T> type) {
    return Json.strict(
        WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)), "request body", type);
  }

  @Test
  void newAgentAndContact_roundTrip() {
    NewAgent agent =
        NewAgent.builder("chad")
            .attribute("languages", List.of("es", "en"))
            .attribute("level", 3L)
            .capacity("voice", 1)
            .capacity("chat", 3)
            .presence(Presence.away("lunch"))
            .build();
    assertEquals(
        agent,
        overTheWire(RoutingWire.CreateAgent.of(agent), RoutingWire.CreateAgent.class).toNewAgent());
    NewContact contact =
        NewContact.builder("call-1", "voice")
            .attribute("vip", true)
            .requirements("languages HAS 'es'")
            .priority(2)
            .escalate(Duration.ofSeconds(30), "languages HAS 'en'")
            .escalateToAnyAgent(Duration.ofSeconds(60))
            .maxWait(Duration.ofSeconds(300))
            .build();
    assertEquals(
        contact,
        overTheWire(RoutingWire.CreateContact.of(contact), RoutingWire.CreateContact.class)
            .toNewContact());
    assertEquals(
        Presence.away("coffee"),
        overTheWire(
                RoutingWire.SetPresence.of(Presence.away("coffee")), RoutingWire.SetPresence.class)
            .toPresence());
  }

  @Test
  void badRequests_nameTheFieldAndWhere() {
    WireFormatException step =
        assertThrows(
            WireFormatException.class,
            () ->
                strict(
                    "{\"id\":\"c\",\"channel\":\"voice\",\"escalations\":[{\"requirements\":\"x\"}]}",
                    RoutingWire.CreateContact.class));
    assertEquals("field 'afterSeconds' is required in escalations[0]", step.getMessage());
    WireFormatException capacity =
        assertThrows(
            WireFormatException.class,
            () ->
                strict(
                    "{\"id\":\"a\",\"capacity\":{\"voice\":\"1\"}}",
                    RoutingWire.CreateAgent.class));
    assertEquals("field 'voice' must be an integer, got a string \"1\"", capacity.getMessage());
    WireFormatException reason =
        assertThrows(
            WireFormatException.class,
            () ->
                strict(
                        "{\"presence\":\"available\",\"reason\":\"x\"}",
                        RoutingWire.SetPresence.class)
                    .toPresence());
    assertEquals(WireCode.INVALID_ARGUMENT, reason.wireCode());
  }
}
