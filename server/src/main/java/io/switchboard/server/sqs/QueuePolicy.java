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
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A queue's SQS policy as Switchboard enforces it ({@code docs/security.md}, "SQS queue policies").
 * Only what can be enforced for the principals this server knows is accepted; anything else is
 * refused when the policy is set ({@link #check}), never stored and ignored.
 *
 * <p>A statement has {@code Effect} ({@code Allow} or {@code Deny}), {@code Principal}, {@code
 * Action} and {@code Resource}, and optionally {@code Sid}; {@code Condition}, {@code NotAction},
 * {@code NotPrincipal}, {@code NotResource} and any other member are refused. A principal is {@code
 * *}, this server's account ({@code 000000000000} or {@code arn:aws:iam::000000000000:root}: every
 * key of this server), or one access key ({@code arn:aws:iam::000000000000:user/<key id or name>},
 * or the bare key id). An action is {@code *} or {@code sqs:<name>}, where the name may hold {@code
 * *} and matches the SQS action names case-insensitively (the batch actions are their single forms,
 * as in AWS). A resource is {@code *} or the queue's ARN.
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

  /** A statement: its effect, who it names, which SQS actions (globs, lower case). */
  record Statement(boolean allow, String sid, List<Who> principals, List<Pattern> actions) {

    boolean matches(Optional<Principal> caller, String policyAction) {
      return principals.stream().anyMatch(w -> w.matches(caller))
          && actions.stream().anyMatch(a -> a.matcher(policyAction).matches());
    }
  }

  /**
   * A principal a statement names: everyone ({@code *} or this account) or one key, by id or name.
   */
  record Who(Optional<String> key) {
    boolean matches(Optional<Principal> caller) {
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
      Set.of("Sid", "Effect", "Principal", "Action", "Resource");

  /** The SQS action names a policy may name (the batch actions are their single forms). */
  static final Set<String> ACTIONS =
      new TreeSet<>(
          java.util.Arrays.stream(SqsOperation.values())
              .map(o -> policyAction(o.action()))
              .distinct()
              .toList());

  private final List<Statement> statements;

  private QueuePolicy(List<Statement> statements) {
    this.statements = List.copyOf(statements);
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
                  List.of(new Who(Optional.empty())),
                  List.of(Pattern.compile(".*"))));
        }
      }
    }
    return new QueuePolicy(out);
  }

  /** What this policy says about {@code caller} (empty: keyless mode) doing {@code sqsAction}. */
  Decision decide(Optional<Principal> caller, String sqsAction) {
    String action = policyAction(sqsAction);
    boolean allowed = false;
    for (Statement s : statements) {
      if (s.matches(caller, action)) {
        if (!s.allow()) {
          return Decision.DENY;
        }
        allowed = true;
      }
    }
    return allowed ? Decision.ALLOW : Decision.NONE;
  }

  /** The Sid of the first Deny statement that matches, for the refusal's message. */
  Optional<String> denyingSid(Optional<Principal> caller, String sqsAction) {
    String action = policyAction(sqsAction);
    return statements.stream()
        .filter(s -> !s.allow() && s.matches(caller, action))
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
      who.add(new Who(Optional.empty()));
    } else if (principal.isObject()) {
      principal
          .fieldNames()
          .forEachRemaining(
              f -> {
                if (!f.equals("AWS")) {
                  throw unsupported("Principal type '" + f + "'", "only AWS is supported");
                }
              });
      for (JsonNode p : list(principal.get("AWS"))) {
        who.add(who(p.asText(), accountId, keys));
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
    return new Statement(effect.equals("Allow"), sid, who, actions);
  }

  private static Who who(String p, String accountId, Optional<KeyRing> keys) {
    String rootArn = "arn:aws:iam::" + accountId + ":root";
    String userArn = "arn:aws:iam::" + accountId + ":user/";
    if (p.equals("*") || p.equals(accountId) || p.equals(rootArn)) {
      return new Who(Optional.empty());
    }
    String key;
    if (p.startsWith(userArn)) {
      key = p.substring(userArn.length());
    } else if (p.startsWith("arn:") || ACCOUNT.matcher(p).matches()) {
      throw unsupported(
          "principal '" + p + "'",
          "this server authenticates only its own account "
              + accountId
              + " and its access keys: name *, "
              + accountId
              + ", "
              + rootArn
              + ", "
              + userArn
              + "<key id or name> or a key id");
    } else {
      key = p;
    }
    if (keys.isPresent() && !known(keys.get(), key)) {
      throw unsupported(
          "principal '" + p + "'",
          keys.get().keyless()
              ? "this server has no access keys, so a policy may name only * or the account "
                  + accountId
              : "no access key has the id or name '" + key + "'");
    }
    return new Who(Optional.of(key));
  }

  /** True if {@code key} is the id or the name of one of {@code keys}. */
  static boolean known(KeyRing keys, String key) {
    return keys.find(key).isPresent()
        || keys.list().stream().anyMatch(k -> k.name().filter(key::equals).isPresent());
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
