package io.switchboard.queue.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.Random;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** {@link ShortHmac} is HMAC-SHA256: the JDK's answer for every key and message length it takes. */
class ShortHmacTest {

  private static byte[] jdk(byte[] key, byte[] data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    // SecretKeySpec refuses an empty key; one zero byte pads to the same block
    mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
    return mac.doFinal(data);
  }

  @Test
  void everyKeyLengthAndMessageLength_givesTheJdksHmacSha256() throws Exception {
    Random rnd = new Random(19);
    for (int keyLength = 0; keyLength <= 64; keyLength++) {
      byte[] key = new byte[keyLength];
      rnd.nextBytes(key);
      ShortHmac hmac = new ShortHmac(key);
      for (int len = 0; len <= ShortHmac.MAX_DATA; len++) {
        byte[] data = new byte[len + 3];
        rnd.nextBytes(data);
        byte[] message = java.util.Arrays.copyOfRange(data, 3, 3 + len);
        assertArrayEquals(jdk(key, message), hmac.mac(data, 3, len), keyLength + "/" + len);
        assertArrayEquals(jdk(key, message), hmac.copy().mac(data, 3, len), "a copy");
      }
    }
  }

  @Test
  void rfc4231TestCase2() {
    byte[] key = "Jefe".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] data =
        "what do ya want for nothing?".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertArrayEquals(
        HexFormat.of().parseHex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        new ShortHmac(key).mac(data, 0, data.length));
  }

  @Test
  void aLongerMessageOrKey_isRefused() {
    ShortHmac hmac = new ShortHmac(new byte[32]);
    assertThrows(IllegalArgumentException.class, () -> hmac.mac(new byte[56], 0, 56));
    assertThrows(IllegalArgumentException.class, () -> new ShortHmac(new byte[65]));
  }
}
