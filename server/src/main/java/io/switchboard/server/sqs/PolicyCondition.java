package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The {@code Condition} block of one queue policy statement, evaluated with IAM's rules against
 * what a request here carries ({@code docs/sqs.md}, "Queue policies are enforced").
 *
 * <p>The block is a map of operator to a map of key to one value or a list: every operator and
 * every key in it must hold (AND), and a key holds if any of its values matches (OR), or, for a
 * negated operator ({@code StringNotEquals}, {@code NotIpAddress}...), if none does. A key the
 * request does not carry fails a positive operator and satisfies a negated one; an operator ending
 * in {@code IfExists} holds for an absent key; {@code Null} tests presence itself. {@code
 * ForAnyValue:} and {@code ForAllValues:} are accepted for the single-valued keys here: an absent
 * key fails the first and satisfies the second.
 *
 * <p>Only the keys of {@link #KEYS} are accepted: those a request here can carry, and those only
 * AWS services add ({@code aws:SourceArn}, {@code aws:SourceAccount}...), which no request to this
 * server carries, so they are always absent. A key outside the list is refused when the policy is
 * set rather than evaluated as absent, so that a misspelt key cannot silently turn a {@code Deny}
 * off.
 */
final class PolicyCondition {

  /** What one request tells a condition: key (lower case) to value; an absent key is missing. */
  record Facts(Map<String, String> values) {

    Facts {
      values = Map.copyOf(values);
    }

    /**
     * The facts of one SQS request.
     *
     * @param sourceIp the address the request came from
     * @param secure whether it came over TLS
     * @param now when the request is judged
     * @param principalArn the calling key's ARN ({@code arn:aws:iam::<account>:user/<name or id>}),
     *     empty in keyless mode
     * @param account the caller's account (its key's, else this server's SQS account id)
     * @param userAgent the request's {@code User-Agent}, if it has one
     */
    static Facts of(
        Optional<String> sourceIp,
        boolean secure,
        Instant now,
        Optional<String> principalArn,
        String account,
        Optional<String> userAgent) {
      Map<String, String> v = new LinkedHashMap<>();
      sourceIp.ifPresent(ip -> v.put("aws:sourceip", ip));
      v.put("aws:securetransport", Boolean.toString(secure));
      v.put("aws:currenttime", now.toString());
      v.put("aws:epochtime", Long.toString(now.getEpochSecond()));
      v.put("aws:viaawsservice", "false");
      principalArn.ifPresent(
          arn -> {
            v.put("aws:principalarn", arn);
            v.put("aws:principalaccount", account);
            v.put("aws:principaltype", "User");
          });
      userAgent.ifPresent(ua -> v.put("aws:useragent", ua));
      return new Facts(v);
    }
  }

  /** The keys a request here carries (when it can), by their lower-case name. */
  static final Set<String> CARRIED =
      Set.of(
          "aws:sourceip",
          "aws:securetransport",
          "aws:currenttime",
          "aws:epochtime",
          "aws:viaawsservice",
          "aws:principalarn",
          "aws:principalaccount",
          "aws:principaltype",
          "aws:useragent");

  /** The keys only AWS services add: no request to this server carries them. */
  static final Set<String> NEVER_CARRIED =
      Set.of(
          "aws:sourcearn",
          "aws:sourceaccount",
          "aws:sourceowner",
          "aws:sourceorgid",
          "aws:sourceorgpaths",
          "aws:sourcevpc",
          "aws:sourcevpce",
          "aws:vpcsourceip",
          "aws:principalorgid",
          "aws:principalorgpaths",
          "aws:principalservicename",
          "aws:calledvia",
          "aws:calledviafirst",
          "aws:calledvialast",
          "aws:referer",
          "aws:multifactorauthpresent",
          "aws:multifactorauthage");

  /** Every key a condition may name, in their documented spelling, for error messages. */
  static final List<String> KEYS =
      List.of(
          "aws:SourceIp",
          "aws:SecureTransport",
          "aws:CurrentTime",
          "aws:EpochTime",
          "aws:ViaAWSService",
          "aws:PrincipalArn",
          "aws:PrincipalAccount",
          "aws:PrincipalType",
          "aws:UserAgent",
          "aws:SourceArn",
          "aws:SourceAccount",
          "aws:SourceOwner",
          "aws:SourceOrgID",
          "aws:SourceOrgPaths",
          "aws:SourceVpc",
          "aws:SourceVpce",
          "aws:VpcSourceIp",
          "aws:PrincipalOrgID",
          "aws:PrincipalOrgPaths",
          "aws:PrincipalServiceName",
          "aws:CalledVia",
          "aws:CalledViaFirst",
          "aws:CalledViaLast",
          "aws:Referer",
          "aws:MultiFactorAuthPresent",
          "aws:MultiFactorAuthAge");

  /** How a value matches: whether one policy value accepts the request's value. */
  private interface Match {
    boolean test(String policyValue, String requestValue);
  }

  /** One operator: how it reads its policy values, how it matches, whether it is negated. */
  private record Operator(
      String name, Function<String, String> checkValue, Match match, boolean negated) {}

  private static final Map<String, Operator> OPERATORS = operators();

  /** One test: an operator on one key with its values. */
  private record KeyTest(
      Operator operator, String key, List<String> values, boolean ifExists, String quantifier) {

    boolean holds(Facts facts) {
      if (operator.name.equals("Null")) {
        boolean absent = !facts.values().containsKey(key);
        return values.stream().anyMatch(v -> Boolean.parseBoolean(v) == absent);
      }
      String value = facts.values().get(key);
      if (value == null) {
        return ifExists
            || switch (quantifier) {
              case "ForAllValues" -> true;
              case "ForAnyValue" -> false;
              default -> operator.negated;
            };
      }
      boolean any = values.stream().anyMatch(v -> operator.match.test(v, value));
      return operator.negated ? !any : any;
    }
  }

  private final List<KeyTest> tests;

  private PolicyCondition(List<KeyTest> tests) {
    this.tests = List.copyOf(tests);
  }

  /** A statement without a {@code Condition}: holds for every request. */
  static final PolicyCondition NONE = new PolicyCondition(List.of());

  /** Whether every test of the block holds for {@code facts}. */
  boolean holds(Facts facts) {
    for (KeyTest t : tests) {
      if (!t.holds(facts)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a statement's {@code Condition} member.
   *
   * @throws SqsError {@code InvalidParameterValue} through {@code unsupported} naming what is wrong
   */
  static PolicyCondition read(JsonNode block, Unsupported unsupported) {
    if (!block.isObject() || block.isEmpty()) {
      throw unsupported.of(
          "Condition " + block, "a Condition is an object of operator to {key: value(s)}");
    }
    List<KeyTest> tests = new ArrayList<>();
    var operators = block.fields();
    while (operators.hasNext()) {
      var entry = operators.next();
      String written = entry.getKey();
      String quantifier = "";
      String rest = written;
      int colon = written.indexOf(':');
      if (colon >= 0) {
        quantifier = written.substring(0, colon);
        rest = written.substring(colon + 1);
        if (!quantifier.equals("ForAnyValue") && !quantifier.equals("ForAllValues")) {
          throw unsupported.of(
              "condition operator '" + written + "'",
              "the only qualifiers are ForAnyValue: and ForAllValues:");
        }
      }
      boolean ifExists = rest.endsWith("IfExists");
      String base = ifExists ? rest.substring(0, rest.length() - "IfExists".length()) : rest;
      Operator operator = OPERATORS.get(base.toLowerCase(Locale.ROOT));
      if (operator == null || (ifExists && operator.name.equals("Null"))) {
        throw unsupported.of(
            "condition operator '" + written + "'",
            "the operators are "
                + String.join(", ", operatorNames())
                + ", each but Null also with IfExists");
      }
      JsonNode keys = entry.getValue();
      if (!keys.isObject() || keys.isEmpty()) {
        throw unsupported.of(
            "condition " + written + " " + keys, "an operator maps keys to a value or a list");
      }
      var fields = keys.fields();
      while (fields.hasNext()) {
        var k = fields.next();
        String key = k.getKey().toLowerCase(Locale.ROOT);
        if (!CARRIED.contains(key) && !NEVER_CARRIED.contains(key)) {
          throw unsupported.of(
              "condition key '" + k.getKey() + "'",
              "the keys are " + String.join(", ", KEYS) + " (any case)");
        }
        List<String> values = new ArrayList<>();
        for (JsonNode v : k.getValue().isArray() ? k.getValue() : List.of(k.getValue())) {
          if (!v.isValueNode() || v.isNull()) {
            throw unsupported.of(
                "condition value " + v + " of " + k.getKey(),
                "a value is a string, number or boolean, or a list of them");
          }
          String text = v.asText();
          if (text.contains("${")) {
            throw unsupported.of(
                "condition value '" + text + "' of " + k.getKey(), "policy variables are not");
          }
          String problem = operator.checkValue.apply(text);
          if (!problem.isEmpty()) {
            throw unsupported.of(
                "condition value '" + text + "' of " + written + " " + k.getKey(), problem);
          }
          values.add(text);
        }
        if (values.isEmpty()) {
          throw unsupported.of(
              "condition " + written + " " + k.getKey() + " with no value", "name one or more");
        }
        tests.add(new KeyTest(operator, key, values, ifExists, quantifier));
      }
    }
    return new PolicyCondition(tests);
  }

  /** Makes the policy's refusal of something it cannot read. */
  interface Unsupported {
    SqsError of(String what, String allowed);
  }

  private static List<String> operatorNames() {
    return new ArrayList<>(new TreeSet<>(OPERATORS.values().stream().map(Operator::name).toList()));
  }

  private static Map<String, Operator> operators() {
    Map<String, Operator> ops = new LinkedHashMap<>();
    Function<String, String> any = v -> "";
    Match equals = String::equals;
    Match equalsIgnoreCase = String::equalsIgnoreCase;
    Match like = (p, v) -> glob(p, false).matcher(v).matches();
    add(ops, "StringEquals", any, equals);
    add(ops, "StringNotEquals", any, equals);
    add(ops, "StringEqualsIgnoreCase", any, equalsIgnoreCase);
    add(ops, "StringNotEqualsIgnoreCase", any, equalsIgnoreCase);
    add(ops, "StringLike", any, like);
    add(ops, "StringNotLike", any, like);
    Function<String, String> number =
        v -> number(v).isPresent() ? "" : "a Numeric operator takes a number";
    add(ops, "NumericEquals", number, numeric(c -> c == 0));
    add(ops, "NumericNotEquals", number, numeric(c -> c == 0));
    add(ops, "NumericLessThan", number, numeric(c -> c < 0));
    add(ops, "NumericLessThanEquals", number, numeric(c -> c <= 0));
    add(ops, "NumericGreaterThan", number, numeric(c -> c > 0));
    add(ops, "NumericGreaterThanEquals", number, numeric(c -> c >= 0));
    Function<String, String> date =
        v ->
            instant(v).isPresent()
                ? ""
                : "a Date operator takes an ISO 8601 time (2026-12-01T00:00:00Z) or epoch seconds";
    add(ops, "DateEquals", date, dated(c -> c == 0));
    add(ops, "DateNotEquals", date, dated(c -> c == 0));
    add(ops, "DateLessThan", date, dated(c -> c < 0));
    add(ops, "DateLessThanEquals", date, dated(c -> c <= 0));
    add(ops, "DateGreaterThan", date, dated(c -> c > 0));
    add(ops, "DateGreaterThanEquals", date, dated(c -> c >= 0));
    add(
        ops,
        "Bool",
        v ->
            v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")
                ? ""
                : "Bool takes true or false",
        String::equalsIgnoreCase);
    Function<String, String> cidr =
        v -> Cidr.parse(v).isPresent() ? "" : "an IpAddress operator takes an address or a CIDR";
    Match inRange = (p, v) -> Cidr.parse(p).map(c -> c.contains(v)).orElse(false);
    add(ops, "IpAddress", cidr, inRange);
    add(ops, "NotIpAddress", cidr, inRange);
    Match arnLike = PolicyCondition::arnLike;
    add(ops, "ArnEquals", any, arnLike);
    add(ops, "ArnNotEquals", any, arnLike);
    add(ops, "ArnLike", any, arnLike);
    add(ops, "ArnNotLike", any, arnLike);
    add(
        ops,
        "Null",
        v ->
            v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")
                ? ""
                : "Null takes true (the key is absent) or false (present)",
        (p, v) -> false);
    return Map.copyOf(ops);
  }

  private static void add(
      Map<String, Operator> ops, String name, Function<String, String> check, Match match) {
    boolean negated = name.contains("Not") && !name.equals("Null");
    ops.put(name.toLowerCase(Locale.ROOT), new Operator(name, check, match, negated));
  }

  private interface Comparison {
    boolean holds(int requestComparedToPolicy);
  }

  private static Match numeric(Comparison c) {
    return (p, v) -> {
      Optional<BigDecimal> request = number(v);
      return request.isPresent() && c.holds(request.get().compareTo(number(p).orElseThrow()));
    };
  }

  private static Match dated(Comparison c) {
    return (p, v) -> {
      Optional<Instant> request = instant(v);
      return request.isPresent() && c.holds(request.get().compareTo(instant(p).orElseThrow()));
    };
  }

  private static Optional<BigDecimal> number(String v) {
    try {
      return Optional.of(new BigDecimal(v.trim()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static final Pattern EPOCH = Pattern.compile("-?[0-9]{1,12}");

  private static Optional<Instant> instant(String v) {
    if (EPOCH.matcher(v).matches()) {
      return Optional.of(Instant.ofEpochSecond(Long.parseLong(v)));
    }
    try {
      return Optional.of(OffsetDateTime.parse(v).toInstant());
    } catch (DateTimeParseException e) {
      try {
        return Optional.of(Instant.parse(v));
      } catch (DateTimeParseException e2) {
        return Optional.empty();
      }
    }
  }

  /** IAM's wildcards: {@code *} any run of characters, {@code ?} one character. */
  private static Pattern glob(String p, boolean stopAtColon) {
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (char c : p.toCharArray()) {
      if (c == '*' || c == '?') {
        regex.append(Pattern.quote(literal.toString()));
        literal.setLength(0);
        regex.append(c == '*' ? (stopAtColon ? "[^:]*" : ".*") : (stopAtColon ? "[^:]" : "."));
      } else {
        literal.append(c);
      }
    }
    regex.append(Pattern.quote(literal.toString()));
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  /**
   * {@code ArnLike}/{@code ArnEquals}: the six parts of an ARN ({@code arn:partition:service:
   * region:account:resource}) matched one by one, wildcards within a part; the resource (the sixth)
   * may hold colons.
   */
  private static boolean arnLike(String policyArn, String requestArn) {
    String[] p = policyArn.split(":", 6);
    String[] r = requestArn.split(":", 6);
    if (p.length != 6 || r.length != 6) {
      return false;
    }
    for (int i = 0; i < 6; i++) {
      if (!glob(p[i], i < 5).matcher(r[i]).matches()) {
        return false;
      }
    }
    return true;
  }

  /** An IPv4 or IPv6 address range: an address and a prefix length. */
  record Cidr(byte[] address, int bits) {

    static Optional<Cidr> parse(String text) {
      int slash = text.indexOf('/');
      String host = slash < 0 ? text : text.substring(0, slash);
      if (host.isEmpty() || !host.matches("[0-9A-Fa-f:.]+")) {
        return Optional.empty(); // literals only: never a name lookup
      }
      try {
        byte[] address = InetAddress.getByName(host).getAddress();
        int bits = address.length * 8;
        if (slash >= 0) {
          String b = text.substring(slash + 1);
          if (!b.matches("[0-9]{1,3}") || Integer.parseInt(b) > bits) {
            return Optional.empty();
          }
          bits = Integer.parseInt(b);
        }
        return Optional.of(new Cidr(address, bits));
      } catch (UnknownHostException e) {
        return Optional.empty();
      }
    }

    boolean contains(String ip) {
      Optional<Cidr> other = parse(ip);
      if (other.isEmpty() || other.get().address.length != address.length) {
        return false;
      }
      byte[] a = other.get().address;
      for (int i = 0; i < bits; i++) {
        int mask = 0x80 >>> (i % 8);
        if ((a[i / 8] & mask) != (address[i / 8] & mask)) {
          return false;
        }
      }
      return true;
    }
  }
}
