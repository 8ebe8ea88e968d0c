package io.switchboard.bench.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's bodies ({@code --body-kind}): the size asked, the id first, the same every run. */
class DesignBodyTest {

  private static Design.Message message(String kind) {
    return new Design.Message("m000007", 0, "", List.of(), kind);
  }

  @Test
  void everyKind_isTheBytesAsked_ofAscii_carryingTheId_andRepeatable() {
    for (String kind : Design.BODY_KINDS) {
      String body = message(kind).body(1024);
      assertEquals(1024, body.getBytes(StandardCharsets.UTF_8).length, kind);
      assertTrue(body.chars().allMatch(c -> c > 0 && c < 128), kind);
      assertEquals("m000007", Design.Message.idOf(body), kind);
      assertEquals(body, message(kind).body(1024), kind);
    }
    assertNotEquals(message("letters").body(1024), message("ascii").body(1024));
  }

  @Test
  void anUnknownKind_isRefusedNamingTheKinds() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DynamoBench.main(new String[] {"--body-kind", "zip"}));
    assertTrue(e.getMessage().contains("filler,letters,base64,ascii"), e.getMessage());
  }
}
