package io.switchboard.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who a request comes from: an access key (id and secret, the AWS shape, so every AWS SDK can sign
 * with it), an optional name, its grants, and, for an agent's key, the routing agent it may act as.
 * {@link #toString()} never shows the secret.
 *
 * <p>What a principal may do ({@link #may}): a grant of {@code admin} allows every action on the
 * resources it matches; {@code routing:supervisor} allows {@code routing:agent} for every agent of
 * the workspaces it matches; {@code routing:agent} allows it only as the key's own {@link #agent};
 * any other action needs a grant naming it.
 *
 * @param keyId the access key id, such as {@code AKIAORDERS}: letters, digits, {@code _ . -}
 * @param secret the secret access key; compare with {@link #secretMatches}
 * @param name what the key is for, for people; may be empty
 * @param grants what it may do
 * @param agent the agent id a key with {@code routing:agent} acts as; required for such a key
 * @param account the 12-digit AWS account id the key belongs to as a principal of SQS queue
 *     policies; empty: the server's own account ({@code sqs-account-id})
 */
public record Principal(
    String keyId,
    String secret,
    Optional<String> name,
    List<Grant> grants,
    Optional<String> agent,
    Optional<String> account) {

  public Principal {
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(account, "account");
    if (account.isPresent() && !validAccount(account.get())) {
      throw new IllegalArgumentException(
          "account must be the 12-digit AWS account id the key belongs to in SQS queue policies,"
              + " got '"
              + account.get()
              + "'");
    }
    if (!validKeyId(keyId)) {
      throw new IllegalArgumentException(
          "an access key id is 1..128 letters, digits, '_', '.' or '-', got '" + keyId + "'");
    }
    if (secret.isEmpty()) {
      throw new IllegalArgumentException("access key " + keyId + " has an empty secret");
    }
    grants = List.copyOf(grants);
    if (agent.isEmpty()
        && grants.stream().anyMatch(g -> g.actions().contains(Action.ROUTING_AGENT))) {
      throw new IllegalArgumentException(
          "access key "
              + keyId
              + " grants routing:agent but names no agent: give the agent id it acts as");
    }
  }

  /** A key of the server's own account. */
  public Principal(
      String keyId,
      String secret,
      Optional<String> name,
      List<Grant> grants,
      Optional<String> agent) {
    this(keyId, secret, name, grants, agent, Optional.empty());
  }

  /** Whether {@code account} has the form of an AWS account id: 12 digits. */
  public static boolean validAccount(String account) {
    return account.length() == 12 && account.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** The account this key belongs to: its own, else {@code serverAccount}. */
  public String accountOr(String serverAccount) {
    return account.orElse(serverAccount);
  }

  /** The longest access key id. */
  public static final int MAX_KEY_ID_LENGTH = 128;

  /**
   * Whether {@code keyId} has the form of an access key id: 1..{@value #MAX_KEY_ID_LENGTH} letters,
   * digits, {@code _ . -}. No key has another, so a request naming one names an unknown key.
   */
  public static boolean validKeyId(String keyId) {
    int n = keyId.length();
    if (n == 0 || n > MAX_KEY_ID_LENGTH) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = keyId.charAt(i);
      boolean ok =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '.'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** A key allowed everything ({@code admin} on {@code *}), as {@code --access-keys} makes. */
  public static Principal admin(String keyId, String secret) {
    return new Principal(keyId, secret, Optional.empty(), List.of(Grant.admin()), Optional.empty());
  }

  /** True if {@code given} is the secret; in time independent of where they differ. */
  public boolean secretMatches(String given) {
    return MessageDigest.isEqual(
        secret.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * True if this key may do {@code access}.
   *
   * <p>A resource-less access ({@code metrics:read}, listing queues) needs a grant of the action on
   * any resource; listing answers then show only what the key may see.
   */
  public boolean may(Access access) {
    Action action = access.action();
    for (Grant g : grants) {
      if (!access.resource().map(g::matches).orElse(true)) {
        continue;
      }
      if (g.actions().contains(Action.ADMIN)) {
        return true;
      }
      if (action == Action.ROUTING_AGENT) {
        if (g.actions().contains(Action.ROUTING_SUPERVISOR)) {
          return true;
        }
        if (g.actions().contains(Action.ROUTING_AGENT)
            && (access.agent().isEmpty() || access.agent().equals(agent))) {
          return true;
        }
      } else if (g.actions().contains(action)) {
        return true;
      }
    }
    return false;
  }

  /** {@code AKIAORDERS (orders service)}: the id and the name, for messages and logs. */
  public String describe() {
    return keyId + name.filter(n -> !n.isBlank()).map(n -> " (" + n + ")").orElse("");
  }

  @Override
  public String toString() {
    return "Principal[keyId="
        + keyId
        + ", secret=***, name="
        + name.orElse("")
        + ", grants="
        + grants
        + agent.map(a -> ", agent=" + a).orElse("")
        + account.map(a -> ", account=" + a).orElse("")
        + "]";
  }
}
