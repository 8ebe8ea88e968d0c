package io.switchboard.client;

import java.nio.charset.StandardCharsets;

/** Percent-encoding of one path segment or query value (RFC 3986 unreserved characters stay). */
final class Paths {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private Paths() {}

  static String encode(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }
}
