package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.client.SigV4Canonical;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server's canonical request agrees with the canonical forms the Java client signs with ({@link
 * SigV4Canonical}, shared since both built their own): the bytes the verifier writes for an ASCII
 * path (its fast path) are the shared canonical URI, and the query goes through the shared form.
 */
class SigV4SharedCanonicalTest {

  private static String uriLine(String path, String query) {
    String canonical =
        SigV4.canonicalRequest(
            new SigV4.Request("GET", path, query, Map.of(), List.of(), "UNSIGNED-PAYLOAD"));
    return canonical.split("\n", -1)[1] + "?" + canonical.split("\n", -1)[2];
  }

  @Test
  void asciiPathsAndQueries_asTheSharedCanonicaliser() {
    for (String path :
        List.of(
            "/",
            "/v1/noop",
            "/000000000000/q-1_a.b~c",
            "/v1/queues/a%20b/messages",
            "/a:b@c/!$&'()*+,;=",
            "/with space/and%2Fslash",
            "//double//slashes/")) {
      for (String query : List.of("", "b=z&b=x+y*~&a=1", "Action=ListQueues&c&b=")) {
        assertEquals(
            SigV4Canonical.uri(path) + "?" + SigV4Canonical.query(FormParameters.pairs(query)),
            uriLine(path, query),
            path + "?" + query);
      }
    }
  }

  @Test
  void nonAsciiPath_asTheSharedCanonicaliser() {
    assertEquals("/%E1%88%B4/x?", uriLine("/ሴ/x", ""));
    assertEquals(SigV4Canonical.uri("/ሴ/x") + "?", uriLine("/ሴ/x", ""));
  }
}
