package io.switchboard.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Signs requests with AWS Signature Version 4 as the server verifies them (its {@code
 * SigV4Verifier}): the signed headers are {@code host} and {@code x-amz-date}; the body's SHA-256
 * ends the canonical request but is not sent as {@code x-amz-content-sha256}, which only S3 needs
 * (the server hashes the body it receives whatever that header says, so sending it would cost every
 * request 90 header bytes to send and parse for nothing); the canonical URI is the raw path with
 * each segment encoded once more; the canonical query is the raw query's parameters decoded as a
 * form and encoded the SigV4 way, sorted. The credential scope is {@code DATE/REGION/}{@value
 * #SERVICE}{@code /aws4_request}: the server accepts any region and checks the service.
 *
 * <p>The signing key (four HMACs) is derived once per day and kept. Thread-safe.
 */
public final class SigV4Signer {

  /** The service name in the credential scope, as the server checks it. */
  public static final String SERVICE = "sqs";

  /** The region signed when none is given. */
  public static final String DEFAULT_REGION = "us-east-1";

  private static final String ALGORITHM = "AWS4-HMAC-SHA256";
  private static final String SIGNED_HEADERS = "host;x-amz-date";
  private static final HexFormat HEX = HexFormat.of();
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private final Credentials credentials;
  private final String region;
  private volatile @Nullable DayKey dayKey;

  private record DayKey(String date, byte[] key) {}

  public SigV4Signer(Credentials credentials, String region) {
    this.credentials = Objects.requireNonNull(credentials, "credentials");
    this.region = Objects.requireNonNull(region, "region");
    if (region.isEmpty() || region.contains("/")) {
      throw new IllegalArgumentException(
          "a region must be a non-empty name without '/', got '" + region + "'");
    }
  }

  /**
   * The headers that sign a request ({@code Authorization}, {@code X-Amz-Date}), in that order; the
   * request must be sent to {@code uri} exactly (its raw path and raw query) with {@code body}
   * ({@code null} or empty for none).
   */
  public Map<String, String> sign(String method, URI uri, byte @Nullable [] body, Instant at) {
    String amzDate = AMZ_DATE.format(at);
    String date = amzDate.substring(0, 8);
    String scope = date + "/" + region + "/" + SERVICE + "/aws4_request";
    String payloadHash = HEX.formatHex(sha256(body == null ? new byte[0] : body));
    String canonical =
        method
            + '\n'
            + canonicalUri(uri.getRawPath())
            + '\n'
            + canonicalQuery(uri.getRawQuery())
            + '\n'
            + "host:"
            + host(uri)
            + '\n'
            + "x-amz-date:"
            + amzDate
            + '\n'
            + '\n'
            + SIGNED_HEADERS
            + '\n'
            + payloadHash;
    String toSign =
        ALGORITHM
            + '\n'
            + amzDate
            + '\n'
            + scope
            + '\n'
            + HEX.formatHex(sha256(canonical.getBytes(StandardCharsets.UTF_8)));
    String signature = HEX.formatHex(hmac(signingKey(date), toSign));
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(
        "Authorization",
        ALGORITHM
            + " Credential="
            + credentials.accessKeyId()
            + "/"
            + scope
            + ", SignedHeaders="
            + SIGNED_HEADERS
            + ", Signature="
            + signature);
    headers.put("X-Amz-Date", amzDate);
    return headers;
  }

  /**
   * The {@code Host} header as Java's HTTP client sends it: the host, and the port unless it is the
   * scheme's default.
   */
  static String host(URI uri) {
    int port = uri.getPort();
    boolean standard =
        port == -1
            || ("http".equalsIgnoreCase(uri.getScheme()) && port == 80)
            || ("https".equalsIgnoreCase(uri.getScheme()) && port == 443);
    return standard ? uri.getHost() : uri.getHost() + ":" + port;
  }

  private byte[] signingKey(String date) {
    DayKey k = dayKey;
    if (k == null || !k.date().equals(date)) {
      byte[] key = ("AWS4" + credentials.secretKey()).getBytes(StandardCharsets.UTF_8);
      for (String part : List.of(date, region, SERVICE, "aws4_request")) {
        key = hmac(key, part);
      }
      k = new DayKey(date, key);
      dayKey = k;
    }
    return k.key();
  }

  static String canonicalUri(@Nullable String rawPath) {
    return SigV4Canonical.uri(rawPath);
  }

  static String canonicalQuery(@Nullable String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      pairs.add(new String[] {name, value});
    }
    return SigV4Canonical.query(pairs);
  }

  private static String decode(String s) {
    return java.net.URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  @Override
  public String toString() {
    return "SigV4Signer[" + credentials + ", region=" + region + "]";
  }
}
