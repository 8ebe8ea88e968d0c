/*
 * A frozen copy of this class as of commit 1a037eb (before the byte-streaming verifier), kept in
 * the bench module only so that SigV4VerifierBenchmark measures before and after in one run.
 * Not used by the server.
 */
package io.switchboard.server.sqs;

import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.Clock;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.crypto.Mac;

/**
 * Checks the BaselineSigV4 signature of a request against the server's access keys ({@link
 * KeyRing}), in an {@code Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
 * Signature=...} header or a presigned URL's {@code X-Amz-*} query parameters, and refuses as AWS
 * does:
 *
 * <ul>
 *   <li>no signature: {@code MissingAuthenticationToken} (403);
 *   <li>a malformed one, or no date: {@code IncompleteSignature} (400);
 *   <li>an unknown access key id: {@code InvalidClientTokenId} (403);
 *   <li>a date more than 15 minutes from the server's clock, or a presigned URL past its expiry:
 *       {@code RequestExpired} (400);
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
final class BaselineSigV4Verifier {

  static final Duration MAX_SKEW = Duration.ofMinutes(15);

  /** The longest life of a presigned URL that BaselineSigV4 allows: a week, in seconds. */
  static final long MAX_PRESIGNED_EXPIRES = 604_800;

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);

  static final int MAX_KEYS = 1024;

  /** What separates an {@code Authorization} header's parts (compiled once: read per request). */
  private static final Pattern AUTHORIZATION_PARTS = Pattern.compile("[ ,]");

  private final KeyRing keys;
  private final Set<String> services;
  private final Clock clock;
  private final Map<SigningScope, SigningKey> signingKeys = new ConcurrentHashMap<>();

  /**
   * A derived signing key and an HMAC initialised with it, which requests copy rather than
   * initialise their own.
   */
  private record SigningKey(byte[] key, Mac prototype) {}

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
  BaselineSigV4Verifier(KeyRing keys, Set<String> services, Clock clock) {
    this.keys = keys;
    this.services = Set.copyOf(services);
    this.clock = clock;
  }

  /** A verifier of SQS requests: the service must be {@code sqs}. */
  BaselineSigV4Verifier(KeyRing keys, Clock clock) {
    this(keys, Set.of("sqs"), clock);
  }

  /** The parts of a signature, from the header or the query. */
  private record Signed(
      String keyId,
      String scope,
      List<String> signedHeaders,
      String signature,
      boolean presigned) {}

  /** How many signing keys are kept now; for tests. */
  int cachedKeys() {
    return signingKeys.size();
  }

  /**
   * Verifies {@code request}: the key that signed it, or empty when no keys are configured (then
   * nothing is verified).
   *
   * @throws SqsError with the AWS code for what is wrong
   */
  Optional<Principal> verify(SqsHttpRequest request) {
    if (keys.keyless()) {
      return Optional.empty();
    }
    Optional<String> authorization = request.header("authorization");
    // the query is read only for a presigned request: a signed header is the usual case
    Map<String, String> query =
        authorization.isPresent() ? Map.of() : QueryForm.parse(request.rawQuery());
    Signed signed;
    String amzDate;
    if (authorization.isPresent()) {
      signed = fromHeader(authorization.get());
      amzDate = date(request);
    } else if (query.containsKey("X-Amz-Signature")) {
      signed = fromQuery(query);
      amzDate = query.get("X-Amz-Date");
      if (amzDate == null) {
        throw incomplete("a presigned request needs X-Amz-Date");
      }
    } else {
      throw SqsError.auth(
          "MissingAuthenticationToken", 403, "Request is missing Authentication Token");
    }
    Principal principal =
        keys.find(signed.keyId())
            .orElseThrow(
                () ->
                    SqsError.auth(
                        "InvalidClientTokenId",
                        403,
                        "The security token included in the request is invalid: unknown access key"
                            + " id "
                            + signed.keyId()));
    String secret = principal.secret();
    checkScope(signed.scope(), amzDate);
    checkTime(amzDate, signed.presigned() ? query.get("X-Amz-Expires") : null);
    SigningScope scope = new SigningScope(secret, signed.scope());
    SigningKey cached = signingKeys.get(scope);
    Mac mac;
    byte[] key;
    if (cached != null) {
      key = cached.key();
      mac = BaselineSigV4.copy(cached.prototype(), key);
    } else {
      key = BaselineSigV4.signingKey(secret, signed.scope());
      mac = BaselineSigV4.hmacWith(key);
    }
    byte[] expected =
        mac.doFinal(
            BaselineSigV4.stringToSignBytes(amzDate, signed.scope(), canonical(request, signed)));
    boolean matches = MessageDigest.isEqual(expected, signatureBytes(signed.signature()));
    if (matches && cached == null) {
      if (signingKeys.size() >= MAX_KEYS) {
        signingKeys.clear(); // yesterday's keys, mostly: derive again what is still used
      }
      signingKeys.put(scope, new SigningKey(key, mac)); // doFinal left it as initialised
    }
    if (!matches) {
      throw SqsError.auth(
          "SignatureDoesNotMatch",
          403,
          "The request signature we calculated does not match the signature you provided. Check"
              + " your AWS Secret Access Key and signing method.");
    }
    return Optional.of(principal);
  }

  /** The signature's bytes; none (never equal to an HMAC) when it is not 64 hex digits. */
  private static byte[] signatureBytes(String hex) {
    if (hex == null || hex.length() != 64) {
      return new byte[0];
    }
    try {
      return HexFormat.of().parseHex(hex);
    } catch (IllegalArgumentException e) {
      return new byte[0];
    }
  }

  /** The access key id a request names (header or presigned), whether or not it is valid. */
  static Optional<String> claimedKeyId(SqsHttpRequest request) {
    Optional<String> credential = credential(request);
    return credential.map(c -> c.indexOf('/') > 0 ? c.substring(0, c.indexOf('/')) : c);
  }

  /**
   * The region in a request's credential scope ({@code
   * Credential=KEY/DATE/REGION/sqs/aws4_request}, in the {@code Authorization} header or a
   * presigned URL's {@code X-Amz-Credential}), whether or not the signature is verified; none for
   * an unsigned request or a scope that is not of that form.
   */
  static Optional<String> signedRegion(SqsHttpRequest request) {
    Optional<String> c = credential(request);
    if (c.isEmpty()) {
      return Optional.empty();
    }
    String[] parts = c.get().split("/", -1);
    return parts.length == 5 && !parts[2].isEmpty() ? Optional.of(parts[2]) : Optional.empty();
  }

  private static Optional<String> credential(SqsHttpRequest request) {
    String credential = null;
    Optional<String> authorization = request.header("authorization");
    if (authorization.isPresent()) {
      for (String part : AUTHORIZATION_PARTS.split(authorization.get())) {
        if (part.startsWith("Credential=")) {
          credential = part.substring("Credential=".length());
        }
      }
    } else {
      credential = QueryForm.parse(request.rawQuery()).get("X-Amz-Credential");
    }
    return Optional.ofNullable(credential);
  }

  private static BaselineSigV4.Request canonical(SqsHttpRequest request, Signed signed) {
    return new BaselineSigV4.Request(
        request.method(),
        request.rawPath(),
        request.rawQuery(),
        request.headers(),
        signed.signedHeaders(),
        BaselineSigV4.hex(BaselineSigV4.sha256(request.body())));
  }

  /**
   * The {@code Credential}, {@code SignedHeaders} and {@code Signature} of an {@code Authorization}
   * header, read in one pass (blanks around names and values ignored, the last of a repeated name
   * taken): splitting it into maps of substrings was most of what verifying allocated.
   */
  private static Signed fromHeader(String header) {
    if (!header.startsWith(BaselineSigV4.ALGORITHM + " ")) {
      throw incomplete(
          "Authorization header must start with "
              + BaselineSigV4.ALGORITHM
              + " (only Signature Version 4 is supported)");
    }
    String credential = null;
    String signedHeaders = null;
    String signature = null;
    int n = header.length();
    int at = BaselineSigV4.ALGORITHM.length() + 1;
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
    requirePart(credential, "Credential", header);
    requirePart(signedHeaders, "SignedHeaders", header);
    requirePart(signature, "Signature", header);
    return signed(credential, signedHeaders, signature, false);
  }

  private static void requirePart(String value, String name, String header) {
    if (value == null || value.isEmpty()) {
      throw incomplete(
          "Authorization header requires '" + name + "' parameter. Authorization=" + header);
    }
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
    if (!BaselineSigV4.ALGORITHM.equals(q.get("X-Amz-Algorithm"))) {
      throw incomplete("X-Amz-Algorithm must be " + BaselineSigV4.ALGORITHM);
    }
    for (String required : List.of("X-Amz-Credential", "X-Amz-SignedHeaders")) {
      if (q.get(required) == null || q.get(required).isEmpty()) {
        throw incomplete("a presigned request needs " + required);
      }
    }
    return signed(
        q.get("X-Amz-Credential"), q.get("X-Amz-SignedHeaders"), q.get("X-Amz-Signature"), true);
  }

  private static Signed signed(
      String credential, String signedHeaders, String signature, boolean presigned) {
    int slash = credential.indexOf('/');
    String scope = slash < 0 ? "" : credential.substring(slash + 1);
    if (slash <= 0 || slashes(scope) != 3 || !scope.endsWith("/aws4_request")) {
      throw incomplete(
          "Credential must be ACCESS_KEY_ID/YYYYMMDD/REGION/SERVICE/aws4_request, got "
              + credential);
    }
    List<String> headers = Arrays.asList(signedHeaders.toLowerCase(Locale.ROOT).split(";"));
    return new Signed(credential.substring(0, slash), scope, headers, signature, presigned);
  }

  private static int slashes(String s) {
    int count = 0;
    for (int i = s.indexOf('/'); i >= 0; i = s.indexOf('/', i + 1)) {
      count++;
    }
    return count;
  }

  /** {@code x-amz-date}, or the {@code Date} header in RFC 1123 form as BaselineSigV4 allows. */
  private static String date(SqsHttpRequest request) {
    Optional<String> amz = request.header("x-amz-date");
    if (amz.isPresent()) {
      return amz.get();
    }
    Optional<String> date = request.header("date");
    if (date.isPresent()) {
      try {
        return AMZ_DATE.format(
            ZonedDateTime.parse(date.get(), DateTimeFormatter.RFC_1123_DATE_TIME)
                .withZoneSameInstant(ZoneOffset.UTC));
      } catch (DateTimeParseException e) {
        throw incomplete("Date header must be an RFC 1123 date, got " + date.get());
      }
    }
    throw incomplete(
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  }

  private void checkScope(String scope, String amzDate) {
    // date/region/service/aws4_request, four parts (signed() checked)
    int dateEnd = scope.indexOf('/');
    int regionEnd = scope.indexOf('/', dateEnd + 1);
    String service = scope.substring(regionEnd + 1, scope.indexOf('/', regionEnd + 1));
    if (amzDate.length() < 8 || dateEnd != 8 || !amzDate.regionMatches(0, scope, 0, 8)) {
      throw SqsError.auth(
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
      throw SqsError.auth(
          "SignatureDoesNotMatch",
          403,
          "Credential should be scoped to correct service: '"
              + String.join("' or '", new java.util.TreeSet<>(services))
              + "', got '"
              + service
              + "'");
    }
  }

  private void checkTime(String amzDate, String expires) {
    Instant signedAt = parseAmzDate(amzDate);
    Instant now = Instant.ofEpochMilli(clock.millis());
    if (expires != null) {
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
        throw SqsError.auth(
            "RequestExpired",
            400,
            "Request has expired: signed at " + amzDate + " for " + seconds + " seconds");
      }
      return;
    }
    if (Duration.between(signedAt, now).abs().compareTo(MAX_SKEW) > 0) {
      throw SqsError.auth(
          "RequestExpired",
          400,
          "Signature expired: "
              + amzDate
              + " is more than 15 minutes from the server's time "
              + AMZ_DATE.format(now.atOffset(ZoneOffset.UTC)));
    }
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

  private static SqsError incomplete(String message) {
    return SqsError.auth("IncompleteSignature", 400, message);
  }
}
