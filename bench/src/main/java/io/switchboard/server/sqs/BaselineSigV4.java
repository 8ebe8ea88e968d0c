/*
 * A frozen copy of this class as of commit 1a037eb (before the byte-streaming verifier), kept in
 * the bench module only so that SigV4VerifierBenchmark measures before and after in one run.
 * Not used by the server.
 */
package io.switchboard.server.sqs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4, the computing half: canonical request, string to sign, signing key and
 * signature, as the AWS General Reference ("Create a signed AWS API request") defines them and the
 * AWS BaselineSigV4 test suite checks them. {@link SigV4Verifier} uses it to recompute what a
 * client signed; tests use it to sign requests by hand.
 *
 * <p>The canonical URI is the request path with every segment URI-encoded once more, as all AWS
 * services but S3 expect ("double encoding"): SDKs encode the path they send, then encode that
 * again to sign it, so the server encodes the raw path it received.
 */
final class BaselineSigV4 {

  static final String ALGORITHM = "AWS4-HMAC-SHA256";

  private static final HexFormat HEX = HexFormat.of();
  private static final Pattern SPACES = Pattern.compile(" +");

  /**
   * Made once and cloned per use: {@code getInstance} looks the algorithm up in the provider list
   * (and checks its constraints) every time, which cost a verified request more CPU and garbage
   * than the hashing itself (docs/benchmarks.md, "Cost of authentication").
   */
  private static final MessageDigest SHA256 = instance(() -> MessageDigest.getInstance("SHA-256"));

  private static final Mac HMAC_SHA256 = instance(() -> Mac.getInstance("HmacSHA256"));

  private BaselineSigV4() {}

  /** One request as signed: the parts of the canonical request, before canonicalisation. */
  record Request(
      String method,
      String path,
      String rawQuery,
      Map<String, List<String>> headers,
      List<String> signedHeaders,
      String payloadHash) {}

  /** The canonical request; {@code headers} are keyed by lower-case name. */
  static String canonicalRequest(Request r) {
    StringBuilder c = new StringBuilder(256);
    c.append(r.method()).append('\n');
    c.append(canonicalUri(r.path())).append('\n');
    c.append(canonicalQuery(r.rawQuery())).append('\n');
    for (String name : r.signedHeaders()) {
      c.append(name).append(':').append(headerValue(r.headers().get(name))).append('\n');
    }
    c.append('\n');
    c.append(String.join(";", r.signedHeaders())).append('\n');
    c.append(r.payloadHash());
    return c.toString();
  }

  /** The path with each segment URI-encoded; {@code /} when empty. */
  static String canonicalUri(String path) {
    if (path == null || path.isEmpty()) {
      return "/";
    }
    StringBuilder out = new StringBuilder(path.length() + 16);
    int start = 0;
    while (true) {
      int slash = path.indexOf('/', start);
      String segment = slash < 0 ? path.substring(start) : path.substring(start, slash);
      out.append(encode(segment));
      if (slash < 0) {
        return out.toString();
      }
      out.append('/');
      start = slash + 1;
    }
  }

  /**
   * The raw query's parameters, decoded and encoded again the AWS way, sorted by name then value,
   * without {@code X-Amz-Signature} (a presigned URL cannot sign its own signature).
   */
  static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (var e : QueryForm.pairs(rawQuery)) {
      if (!e[0].equals("X-Amz-Signature")) {
        pairs.add(new String[] {encode(e[0]), encode(e[1])});
      }
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

  /** Every value of a header, trimmed, inner runs of spaces made one, joined by commas. */
  private static String headerValue(List<String> values) {
    if (values == null) {
      return "";
    }
    if (values.size() == 1 && isCanonical(values.get(0))) {
      return values.get(0); // the usual case: nothing to trim, no run of spaces
    }
    List<String> trimmed = new ArrayList<>(values.size());
    for (String v : values) {
      trimmed.add(SPACES.matcher(v.trim()).replaceAll(" "));
    }
    return String.join(",", trimmed);
  }

  private static boolean isCanonical(String v) {
    return v.isEmpty()
        || (v.charAt(0) > ' ' && v.charAt(v.length() - 1) > ' ' && !v.contains("  "));
  }

  static String stringToSign(String amzDate, String scope, String canonicalRequest) {
    return ALGORITHM
        + '\n'
        + amzDate
        + '\n'
        + scope
        + '\n'
        + hex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8)));
  }

  /** The signature, hex; {@code scope} is {@code date/region/service/aws4_request}. */
  static String signature(String secret, String amzDate, String scope, Request r) {
    return signature(signingKey(secret, scope), amzDate, scope, r);
  }

  /** The signature, hex, with a signing key {@link #signingKey} derived for {@code scope}. */
  static String signature(byte[] signingKey, String amzDate, String scope, Request r) {
    return hex(hmac(signingKey, stringToSign(amzDate, scope, canonicalRequest(r))));
  }

  /**
   * The signing key of {@code secret} for {@code scope} ({@code date/region/service/aws4_request}):
   * four HMACs, the same for every request of that day, region and service.
   */
  static byte[] signingKey(String secret, String scope) {
    String[] parts = scope.split("/");
    byte[] key = ("AWS4" + secret).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 4; i++) {
      key = hmac(key, parts[i]);
    }
    return key;
  }

  /**
   * URI encoding as BaselineSigV4 defines it: everything but {@code A-Za-z0-9-_.~}, as UTF-8 bytes.
   */
  static String encode(String s) {
    StringBuilder out = new StringBuilder(s.length() + 8);
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~') {
        out.append(c);
      } else {
        out.append('%').append(HEX.withUpperCase().toHexDigits(b));
      }
    }
    return out.toString();
  }

  static byte[] sha256(byte[] data) {
    try {
      return ((MessageDigest) SHA256.clone()).digest(data);
    } catch (CloneNotSupportedException e) {
      try {
        return MessageDigest.getInstance("SHA-256").digest(data);
      } catch (NoSuchAlgorithmException missing) {
        throw new IllegalStateException("SHA-256 is part of every JDK", missing);
      }
    }
  }

  static String hex(byte[] bytes) {
    return HEX.formatHex(bytes);
  }

  private static byte[] hmac(byte[] key, String data) {
    return hmacWith(key).doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A blank HMAC-SHA256 initialised with {@code key}. After a {@code doFinal} it is back in this
   * state, so it can serve as a prototype for {@link #copy}.
   */
  static Mac hmacWith(byte[] key) {
    try {
      Mac mac;
      try {
        mac = (Mac) HMAC_SHA256.clone(); // never initialised itself: a blank one each time
      } catch (CloneNotSupportedException e) {
        mac = Mac.getInstance("HmacSHA256");
      }
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /**
   * A copy of an initialised HMAC ({@link #hmacWith}) that is not in use: cloning skips the key
   * set-up, and a Mac is not safe to share between threads.
   */
  static Mac copy(Mac prototype, byte[] key) {
    try {
      return (Mac) prototype.clone();
    } catch (CloneNotSupportedException e) {
      return hmacWith(key);
    }
  }

  /** The string to sign's bytes ({@link #stringToSign}). */
  static byte[] stringToSignBytes(String amzDate, String scope, Request r) {
    return stringToSign(amzDate, scope, canonicalRequest(r)).getBytes(StandardCharsets.UTF_8);
  }

  /** What makes a JDK algorithm object; every JDK has the ones asked for here. */
  private interface Maker<T> {
    T make() throws java.security.GeneralSecurityException;
  }

  private static <T> T instance(Maker<T> maker) {
    try {
      return maker.make();
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 and HmacSHA256 are part of every JDK", e);
    }
  }
}
