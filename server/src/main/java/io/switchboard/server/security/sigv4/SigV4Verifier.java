package io.switchboard.server.security.sigv4;

import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import org.jspecify.annotations.Nullable;

/**
 * Checks the SigV4 signature of a request against the server's access keys ({@link KeyRing}), in an
 * {@code Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...} header
 * or a presigned URL's {@code X-Amz-*} query parameters, and refuses as AWS does:
 *
 * <ul>
 *   <li>no signature: {@code MissingAuthenticationToken} (403);
 *   <li>a malformed one, or no date: {@code IncompleteSignature} (400);
 *   <li>an unknown access key id (one no key can have included): {@code InvalidClientTokenId}
 *       (403);
 *   <li>a date more than 15 minutes from the server's clock, or a presigned URL past its expiry:
 *       {@code RequestExpired} (400);
 *   <li>signed headers without {@code host}, or without {@code x-amz-target} on a request that has
 *       one: {@code SignatureDoesNotMatch} (403) naming the header;
 *   <li>any other difference, the body included: {@code SignatureDoesNotMatch} (403).
 * </ul>
 *
 * The payload hash is always the hash of the body received, whatever {@code x-amz-content-sha256}
 * claims, so a body cannot be swapped under a valid signature. Any region is accepted (it is the
 * region the request is in, {@link #signedRegion}); the service must be one the verifier is made
 * for: {@code sqs} on the SQS endpoint, {@code sqs} or {@code switchboard} on the native API.
 *
 * <p>One verifier serves all of a server's requests, concurrently. It keeps the signing keys it
 * derived (four HMACs each) by secret and scope (date, region, service), but only those that
 * verified a request, so that guessed scopes do not fill it, and at most {@link #MAX_KEYS}: a key
 * is good for a day, and a server sees few regions.
 */
public final class SigV4Verifier {

  static final Duration MAX_SKEW = Duration.ofMinutes(15);

  /** The longest life of a presigned URL that SigV4 allows: a week, in seconds. */
  static final long MAX_PRESIGNED_EXPIRES = 604_800;

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);

  static final int MAX_KEYS = 1024;

  private final KeyRing keys;
  private final Set<String> services;
  private final Clock clock;
  private final Map<SigningScope, SigningKey> signingKeys = new ConcurrentHashMap<>();

  /**
   * The signing key that verified the last request: a server sees one key and scope (a day, a
   * region, a service) far more often than any other, and checking it first skips the cache key's
   * allocation, its hash over the scope and the map's look-up.
   */
  private volatile @Nullable SigningKey lastKey;

  /**
   * The last {@code X-Amz-Date} read, and its instant in epoch seconds: every request signed in the
   * same second carries the same one, and parsing it was a good part of the date checks.
   */
  private volatile @Nullable SignedAt lastDate;

  private record SignedAt(String amzDate, long epochSecond) {}

  /**
   * A derived signing key and an HMAC initialised with it, which requests copy rather than
   * initialise their own; {@code scope} is what it was derived from.
   */
  private record SigningKey(SigningScope scope, byte[] key, Mac prototype) {

    /** Whether this key was derived from {@code secret} and {@code scope}. */
    boolean of(String secret, String scope) {
      return this.scope.scope.equals(scope) && this.scope.secret.equals(secret);
    }
  }

  /** What a signing key is derived from. */
  private record SigningScope(String secret, String scope) {
    // written out: the generated equals and hashCode (an invokedynamic bootstrap) showed in the
    // verifier's profile as the cache look-up's largest part (docs/benchmarks.md)
    @Override
    public boolean equals(Object o) {
      return o instanceof SigningScope s && scope.equals(s.scope) && secret.equals(s.secret);
    }

    @Override
    public int hashCode() {
      return 31 * scope.hashCode() + secret.hashCode();
    }

    @Override
    public String toString() {
      return "SigningScope[" + scope + "]"; // never the secret
    }
  }

  /**
   * @param keys the access keys requests are signed with; none means nothing is verified
   * @param services the services a credential scope may name ({@code sqs})
   * @param clock judges the age of signatures
   */
  public SigV4Verifier(KeyRing keys, Set<String> services, Clock clock) {
    this.keys = keys;
    this.services = Set.copyOf(services);
    this.clock = clock;
  }

  /** A verifier of SQS requests: the service must be {@code sqs}. */
  public SigV4Verifier(KeyRing keys, Clock clock) {
    this(keys, Set.of("sqs"), clock);
  }

  /** The parts of a signature, from the header or the query. */
  private record Signed(
      String keyId, String scope, String signedHeaders, String signature, boolean presigned) {}

  /** How many signing keys are kept now; for tests. */
  int cachedKeys() {
    return signingKeys.size();
  }

  /**
   * Verifies {@code request}: the key that signed it, or empty when no keys are configured (then
   * nothing is verified).
   *
   * @throws SigV4Error with the AWS code for what is wrong
   */
  public Optional<Principal> verify(SqsHttpRequest request) {
    if (keys.keyless()) {
      return Optional.empty();
    }
    String authorization = first(request, "authorization");
    // the query is read only for a presigned request: a signed header is the usual case
    Map<String, String> query =
        authorization != null ? Map.of() : FormParameters.parse(request.rawQuery());
    Signed signed;
    String amzDate;
    if (authorization != null) {
      signed = fromHeader(authorization);
      amzDate = date(request);
    } else if (query.containsKey("X-Amz-Signature")) {
      signed = fromQuery(query);
      amzDate = query.get("X-Amz-Date");
      if (amzDate == null) {
        throw incomplete("a presigned request needs X-Amz-Date");
      }
    } else {
      throw new SigV4Error(
          "MissingAuthenticationToken", 403, "Request is missing Authentication Token");
    }
    Principal principal =
        keys.find(signed.keyId())
            .orElseThrow(
                () ->
                    new SigV4Error(
                        "InvalidClientTokenId",
                        403,
                        "The security token included in the request is invalid: unknown access key"
                            + " id "
                            + Audit.clip(signed.keyId())));
    String secret = principal.secret();
    checkSignedHeaders(request, signed.signedHeaders());
    checkScope(signed.scope(), amzDate);
    checkTime(amzDate, signed.presigned() ? query.get("X-Amz-Expires") : null);
    SigningKey last = lastKey;
    SigningScope scope = null;
    SigningKey cached;
    if (last != null && last.of(secret, signed.scope())) {
      cached = last;
    } else {
      scope = new SigningScope(secret, signed.scope());
      cached = signingKeys.get(scope);
    }
    SigV4.Scratch s = SigV4.borrow();
    boolean matches;
    try {
      Mac mac;
      byte[] key;
      if (cached == null) {
        key = SigV4.signingKey(secret, signed.scope());
        mac = SigV4.hmacWith(key); // the cache's prototype if it verifies: never the scratch's
      } else if (s.macKey == cached) {
        key = cached.key();
        mac = Objects.requireNonNull(s.macOf); // this scratch's own copy of the cached HMAC
      } else {
        key = cached.key();
        mac = SigV4.copy(cached.prototype(), key);
        s.macKey = cached;
        s.macOf = mac;
      }
      matches =
          SigV4.matches(
              s,
              mac,
              request.method(),
              request.rawPath(),
              request.rawQuery(),
              request.headers(),
              signed.signedHeaders(),
              request.body(),
              amzDate,
              signed.scope(),
              signed.signature());
      if (matches && cached == null) {
        if (signingKeys.size() >= MAX_KEYS) {
          signingKeys.clear(); // yesterday's keys, mostly: derive again what is still used
        }
        SigningScope made = Objects.requireNonNull(scope, "made when the last key did not serve");
        cached = new SigningKey(made, key, mac); // doFinal left the HMAC as initialised
        signingKeys.put(made, cached);
      }
      if (matches && cached != last) {
        lastKey = cached;
      }
    } finally {
      SigV4.release(s);
    }
    if (!matches) {
      throw new SigV4Error(
          "SignatureDoesNotMatch",
          403,
          "The request signature we calculated does not match the signature you provided. Check"
              + " your AWS Secret Access Key and signing method.");
    }
    return Optional.of(principal);
  }

  /** A header's first value, or null; {@code name} in lower case. */
  private static @Nullable String first(SqsHttpRequest request, String name) {
    List<String> v = request.headers().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  /** The access key id a request names (header or presigned), whether or not it is valid. */
  public static Optional<String> claimedKeyId(SqsHttpRequest request) {
    String c = credential(request);
    if (c == null) {
      return Optional.empty();
    }
    return Optional.of(c.indexOf('/') > 0 ? c.substring(0, c.indexOf('/')) : c);
  }

  /**
   * The region in a request's credential scope ({@code
   * Credential=KEY/DATE/REGION/sqs/aws4_request}, in the {@code Authorization} header or a
   * presigned URL's {@code X-Amz-Credential}), whether or not the signature is verified; none for
   * an unsigned request or a scope that is not of that form.
   */
  public static Optional<String> signedRegion(SqsHttpRequest request) {
    String c = credential(request);
    if (c == null) {
      return Optional.empty();
    }
    // KEY/DATE/REGION/SERVICE/aws4_request: exactly four slashes, a region between the 2nd and 3rd
    int s1 = c.indexOf('/');
    int s2 = s1 < 0 ? -1 : c.indexOf('/', s1 + 1);
    int s3 = s2 < 0 ? -1 : c.indexOf('/', s2 + 1);
    int s4 = s3 < 0 ? -1 : c.indexOf('/', s3 + 1);
    if (s4 < 0 || c.indexOf('/', s4 + 1) >= 0 || s3 == s2 + 1) {
      return Optional.empty();
    }
    return Optional.of(c.substring(s2 + 1, s3));
  }

  /** The {@code Credential} of the header or of a presigned URL; null when there is none. */
  private static @Nullable String credential(SqsHttpRequest request) {
    String authorization = first(request, "authorization");
    if (authorization == null) {
      return FormParameters.parse(request.rawQuery()).get("X-Amz-Credential");
    }
    // the last "Credential=" that starts a part (after a blank or a comma), up to the next
    int at = -1;
    for (int i = authorization.indexOf("Credential=");
        i >= 0;
        i = authorization.indexOf("Credential=", i + 1)) {
      if (i == 0 || authorization.charAt(i - 1) == ' ' || authorization.charAt(i - 1) == ',') {
        at = i + "Credential=".length();
      }
    }
    if (at < 0) {
      return null;
    }
    int end = at;
    while (end < authorization.length()
        && authorization.charAt(end) != ' '
        && authorization.charAt(end) != ',') {
      end++;
    }
    return authorization.substring(at, end);
  }

  /**
   * The {@code Credential}, {@code SignedHeaders} and {@code Signature} of an {@code Authorization}
   * header, read in one pass (blanks around names and values ignored, the last of a repeated name
   * taken): splitting it into maps of substrings was most of what verifying allocated.
   */
  private static Signed fromHeader(String header) {
    if (!header.startsWith(SigV4.ALGORITHM + " ")) {
      throw incomplete(
          "Authorization header must start with "
              + SigV4.ALGORITHM
              + " (only Signature Version 4 is supported)");
    }
    String credential = null;
    String signedHeaders = null;
    String signature = null;
    int n = header.length();
    int at = SigV4.ALGORITHM.length() + 1;
    while (at < n) {
      int comma = header.indexOf(',', at);
      int end = comma < 0 ? n : comma;
      int eq = header.indexOf('=', at);
      if (eq > 0 && eq < end) {
        int nameStart = skipBlanks(header, at, eq);
        int nameEnd = trimBlanks(header, nameStart, eq);
        int valueStart = skipBlanks(header, eq + 1, end);
        String value = header.substring(valueStart, trimBlanks(header, valueStart, end));
        if (isName(header, nameStart, nameEnd, "Credential")) {
          credential = value;
        } else if (isName(header, nameStart, nameEnd, "SignedHeaders")) {
          signedHeaders = value;
        } else if (isName(header, nameStart, nameEnd, "Signature")) {
          signature = value;
        }
      }
      at = end + 1;
    }
    return signed(
        requirePart(credential, "Credential", header),
        requirePart(signedHeaders, "SignedHeaders", header),
        requirePart(signature, "Signature", header),
        false);
  }

  /** {@code value}, unless it is missing or empty. */
  private static String requirePart(@Nullable String value, String name, String header) {
    if (value == null || value.isEmpty()) {
      throw incomplete(
          "Authorization header requires '"
              + name
              + "' parameter. Authorization="
              + Audit.clip(header));
    }
    return value;
  }

  private static boolean isName(String s, int from, int to, String name) {
    return to - from == name.length() && s.startsWith(name, from);
  }

  /** The first index in {@code from..to} that is not a blank ({@code to} if none). */
  private static int skipBlanks(String s, int from, int to) {
    while (from < to && s.charAt(from) <= ' ') {
      from++;
    }
    return from;
  }

  /** The end of {@code from..to} without trailing blanks. */
  private static int trimBlanks(String s, int from, int to) {
    while (to > from && s.charAt(to - 1) <= ' ') {
      to--;
    }
    return to;
  }

  private static Signed fromQuery(Map<String, String> q) {
    if (!SigV4.ALGORITHM.equals(q.get("X-Amz-Algorithm"))) {
      throw incomplete("X-Amz-Algorithm must be " + SigV4.ALGORITHM);
    }
    for (String required : List.of("X-Amz-Credential", "X-Amz-SignedHeaders")) {
      if (q.get(required) == null || q.get(required).isEmpty()) {
        throw incomplete("a presigned request needs " + required);
      }
    }
    return signed(
        Objects.requireNonNull(q.get("X-Amz-Credential"), "checked above"),
        Objects.requireNonNull(q.get("X-Amz-SignedHeaders"), "checked above"),
        Objects.requireNonNullElse(
            q.get("X-Amz-Signature"), ""), // verify() saw it; "" matches none
        true);
  }

  private static Signed signed(
      String credential, String signedHeaders, String signature, boolean presigned) {
    int slash = credential.indexOf('/');
    String scope = slash < 0 ? "" : credential.substring(slash + 1);
    if (slash <= 0 || slashes(scope) != 3 || !scope.endsWith("/aws4_request")) {
      throw incomplete(
          "Credential must be ACCESS_KEY_ID/YYYYMMDD/REGION/SERVICE/aws4_request, got "
              + Audit.clip(credential));
    }
    return new Signed(credential.substring(0, slash), scope, signedHeaders, signature, presigned);
  }

  private static int slashes(String s) {
    int count = 0;
    for (int i = s.indexOf('/'); i >= 0; i = s.indexOf('/', i + 1)) {
      count++;
    }
    return count;
  }

  /** {@code x-amz-date}, or the {@code Date} header in RFC 1123 form as SigV4 allows. */
  private static String date(SqsHttpRequest request) {
    String amz = first(request, "x-amz-date");
    if (amz != null) {
      return amz;
    }
    String date = first(request, "date");
    if (date != null) {
      try {
        return AMZ_DATE.format(
            ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME)
                .withZoneSameInstant(ZoneOffset.UTC));
      } catch (DateTimeParseException e) {
        throw incomplete("Date header must be an RFC 1123 date, got " + date);
      }
    }
    throw incomplete(
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  }

  /**
   * Refuses a signature that does not cover {@code host}, or, when the request has one (the SQS
   * JSON protocol), {@code x-amz-target}, as AWS does: a signature over neither would let whoever
   * sees the request send it to another host, or change the action it names ({@code
   * GetQueueAttributes} into {@code PurgeQueue}), and still verify. Every AWS SDK and the CLI sign
   * both.
   */
  private static void checkSignedHeaders(SqsHttpRequest request, String signedHeaders) {
    String missing =
        !signs(signedHeaders, "host")
            ? "host"
            : request.headers().containsKey("x-amz-target") && !signs(signedHeaders, "x-amz-target")
                ? "x-amz-target"
                : null;
    if (missing != null) {
      throw new SigV4Error(
          "SignatureDoesNotMatch",
          403,
          "The request signature does not cover the header '"
              + missing
              + "': SignedHeaders must include host, and x-amz-target when the request has one;"
              + " got SignedHeaders="
              + Audit.clip(signedHeaders));
    }
  }

  /**
   * Whether {@code name} (lower case) is one of the {@code ;}-separated names of {@code
   * signedHeaders}, in any case (the canonical request lower-cases them).
   */
  static boolean signs(String signedHeaders, String name) {
    int n = signedHeaders.length();
    for (int at = 0; at <= n; ) {
      int end = signedHeaders.indexOf(';', at);
      if (end < 0) {
        end = n;
      }
      if (end - at == name.length() && signedHeaders.regionMatches(true, at, name, 0, end - at)) {
        return true;
      }
      at = end + 1;
    }
    return false;
  }

  private void checkScope(String scope, String amzDate) {
    // date/region/service/aws4_request, four parts (signed() checked)
    int dateEnd = scope.indexOf('/');
    int regionEnd = scope.indexOf('/', dateEnd + 1);
    String service = scope.substring(regionEnd + 1, scope.indexOf('/', regionEnd + 1));
    if (amzDate.length() < 8 || dateEnd != 8 || !amzDate.regionMatches(0, scope, 0, 8)) {
      throw new SigV4Error(
          "SignatureDoesNotMatch",
          403,
          "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from"
              + " HTTP: '"
              + scope.substring(0, dateEnd)
              + "' != '"
              + amzDate
              + "'");
    }
    if (!services.contains(service)) {
      throw new SigV4Error(
          "SignatureDoesNotMatch",
          403,
          "Credential should be scoped to correct service: '"
              + String.join("' or '", new java.util.TreeSet<>(services))
              + "', got '"
              + service
              + "'");
    }
  }

  private void checkTime(String amzDate, @Nullable String expires) {
    long nowMillis = clock.millis();
    if (expires == null) {
      // the usual case, without the Instant and Duration objects of the general one below
      long signedMillis = signedAtSecond(amzDate) * 1000;
      if (Math.abs(nowMillis - signedMillis) > MAX_SKEW.toMillis()) {
        throw new SigV4Error(
            "RequestExpired",
            400,
            "Signature expired: "
                + amzDate
                + " is more than 15 minutes from the server's time "
                + AMZ_DATE.format(Instant.ofEpochMilli(nowMillis).atOffset(ZoneOffset.UTC)));
      }
      return;
    }
    Instant signedAt = parseAmzDate(amzDate);
    Instant now = Instant.ofEpochMilli(nowMillis);
    long seconds;
    try {
      seconds = Long.parseLong(expires);
    } catch (NumberFormatException e) {
      throw incomplete("X-Amz-Expires must be a number of seconds, got " + expires);
    }
    if (seconds < 1 || seconds > MAX_PRESIGNED_EXPIRES) {
      throw incomplete(
          "X-Amz-Expires must be 1.."
              + MAX_PRESIGNED_EXPIRES
              + " seconds (at most a week), got "
              + expires);
    }
    if (now.isAfter(signedAt.plusSeconds(seconds)) || now.plus(MAX_SKEW).isBefore(signedAt)) {
      throw new SigV4Error(
          "RequestExpired",
          400,
          "Request has expired: signed at " + amzDate + " for " + seconds + " seconds");
    }
  }

  /** {@link #parseAmzDate} in epoch seconds, the last date read kept. */
  private long signedAtSecond(String amzDate) {
    SignedAt last = lastDate;
    if (last != null && last.amzDate().equals(amzDate)) {
      return last.epochSecond();
    }
    long second = parseAmzDate(amzDate).getEpochSecond();
    lastDate = new SignedAt(amzDate, second);
    return second;
  }

  /**
   * {@code YYYYMMDD'T'HHMMSS'Z'} as an instant, read by hand: {@link DateTimeFormatter#parse} cost
   * a verified request more than the rest of its date checks (docs/benchmarks.md, "Cost of
   * authentication").
   */
  static Instant parseAmzDate(String amzDate) {
    if (amzDate.length() == 16
        && amzDate.charAt(8) == 'T'
        && amzDate.charAt(15) == 'Z'
        && digits(amzDate, 0, 8)
        && digits(amzDate, 9, 15)) {
      try {
        return LocalDateTime.of(
                number(amzDate, 0, 4),
                number(amzDate, 4, 6),
                number(amzDate, 6, 8),
                number(amzDate, 9, 11),
                number(amzDate, 11, 13),
                number(amzDate, 13, 15))
            .toInstant(ZoneOffset.UTC);
      } catch (java.time.DateTimeException e) {
        // a field out of range: refused below
      }
    }
    throw incomplete("X-Amz-Date must be YYYYMMDD'T'HHMMSS'Z', got " + amzDate);
  }

  private static boolean digits(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static int number(String s, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      n = n * 10 + (s.charAt(i) - '0');
    }
    return n;
  }

  private static SigV4Error incomplete(String message) {
    return new SigV4Error("IncompleteSignature", 400, message);
  }
}
