package io.switchboard.server.security.sigv4;

import io.switchboard.client.SigV4Canonical;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * AWS Signature Version 4, the computing half: canonical request, string to sign, signing key and
 * signature, as the AWS General Reference ("Create a signed AWS API request") defines them and the
 * AWS SigV4 test suite checks them. {@link SigV4Verifier} uses it to recompute what a client
 * signed; tests use it to sign requests by hand.
 *
 * <p>The canonical URI is the request path with every segment URI-encoded once more, as all AWS
 * services but S3 expect ("double encoding"): SDKs encode the path they send, then encode that
 * again to sign it, so the server encodes the raw path it received.
 */
public final class SigV4 {

  public static final String ALGORITHM = "AWS4-HMAC-SHA256";

  private static final HexFormat HEX = HexFormat.of();
  private static final Pattern SPACES = Pattern.compile(" +");

  /**
   * Made once and cloned per use: {@code getInstance} looks the algorithm up in the provider list
   * (and checks its constraints) every time, which cost a verified request more CPU and garbage
   * than the hashing itself (docs/benchmarks.md, "Cost of authentication").
   */
  private static final MessageDigest SHA256 = instance(() -> MessageDigest.getInstance("SHA-256"));

  private static final Mac HMAC_SHA256 = instance(() -> Mac.getInstance("HmacSHA256"));

  private SigV4() {}

  /** One request as signed: the parts of the canonical request, before canonicalisation. */
  public record Request(
      String method,
      String path,
      String rawQuery,
      Map<String, List<String>> headers,
      List<String> signedHeaders,
      String payloadHash) {}

  /** The canonical request; {@code headers} are keyed by lower-case name. */
  static String canonicalRequest(Request r) {
    Scratch s = new Scratch();
    s.canonicalRequest(
        r.method(),
        r.path(),
        r.rawQuery(),
        r.headers(),
        String.join(";", r.signedHeaders()),
        r.signedHeaders().size());
    s.text(r.payloadHash(), 0, r.payloadHash().length());
    return new String(s.buf, 0, s.len, StandardCharsets.UTF_8);
  }

  /** The path with each segment URI-encoded; {@code /} when empty ({@link SigV4Canonical#uri}). */
  static String canonicalUri(String path) {
    return SigV4Canonical.uri(path);
  }

  /**
   * The raw query's parameters, decoded and encoded again the AWS way, sorted by name then value,
   * without {@code X-Amz-Signature} (a presigned URL cannot sign its own signature); {@link
   * SigV4Canonical#query}, with this endpoint's decoding ({@link FormParameters}: a malformed
   * escape is {@code MalformedQueryString}).
   */
  static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (var e : FormParameters.pairs(rawQuery)) {
      if (!e[0].equals("X-Amz-Signature")) {
        pairs.add(e);
      }
    }
    return SigV4Canonical.query(pairs);
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
  public static String signature(String secret, String amzDate, String scope, Request r) {
    return signature(signingKey(secret, scope), amzDate, scope, r);
  }

  /** The signature, hex, with a signing key {@link #signingKey} derived for {@code scope}. */
  public static String signature(byte[] signingKey, String amzDate, String scope, Request r) {
    return hex(hmac(signingKey, stringToSign(amzDate, scope, canonicalRequest(r))));
  }

  /**
   * Whether {@code signature} (hex, as the client sent it) is the signature of a request with these
   * parts, {@code mac} initialised with the signing key: the canonical request streamed as bytes
   * into {@code s}'s SHA-256, the string to sign into {@code mac}, compared in constant time.
   * Nothing is allocated when the header values, path and scope are ASCII and the query is empty.
   *
   * @param signedHeaders the {@code SignedHeaders} list as sent, {@code ;}-separated
   */
  static boolean matches(
      Scratch s,
      Mac mac,
      String method,
      String path,
      String rawQuery,
      Map<String, List<String>> headers,
      String signedHeaders,
      byte[] body,
      String amzDate,
      String scope,
      String signature) {
    MessageDigest sha = s.sha;
    sha.reset();
    sha.update(body);
    digest(sha, s.hash);
    s.len = 0;
    s.canonicalRequest(method, path, rawQuery, headers, lowerCase(signedHeaders), -1);
    s.hex(s.hash);
    sha.update(s.buf, 0, s.len);
    digest(sha, s.hash);
    s.len = 0;
    s.ascii(ALGORITHM);
    s.put('\n');
    s.text(amzDate, 0, amzDate.length());
    s.put('\n');
    s.text(scope, 0, scope.length());
    s.put('\n');
    s.hex(s.hash);
    mac.reset();
    mac.update(s.buf, 0, s.len);
    try {
      mac.doFinal(s.mac, 0);
    } catch (javax.crypto.ShortBufferException e) {
      throw new IllegalStateException("an HMAC-SHA256 is 32 bytes", e);
    }
    return unhex(signature, s.sent) && MessageDigest.isEqual(s.mac, s.sent);
  }

  private static void digest(MessageDigest sha, byte[] into) {
    try {
      sha.digest(into, 0, into.length);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException("a SHA-256 is 32 bytes", e);
    }
  }

  /** {@code s} lower-cased, the same string when it has no upper-case ASCII (the usual case). */
  private static String lowerCase(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c >= 'A' && c <= 'Z') || c >= 0x80) {
        return s.toLowerCase(java.util.Locale.ROOT);
      }
    }
    return s;
  }

  /** An ASCII hex digit's value, -1 for anything else ({@link Character#digit} takes others). */
  private static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  /** 64 hex digits (either case) into 32 bytes; false when {@code hex} is not that. */
  private static boolean unhex(String hex, byte[] into) {
    if (hex == null || hex.length() != 2 * into.length) {
      return false;
    }
    for (int i = 0; i < into.length; i++) {
      int hi = hexDigit(hex.charAt(2 * i));
      int lo = hexDigit(hex.charAt(2 * i + 1));
      if (hi < 0 || lo < 0) {
        return false;
      }
      into[i] = (byte) (hi << 4 | lo);
    }
    return true;
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

  /** URI encoding as SigV4 defines it ({@link SigV4Canonical#encode}). */
  static String encode(String s) {
    return SigV4Canonical.encode(s);
  }

  public static byte[] sha256(byte[] data) {
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

  public static String hex(byte[] bytes) {
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

  /**
   * The working state of one verification: a SHA-256, the canonical request's and the string to
   * sign's bytes, the hashes, and the HMAC of the signing key it last served, all reused. {@link
   * #borrow} one and {@link #release} it; one is used by one thread at a time.
   *
   * <p>Pooled rather than kept per thread: Helidon serves each request on a new virtual thread, so
   * a thread-local one would be made again for every request.
   */
  static final class Scratch {
    private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX_UPPER = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    final MessageDigest sha = newSha256();
    final byte[] hash = new byte[32];
    final byte[] mac = new byte[32];
    final byte[] sent = new byte[32];
    byte[] buf = new byte[1024];
    int len;

    /** The signing key (its cache entry) {@link #macOf} is initialised with; none at first. */
    @Nullable Object macKey;

    @Nullable Mac macOf;

    /**
     * method, canonical URI, canonical query, the signed headers' lines, a blank line and the
     * signed headers' names, each line ended: all of the canonical request but the payload hash.
     *
     * @param signedHeaders lower-case, {@code ;}-separated; empty names at its end are ignored
     *     ({@code split} dropped them)
     * @param count how many names to take even when empty, or -1 for those {@code split} finds
     */
    void canonicalRequest(
        String method,
        String path,
        String rawQuery,
        Map<String, List<String>> headers,
        String signedHeaders,
        int count) {
      text(method, 0, method.length());
      put('\n');
      uri(path);
      put('\n');
      if (rawQuery != null && !rawQuery.isEmpty()) {
        String q = canonicalQuery(rawQuery);
        text(q, 0, q.length());
      }
      put('\n');
      int end = signedHeaders.length();
      if (count < 0) {
        while (end > 0 && signedHeaders.charAt(end - 1) == ';') {
          end--;
        }
      }
      int names = 0;
      for (int at = 0; at < end || names < count; names++) {
        int semi = signedHeaders.indexOf(';', at);
        int nameEnd = semi < 0 || semi > end ? end : semi;
        String name = signedHeaders.substring(at, nameEnd);
        text(name, 0, name.length());
        put(':');
        headerValue(headers.get(name));
        put('\n');
        at = nameEnd + 1;
        if (nameEnd == end) {
          break;
        }
      }
      put('\n');
      text(signedHeaders, 0, end);
      put('\n');
    }

    /** Every value of a header, trimmed, inner runs of spaces made one, joined by commas. */
    private void headerValue(@Nullable List<String> values) {
      if (values == null) {
        return;
      }
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          put(',');
        }
        String v = values.get(i);
        int from = 0;
        int to = v.length();
        while (from < to && v.charAt(from) <= ' ') {
          from++;
        }
        while (to > from && v.charAt(to - 1) <= ' ') {
          to--;
        }
        if (!ascii(v, from, to)) {
          String folded = SPACES.matcher(v.substring(from, to)).replaceAll(" ");
          text(folded, 0, folded.length());
          continue;
        }
        ensure(to - from);
        for (int k = from; k < to; k++) {
          char c = v.charAt(k);
          if (c != ' ' || v.charAt(k - 1) != ' ') { // k > from here: a value does not start blank
            buf[len++] = (byte) c;
          }
        }
      }
    }

    /** The path with each segment URI-encoded ({@link SigV4#canonicalUri}). */
    private void uri(String path) {
      if (path == null || path.isEmpty()) {
        put('/');
        return;
      }
      if (!ascii(path, 0, path.length())) {
        String u = canonicalUri(path);
        text(u, 0, u.length());
        return;
      }
      ensure(3 * path.length());
      for (int i = 0; i < path.length(); i++) {
        char c = path.charAt(i);
        if (c == '/' || unreserved(c)) {
          buf[len++] = (byte) c;
        } else {
          buf[len++] = '%';
          buf[len++] = HEX_UPPER[c >> 4];
          buf[len++] = HEX_UPPER[c & 0xf];
        }
      }
    }

    void put(char c) {
      ensure(1);
      buf[len++] = (byte) c;
    }

    /** {@code s}, known to be ASCII. */
    void ascii(String s) {
      ensure(s.length());
      for (int i = 0; i < s.length(); i++) {
        buf[len++] = (byte) s.charAt(i);
      }
    }

    /** {@code s[from..to)} as UTF-8. */
    void text(String s, int from, int to) {
      if (!ascii(s, from, to)) {
        byte[] b = s.substring(from, to).getBytes(StandardCharsets.UTF_8);
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
        return;
      }
      ensure(to - from);
      for (int i = from; i < to; i++) {
        buf[len++] = (byte) s.charAt(i);
      }
    }

    /** {@code bytes} as lower-case hex. */
    public void hex(byte[] bytes) {
      ensure(2 * bytes.length);
      for (byte b : bytes) {
        buf[len++] = HEX_DIGITS[(b >> 4) & 0xf];
        buf[len++] = HEX_DIGITS[b & 0xf];
      }
    }

    private void ensure(int more) {
      if (len + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(2 * buf.length, len + more));
      }
    }

    private static boolean ascii(String s, int from, int to) {
      for (int i = from; i < to; i++) {
        if (s.charAt(i) >= 0x80) {
          return false;
        }
      }
      return true;
    }
  }

  private static final int POOL_SIZE = 16;

  /** Idle scratches; a slot is null while its scratch is in use (or before one was made). */
  private static final AtomicReferenceArray<Scratch> POOL = new AtomicReferenceArray<>(POOL_SIZE);

  /** An idle scratch, or a new one when all are in use. */
  static Scratch borrow() {
    int start = (int) Thread.currentThread().threadId();
    for (int i = 0; i < POOL_SIZE; i++) {
      int slot = (start + i) & (POOL_SIZE - 1);
      Scratch s = POOL.get(slot);
      if (s != null && POOL.compareAndSet(slot, s, null)) {
        return s;
      }
    }
    return new Scratch();
  }

  /** Gives {@code s} back to the pool (or drops it when the pool is full). */
  static void release(Scratch s) {
    if (s.buf.length > 64 * 1024) {
      s.buf = new byte[1024]; // one huge request does not keep its buffer
    }
    int start = (int) Thread.currentThread().threadId();
    for (int i = 0; i < POOL_SIZE; i++) {
      if (POOL.compareAndSet((start + i) & (POOL_SIZE - 1), null, s)) {
        return;
      }
    }
  }

  private static boolean unreserved(char c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == '~';
  }

  private static MessageDigest newSha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return instance(() -> MessageDigest.getInstance("SHA-256"));
    }
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
