package io.switchboard.server.sqs;

import io.switchboard.server.security.sigv4.SigV4;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/** Signs requests by hand, for tests that need what no SDK sends (an old date, say). */
public final class SigV4Requests {

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private SigV4Requests() {}

  public static String amzDate(Instant at) {
    return AMZ_DATE.format(at);
  }

  /**
   * The {@code Authorization} header for a request to service {@code sqs} in us-east-1, signing
   * every header in {@code headers} (which must hold {@code x-amz-date}).
   */
  public static String authorization(
      String keyId,
      String secret,
      String method,
      String path,
      String query,
      Map<String, List<String>> headers,
      byte[] body) {
    String amzDate = headers.get("x-amz-date").get(0);
    String scope = amzDate.substring(0, 8) + "/us-east-1/sqs/aws4_request";
    List<String> signed = headers.keySet().stream().sorted().toList();
    String signature =
        SigV4.signature(
            secret,
            amzDate,
            scope,
            new SigV4.Request(method, path, query, headers, signed, SigV4.hex(SigV4.sha256(body))));
    return SigV4.ALGORITHM
        + " Credential="
        + keyId
        + "/"
        + scope
        + ", SignedHeaders="
        + String.join(";", signed)
        + ", Signature="
        + signature;
  }
}
