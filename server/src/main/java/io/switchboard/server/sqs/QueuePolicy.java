package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A queue's SQS policy as Switchboard enforces it ({@code docs/security.md}, "SQS queue policies").
 * Only what can be enforced for the principals this server knows is accepted; anything else is
 * refused when the policy is set ({@link #check}), never stored and ignored.
 *
 * <p>A statement has {@code Effect} ({@code Allow} or {@code Deny}), {@code Principal}, {@code
 * Action} and {@code Resource}, and optionally {@code Sid} and {@code Condition} ({@link
 * PolicyCondition}); {@code NotAction}, {@code NotPrincipal}, {@code NotResource} and any other
 * member are refused. A principal is {@code *}, this server's account ({@code 000000000000} or
 * {@code arn:aws:iam::000000000000:root}: every key of this server), one access key ({@code
 * arn:aws:iam::000000000000:user/<key id or name>}, or the bare key id), or an AWS service ({@code
 * {"Service": "sns.amazonaws.com"}}), which matches no caller here. An action is {@code *} or
 * {@code sqs:<name>}, where the name may hold {@code *} and matches the SQS action names
 * case-insensitively (the batch actions are their single forms, as in AWS). A resource is {@code *}
 * or the queue's ARN.
 *
 * <p>Evaluation ({@link #decide}): a {@code Deny} statement that matches refuses; else an {@code
 * Allow} that matches allows; else the policy says nothing and the key's grants decide.
 */
final class QueuePolicy {

  /** What a policy says about one request. */
  enum Decision {
    DENY,
    ALLOW,
    NONE
  }

  /**
   * A statement: its effect, who it names, which SQS actions (globs, lower case), and the condition
   * a request must meet besides.
   */
  record Statement(
      boolean allow,
      String sid,
      List<Who> principals,
      List<Pattern> actions,
      PolicyCondition condition) {

    boolean matches(
        Optional<Principal> caller, String home, String policyAction, PolicyCondition.Facts facts) {
      return principals.stream().anyMatch(w -> w.matches(caller, home))
          && actions.stream().anyMatch(a -> a.matcher(policyAction).matches())
          && condition.holds(facts);
    }
  }

  /**
   * A principal a statement names: everyone ({@code *}); the keys of one account ({@code account}
   * set, {@code key} empty); one key, by id or name, of the account given if one is ({@code
   * arn:aws:iam::<account>:user/<key>}); or an AWS service ({@code {"Service": ...}}), which no
   * caller of this server is. A key not bound to an account is of the server's ({@code home}); the
   * anonymous caller of a keyless server is the server's account.
   */
  record Who(Optional<String> key, Optional<String> account, boolean service) {

    static final Who EVERYONE = new Who(Optional.empty(), Optional.empty(), false);
    static final Who SERVICE = new Who(Optional.empty(), Optional.empty(), true);

    static Who key(String key, Optional<String> account) {
      return new Who(Optional.of(key), account, false);
    }

    static Who account(String account) {
      return new Who(Optional.empty(), Optional.of(account), false);
    }

    boolean matches(Optional<Principal> caller, String home) {
      if (service) {
        return false;
      }
      if (account.isPresent()
          && !account.get().equals(caller.map(p -> p.accountOr(home)).orElse(home))) {
        return false;
      }
      if (key.isEmpty()) {
        return true;
      }
      return caller.isPresent()
          && (caller.get().keyId().equals(key.get())
              || caller.get().name().filter(key.get()::equals).isPresent());
    }
  }

  private static final Pattern ACCOUNT = Pattern.compile("[0-9]{12}");
  private static final Set<String> TOP = Set.of("Version", "Id", "Statement");
  private static final Set<String> MEMBERS =
      Set.of("Sid", "Effect", "Principal", "Action", "Resource", "Condition");

  /** The SQS action names a policy may name (the batch actions are their single forms). */
  static final Set<String> ACTIONS =
      new TreeSet<>(
          java.util.Arrays.stream(SqsOperation.values())
              .map(o -> policyAction(o.action()))
              .distinct()
              .toList());

  private final List<Statement> statements;
  private final String home;

  private QueuePolicy(List<Statement> statements, String home) {
    this.statements = List.copyOf(statements);
    this.home = home;
  }

  /**
   * The action name a policy matches a request's SQS action against, in lower case: {@code
   * SendMessageBatch} is {@code sendmessage}, as in AWS.
   */
  static String policyAction(String sqsAction) {
    String a =
        sqsAction.endsWith("Batch") ? sqsAction.substring(0, sqsAction.length() - 5) : sqsAction;
    return a.toLowerCase(Locale.ROOT);
  }

  /**
   * Checks {@code document}, the {@code Policy} of queue {@code queueArn}, before it is stored.
   *
   * @param keys the keys a statement may name (keyless: none, so only {@code *} and the account)
   * @throws SqsError {@code InvalidParameterValue} naming what is not supported, and the value
   */
  static void check(String document, String queueArn, String accountId, KeyRing keys) {
    JsonNode root = read(document);
    if (root == null || !root.isObject()) {
      throw SqsError.sender(
          "InvalidAttributeValue",
          "Invalid value for the parameter Policy: must be a JSON policy document.");
    }
    root.fieldNames()
        .forEachRemaining(
            f -> {
              if (!TOP.contains(f)) {
                throw unsupported("member '" + f + "'", "allowed are " + new TreeSet<>(TOP));
              }
            });
    JsonNode version = root.get("Version");
    if (version != null
        && !version.asText().equals("2012-10-17")
        && !version.asText().equals("2008-10-17")) {
      throw unsupported("Version " + version, "allowed are 2012-10-17 and 2008-10-17");
    }
    for (JsonNode s : list(root.get("Statement"))) {
      statement(s, queueArn, accountId, Optional.of(keys));
    }
  }

  /**
   * The stored {@code document} as it is enforced. One stored before policies were enforced may
   * hold what {@link #check} refuses: such a statement, if it is an {@code Allow}, allows nothing;
   * if a {@code Deny}, refuses everyone everything (but what {@link SqsEndpoint} lets an {@code
   * admin} key always do, change the policy).
   */
  static QueuePolicy enforced(String document, String queueArn, String accountId) {
    JsonNode root = read(document);
    List<Statement> out = new ArrayList<>();
    for (JsonNode s : root == null ? List.<JsonNode>of() : list(root.get("Statement"))) {
      try {
        out.add(statement(s, queueArn, accountId, Optional.empty()));
      } catch (SqsError unsupported) {
        if (!s.path("Effect").asText().equals("Allow")) {
          out.add(
              new Statement(
                  false,
                  s.path("Sid").asText(""),
                  List.of(Who.EVERYONE),
                  List.of(Pattern.compile(".*")),
                  PolicyCondition.NONE));
        }
      }
    }
    return new QueuePolicy(out, accountId);
  }

  /**
   * What this policy says about {@code caller} (empty: keyless mode) doing {@code sqsAction} in a
   * request that carries {@code facts} (for the statements' conditions).
   */
  Decision decide(Optional<Principal> caller, String sqsAction, PolicyCondition.Facts facts) {
    String action = policyAction(sqsAction);
    boolean allowed = false;
    for (Statement s : statements) {
      if (s.matches(caller, home, action, facts)) {
        if (!s.allow()) {
          return Decision.DENY;
        }
        allowed = true;
      }
    }
    return allowed ? Decision.ALLOW : Decision.NONE;
  }

  /** The Sid of the first Deny statement that matches, for the refusal's message. */
  Optional<String> denyingSid(
      Optional<Principal> caller, String sqsAction, PolicyCondition.Facts facts) {
    String action = policyAction(sqsAction);
    return statements.stream()
        .filter(s -> !s.allow() && s.matches(caller, home, action, facts))
        .map(Statement::sid)
        .findFirst();
  }

  private static Statement statement(
      JsonNode s, String queueArn, String accountId, Optional<KeyRing> keys) {
    if (!s.isObject()) {
      throw unsupported("statement " + s, "a statement is a JSON object");
    }
    s.fieldNames()
        .forEachRemaining(
            f -> {
              if (!MEMBERS.contains(f)) {
                throw unsupported(
                    "statement member '" + f + "'",
                    "Switchboard enforces only " + new TreeSet<>(MEMBERS));
              }
            });
    String effect = s.path("Effect").asText("");
    if (!effect.equals("Allow") && !effect.equals("Deny")) {
      throw unsupported("Effect '" + effect + "'", "allowed are Allow and Deny");
    }
    String sid = s.path("Sid").asText("");
    List<Who> who = new ArrayList<>();
    JsonNode principal = s.get("Principal");
    if (principal == null) {
      throw unsupported("statement without Principal", "name * or {\"AWS\": [...]}");
    }
    if (principal.isTextual()) {
      if (!principal.asText().equals("*")) {
        throw unsupported("Principal " + principal, "a string principal must be *");
      }
      who.add(Who.EVERYONE);
    } else if (principal.isObject()) {
      principal
          .fieldNames()
          .forEachRemaining(
              f -> {
                if (!f.equals("AWS") && !f.equals("Service")) {
                  throw unsupported(
                      "Principal type '" + f + "'",
                      "AWS (this server's account and keys) and Service (an AWS service, such as"
                          + " sns.amazonaws.com, which no caller of this server is) are");
                }
              });
      for (JsonNode p : list(principal.get("AWS"))) {
        who.add(who(p.asText(), accountId, keys));
      }
      for (JsonNode p : list(principal.get("Service"))) {
        if (!p.isTextual() || p.asText().isEmpty()) {
          throw unsupported("Service principal " + p, "a service is named by a string");
        }
        who.add(Who.SERVICE);
      }
    } else {
      throw unsupported("Principal " + principal, "name * or {\"AWS\": [...]}");
    }
    if (who.isEmpty()) {
      throw unsupported("Principal " + principal + " naming no one", "name * or {\"AWS\": [...]}");
    }
    List<Pattern> actions = new ArrayList<>();
    for (JsonNode a : list(s.get("Action"))) {
      actions.add(action(a.asText()));
    }
    if (actions.isEmpty()) {
      throw unsupported("statement without Action", "name * or sqs:<action>");
    }
    List<JsonNode> resources = list(s.get("Resource"));
    if (resources.isEmpty()) {
      throw unsupported("statement without Resource", "name * or the queue's ARN " + queueArn);
    }
    for (JsonNode r : resources) {
      if (!r.asText().equals("*") && !r.asText().equals(queueArn)) {
        throw unsupported(
            "Resource '" + r.asText() + "'", "only * or this queue's ARN " + queueArn);
      }
    }
    JsonNode condition = s.get("Condition");
    return new Statement(
        effect.equals("Allow"),
        sid,
        who,
        actions,
        condition == null
            ? PolicyCondition.NONE
            : PolicyCondition.read(condition, QueuePolicy::unsupported));
  }

  private static final Pattern ROOT_ARN = Pattern.compile("arn:aws:iam::([0-9]{12}):root");
  private static final Pattern USER_ARN = Pattern.compile("arn:aws:iam::([0-9]{12}):user/(.+)");

  private static Who who(String p, String accountId, Optional<KeyRing> keys) {
    if (p.equals("*")) {
      return Who.EVERYONE;
    }
    Matcher root = ROOT_ARN.matcher(p);
    if (ACCOUNT.matcher(p).matches() || root.matches()) {
      return Who.account(root.matches() ? root.group(1) : p);
    }
    Matcher user = USER_ARN.matcher(p);
    Optional<String> account = Optional.empty();
    String key;
    if (user.matches()) {
      account = Optional.of(user.group(1));
      key = user.group(2);
    } else if (p.startsWith("arn:")) {
      throw unsupported(
          "principal '" + p + "'",
          "name *, an account (12 digits or arn:aws:iam::<account>:root), one of its keys"
              + " (arn:aws:iam::<account>:user/<key id or name>) or a key id");
    } else {
      key = p;
    }
    if (keys.isPresent()) {
      Optional<Principal> named = named(keys.get(), key);
      if (named.isEmpty()) {
        throw unsupported(
            "principal '" + p + "'",
            keys.get().keyless()
                ? "this server has no access keys, so a policy may name only * or accounts"
                : "no access key has the id or name '" + key + "'");
      }
      String its = named.get().accountOr(accountId);
      if (account.isPresent() && !account.get().equals(its)) {
        throw unsupported(
            "principal '" + p + "'",
            "access key '" + key + "' belongs to account " + its + ", not " + account.get());
      }
    }
    return Who.key(key, account);
  }

  /** The key of {@code keys} whose id or name is {@code key}. */
  static Optional<Principal> named(KeyRing keys, String key) {
    Optional<Principal> byId = keys.find(key);
    return byId.isPresent()
        ? byId
        : keys.list().stream().filter(k -> k.name().filter(key::equals).isPresent()).findFirst();
  }

  private static Pattern action(String a) {
    if (a.equals("*")) {
      return Pattern.compile(".*");
    }
    String lower = a.toLowerCase(Locale.ROOT);
    if (!lower.startsWith("sqs:") || lower.length() == 4) {
      throw unsupported("Action '" + a + "'", "name * or sqs:<action>, such as sqs:SendMessage");
    }
    StringBuilder regex = new StringBuilder();
    for (String part : lower.substring(4).split("\\*", -1)) {
      if (!regex.isEmpty()) {
        regex.append(".*");
      }
      regex.append(Pattern.quote(part));
    }
    Pattern p = Pattern.compile(regex.toString());
    if (ACTIONS.stream().noneMatch(x -> p.matcher(x).matches())) {
      throw unsupported(
          "Action '" + a + "'",
          "it matches no SQS action this server serves (" + String.join(", ", ACTIONS) + ")");
    }
    return p;
  }

  private static List<JsonNode> list(JsonNode node) {
    List<JsonNode> out = new ArrayList<>();
    if (node == null || node.isNull()) {
      return out;
    }
    if (node.isArray()) {
      node.forEach(out::add);
    } else {
      out.add(node);
    }
    return out;
  }

  private static @Nullable JsonNode read(String document) {
    try {
      return SqsJson.MAPPER.readTree(document);
    } catch (IOException e) {
      return null;
    }
  }

  private static SqsError unsupported(String what, String allowed) {
    return SqsError.invalidParameter(
        "Value for parameter Policy is invalid. Reason: "
            + what
            + " is not supported: "
            + allowed
            + ". Switchboard refuses what it cannot enforce rather than store and ignore it.");
  }
}
