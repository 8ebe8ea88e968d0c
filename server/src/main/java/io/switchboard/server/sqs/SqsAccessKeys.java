package io.switchboard.server.sqs;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The access keys SQS requests must be signed with (SigV4), or none: then signatures are not
 * checked at all, which is the default for local use. Written {@code ACCESS_KEY_ID:SECRET}, several
 * separated by commas. {@link #toString()} shows the key ids only, so a logged configuration never
 * shows a secret.
 */
public final class SqsAccessKeys {

  private static final SqsAccessKeys NONE = new SqsAccessKeys(Map.of());

  private final Map<String, String> secrets;

  private SqsAccessKeys(Map<String, String> secrets) {
    this.secrets = Map.copyOf(secrets);
  }

  /** No keys: signatures are not verified. */
  public static SqsAccessKeys none() {
    return NONE;
  }

  /** Key id → secret access key. */
  public static SqsAccessKeys of(Map<String, String> secrets) {
    return new SqsAccessKeys(secrets);
  }

  /**
   * Reads {@code ID:SECRET[,ID:SECRET...]}; blank means none.
   *
   * @throws IllegalArgumentException naming the entry's position (never its secret) when an entry
   *     lacks its id, its secret or the colon, or an id repeats
   */
  public static SqsAccessKeys parse(String spec) {
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
      if (out.put(id, entry.substring(colon + 1).trim()) != null) {
        throw new IllegalArgumentException("access key id " + id + " is given twice");
      }
    }
    return new SqsAccessKeys(out);
  }

  /** True when requests must be signed. */
  public boolean enabled() {
    return !secrets.isEmpty();
  }

  /** The key ids, for logs. */
  public Set<String> ids() {
    return secrets.keySet();
  }

  Optional<String> secret(String id) {
    return Optional.ofNullable(secrets.get(id));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SqsAccessKeys k && k.secrets.equals(secrets);
  }

  @Override
  public int hashCode() {
    return secrets.hashCode();
  }

  @Override
  public String toString() {
    return "SqsAccessKeys" + new java.util.TreeSet<>(secrets.keySet());
  }
}
