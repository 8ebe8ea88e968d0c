package io.switchboard.server.auth;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Access keys given as {@code ACCESS_KEY_ID:SECRET}, several separated by commas ({@code
 * --access-keys} and its alias {@code --sqs-access-keys}): each is a {@link Principal} allowed
 * everything ({@code admin}). {@link #toString()} shows the key ids only, so a logged configuration
 * never shows a secret.
 */
public final class AccessKeys {

  private static final AccessKeys NONE = new AccessKeys(Map.of());

  private final Map<String, String> secrets;

  private AccessKeys(Map<String, String> secrets) {
    this.secrets = Map.copyOf(secrets);
  }

  /** No keys. */
  public static AccessKeys none() {
    return NONE;
  }

  /** Key id → secret access key. */
  public static AccessKeys of(Map<String, String> secrets) {
    return new AccessKeys(secrets);
  }

  /**
   * Reads {@code ID:SECRET[,ID:SECRET...]}; blank means none.
   *
   * @throws IllegalArgumentException naming the entry's position (never its secret) when an entry
   *     lacks its id, its secret or the colon, or an id repeats
   */
  public static AccessKeys parse(String spec) {
    Map<String, String> out = new LinkedHashMap<>();
    if (spec == null || spec.isBlank()) {
      return NONE;
    }
    String[] entries = spec.split(",");
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i].trim();
      int colon = entry.indexOf(':');
      if (colon <= 0 || colon == entry.length() - 1) {
        throw new IllegalArgumentException(
            "entry " + (i + 1) + " must be ACCESS_KEY_ID:SECRET_ACCESS_KEY");
      }
      String id = entry.substring(0, colon).trim();
      Principal.admin(id, entry.substring(colon + 1).trim()); // checks the id's form
      if (out.put(id, entry.substring(colon + 1).trim()) != null) {
        throw new IllegalArgumentException("access key id " + id + " is given twice");
      }
    }
    return new AccessKeys(out);
  }

  /** True when there is at least one key. */
  public boolean enabled() {
    return !secrets.isEmpty();
  }

  /** The key ids, for logs. */
  public Set<String> ids() {
    return secrets.keySet();
  }

  /** The secret of key {@code id}, if there is one. */
  public Optional<String> secret(String id) {
    return Optional.ofNullable(secrets.get(id));
  }

  /** Each key as a principal allowed everything. */
  public List<Principal> principals() {
    return secrets.entrySet().stream().map(e -> Principal.admin(e.getKey(), e.getValue())).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AccessKeys k && k.secrets.equals(secrets);
  }

  @Override
  public int hashCode() {
    return secrets.hashCode();
  }

  @Override
  public String toString() {
    return "AccessKeys" + new java.util.TreeSet<>(secrets.keySet());
  }
}
