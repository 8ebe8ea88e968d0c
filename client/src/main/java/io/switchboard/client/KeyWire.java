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

  /** {@code POST /v1/keys}: a new key with an optional name and its grants. */
  public record CreateKey(
      @Nullable String name, @Required List<Grant> grants, @Nullable String agent) {
    public CreateKey {
      grants = List.copyOf(grants);
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
      @Nullable String createdAt) {

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
          + ", createdAt="
          + createdAt
          + (secretAccessKey == null ? "" : ", secret hidden")
          + "]";
    }
  }

  /** {@code GET /v1/keys}. */
  public record KeyList(@Required List<AccessKey> keys) {}
}
