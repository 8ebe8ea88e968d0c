package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.KeyRing;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * AddPermission and RemovePermission, and the {@code Policy} queue attribute they write, as SQS
 * does: AddPermission adds a statement whose {@code Sid} is the label to the queue's policy
 * (creating {@code {"Version": "2008-10-17", "Id": "<arn>/SQSDefaultPolicy", ...}} if there is
 * none), RemovePermission removes it. The policy is kept in the queue's metadata ({@code
 * sqs.Policy}), so it survives a restart of a durable server.
 *
 * <p>The policy is enforced ({@link QueuePolicy}, {@link SqsEndpoint}): an {@code AWSAccountIds}
 * entry is an account id, written {@code arn:aws:iam::<account>:root} as SQS does (the keys of that
 * account: every key not bound to another account for this server's own, the keys bound to it for
 * another), or the id of an access key the server knows ({@code arn:aws:iam::<its
 * account>:user/<key id>}: that key).
 */
final class QueuePermissions {

  static final String POLICY = "sqs.Policy";
  static final int MAX_STATEMENTS = 20;
  static final int MAX_ACTIONS = 7;

  private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9_-]{1,80}");
  private static final Pattern ACCOUNT = Pattern.compile("[0-9]{12}");

  /** What an {@code AddPermission} may name: {@code *} or an action AWS lets it grant. */
  private static final Set<String> ACTIONS =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of("*"),
              java.util.Arrays.stream(SqsOperation.values())
                  .filter(o -> o.has(SqsOperation.Flag.GRANTABLE))
                  .map(SqsOperation::action))
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private QueuePermissions() {}

  static ObjectNode add(QueueEngine engine, SqsRequest r) {
    String queue = SqsApi.queue(r);
    String arn = r.address().arn(queue);
    String label = label(r);
    List<String> actions = r.strings("Actions");
    if (actions.isEmpty()) {
      throw SqsError.missingParameter("Actions");
    }
    List<String> accounts = r.strings("AWSAccountIds");
    if (accounts.isEmpty()) {
      throw SqsErrorText.PERMISSION_NO_ACCOUNTS.error();
    }
    if (actions.size() > MAX_ACTIONS) {
      throw SqsErrorText.PERMISSION_TOO_MANY_ACTIONS.error(actions.size());
    }
    List<String> principals =
        accounts.stream().map(a -> principal(a, r.address().accountId(), r.state())).toList();
    for (String a : actions) {
      if (!ACTIONS.contains(a)) {
        throw SqsError.invalidParameter(
            "Value "
                + a
                + " for parameter ActionName is invalid. Reason: allowed are * and "
                + ACTIONS.stream().filter(x -> !x.equals("*")).sorted().toList()
                + ".");
      }
    }
    r.state()
        .updateMetadata(
            queue,
            m -> {
              ObjectNode policy = parse(m.get(POLICY)).orElseGet(() -> empty(arn));
              ArrayNode statements = statements(policy);
              for (JsonNode s : statements) {
                if (label.equals(s.path("Sid").asText())) {
                  throw SqsErrorText.PERMISSION_LABEL_EXISTS.error(label);
                }
              }
              if (statements.size() >= MAX_STATEMENTS) {
                throw SqsError.of(
                    "OverLimit",
                    "OverLimit",
                    403,
                    "A queue policy may have at most " + MAX_STATEMENTS + " statements.");
              }
              statements.add(statement(arn, label, principals, actions));
              m.put(POLICY, policy.toString());
              return m;
            });
    return JsonNodeFactory.instance.objectNode();
  }

  static ObjectNode remove(QueueEngine engine, SqsRequest r) {
    String queue = SqsApi.queue(r);
    String label = label(r);
    r.state()
        .updateMetadata(
            queue,
            m -> {
              ObjectNode policy = parse(m.get(POLICY)).orElse(null);
              boolean removed = false;
              if (policy != null) {
                for (Iterator<JsonNode> it = statements(policy).iterator(); it.hasNext(); ) {
                  if (label.equals(it.next().path("Sid").asText())) {
                    it.remove();
                    removed = true;
                  }
                }
              }
              if (policy == null || !removed) {
                throw SqsErrorText.PERMISSION_LABEL_NOT_FOUND.error(label);
              }
              if (statements(policy).isEmpty()) {
                m.remove(POLICY);
              } else {
                m.put(POLICY, policy.toString());
              }
              return m;
            });
    return JsonNodeFactory.instance.objectNode();
  }

  /**
   * The policy principal of an {@code AWSAccountIds} entry: an account ({@code
   * arn:aws:iam::<account>:root}, its keys) or a key id the server knows ({@code arn:aws:iam::<its
   * account>:user/<key id>}).
   *
   * @throws SqsError {@code InvalidParameterValue} for anything else
   */
  private static String principal(String given, String accountId, SqsState state) {
    if (ACCOUNT.matcher(given).matches()) {
      return "arn:aws:iam::" + given + ":root";
    }
    var key = state.keys().find(given);
    if (key.isPresent()) {
      return "arn:aws:iam::" + key.get().accountOr(accountId) + ":user/" + given;
    }
    throw SqsError.invalidParameter(
        "Value ["
            + given
            + "] for parameter PrincipalId is invalid. Reason: no access key has this id; name a"
            + " 12-digit account id (this server's is "
            + accountId
            + ") or an access key id.");
  }

  /**
   * Checks a {@code Policy} set through SetQueueAttributes or CreateQueue for queue {@code
   * queueArn} ({@link QueuePolicy#check}), or "" to remove it.
   */
  static void set(
      Map<String, String> metadata, String value, String queueArn, String accountId, KeyRing keys) {
    if (value.isEmpty()) {
      metadata.remove(POLICY);
      return;
    }
    QueuePolicy.check(value, queueArn, accountId, keys);
    metadata.put(POLICY, value);
  }

  private static String label(SqsRequest r) {
    String label = r.required("Label");
    if (!LABEL.matcher(label).matches()) {
      throw SqsError.invalidParameter(
          "Value "
              + label
              + " for parameter Label is invalid. Reason: must be 1..80 characters of"
              + " [A-Za-z0-9_-].");
    }
    return label;
  }

  private static java.util.Optional<ObjectNode> parse(@Nullable String policy) {
    if (policy == null) {
      return java.util.Optional.empty();
    }
    try {
      JsonNode node = SqsJson.MAPPER.readTree(policy);
      return node instanceof ObjectNode o ? java.util.Optional.of(o) : java.util.Optional.empty();
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
  }

  private static ObjectNode empty(String queueArn) {
    ObjectNode policy = SqsJson.MAPPER.createObjectNode();
    policy.put("Version", "2008-10-17"); // as SQS writes it
    policy.put("Id", queueArn + "/SQSDefaultPolicy");
    policy.putArray("Statement");
    return policy;
  }

  private static ArrayNode statements(ObjectNode policy) {
    JsonNode s = policy.get("Statement");
    if (s instanceof ArrayNode a) {
      return a;
    }
    ArrayNode a = policy.putArray("Statement");
    if (s instanceof ObjectNode single) {
      a.add(single);
    }
    return a;
  }

  private static ObjectNode statement(
      String queueArn, String label, List<String> principals, List<String> actions) {
    ObjectNode s = SqsJson.MAPPER.createObjectNode();
    s.put("Sid", label);
    s.put("Effect", "Allow");
    ObjectNode principal = s.putObject("Principal");
    oneOrMany(principal, "AWS", principals);
    oneOrMany(s, "Action", actions.stream().map(a -> "SQS:" + a).toList());
    s.put("Resource", queueArn);
    return s;
  }

  private static void oneOrMany(ObjectNode o, String field, List<String> values) {
    if (values.size() == 1) {
      o.put(field, values.get(0));
    } else {
      ArrayNode a = o.putArray(field);
      values.forEach(a::add);
    }
  }
}
