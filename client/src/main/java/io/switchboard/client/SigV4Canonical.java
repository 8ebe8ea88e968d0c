package io.switchboard.client;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The canonical forms of AWS Signature Version 4 that the client's {@link SigV4Signer} signs and
 * the server's verifier recomputes, in one place so that the two cannot drift: the URI encoding,
 * the canonical URI and the canonical query. (The server writes the canonical request of an ASCII
 * path as bytes, without these strings; its tests check that it agrees with them.)
 */
public final class SigV4Canonical {

  private SigV4Canonical() {}

  /**
   * URI encoding as SigV4 defines it: every byte of the UTF-8 form but {@code A-Za-z0-9-_.~} as
   * {@code %XY}, upper-case hex.
   */
  public static String encode(String s) {
    return Paths.encode(s);
  }

  /**
   * The canonical URI of a raw (still percent-encoded) path: each segment encoded once more, as
   * every AWS service but S3 expects; {@code /} when the path is empty.
   */
  public static String uri(@Nullable String rawPath) {
    if (rawPath == null || rawPath.isEmpty()) {
      return "/";
    }
    StringBuilder out = new StringBuilder(rawPath.length() + 16);
    int start = 0;
    while (true) {
      int slash = rawPath.indexOf('/', start);
      out.append(encode(slash < 0 ? rawPath.substring(start) : rawPath.substring(start, slash)));
      if (slash < 0) {
        return out.toString();
      }
      out.append('/');
      start = slash + 1;
    }
  }

  /**
   * The canonical query of decoded {@code name, value} pairs: each encoded, sorted by name then
   * value, joined as {@code n=v&n=v}; empty for none.
   */
  public static String query(List<String[]> decodedPairs) {
    if (decodedPairs.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>(decodedPairs.size());
    for (String[] p : decodedPairs) {
      pairs.add(new String[] {encode(p[0]), encode(p[1])});
    }
    pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
    StringBuilder out = new StringBuilder();
    for (String[] p : pairs) {
      if (!out.isEmpty()) {
        out.append('&');
      }
      out.append(p[0]).append('=').append(p[1]);
    }
    return out.toString();
  }
}
