package io.switchboard.client;

import io.switchboard.client.wire.Json.Required;
import io.switchboard.client.wire.NativeWire;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The access-key API's bodies ({@code /v1/keys}), shared by the client and the server as {@link
 * NativeWire}'s are. {@code null} is an absent field.
 */
public final class KeyWire {

  private KeyWire() {}

  /** Actions on a resource pattern ({@code orders-*}, a routing workspace, or {@code *}). */
  public record Grant(@Required List<String> actions, @Required String resource) {
    public Grant {
      actions = List.copyOf(actions);
    }
  }

  /**
   * {@code POST /v1/keys}: a new key with an optional name and its grants; {@code agent} for a
   * routing agent's key, {@code account} (12 digits) for a key that SQS queue policies see as
   * another AWS account's.
   */
  public record CreateKey(
      @Nullable String name,
      @Required List<Grant> grants,
      @Nullable String agent,
      @Nullable String account) {
    public CreateKey {
      grants = List.copyOf(grants);
    }

    /** A key of the server's own account. */
    public CreateKey(@Nullable String name, List<Grant> grants, @Nullable String agent) {
      this(name, grants, agent, null);
    }
  }

  /**
   * A key as the API shows it: {@code secretAccessKey} only in the answer to its creation, never
   * again; {@code createdAt} absent for a key of the server's configuration.
   */
  public record AccessKey(
      @Required String accessKeyId,
      @Nullable String secretAccessKey,
      @Nullable String name,
      @Required List<Grant> grants,
      @Nullable String agent,
      @Nullable String createdAt,
      @Nullable String account) {

    /** A key of the server's own account. */
    public AccessKey(
        String accessKeyId,
        @Nullable String secretAccessKey,
        @Nullable String name,
        List<Grant> grants,
        @Nullable String agent,
        @Nullable String createdAt) {
      this(accessKeyId, secretAccessKey, name, grants, agent, createdAt, null);
    }

    /** The id, name and grants; never the secret. */
    @Override
    public String toString() {
      return "AccessKey[accessKeyId="
          + accessKeyId
          + ", name="
          + name
          + ", grants="
          + grants
          + (agent == null ? "" : ", agent=" + agent)
          + (account == null ? "" : ", account=" + account)
          + ", createdAt="
          + createdAt
          + (secretAccessKey == null ? "" : ", secret hidden")
          + "]";
    }
  }

  /** {@code GET /v1/keys}. */
  public record KeyList(@Required List<AccessKey> keys) {}
}
