package io.switchboard.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An access key: its id and its secret, as the server's principals have them (the AWS shape, so an
 * AWS SDK signs with the same pair). The secret never appears in {@link #toString()} or in any
 * error message.
 *
 * <p>From a profile file ({@link #fromProfile}), in the INI shape of AWS's {@code
 * ~/.aws/credentials}:
 *
 * <pre>
 * [default]
 * access_key_id = AKIDEXAMPLE
 * secret_access_key = wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY
 *
 * [ops]
 * access_key_id = ...
 * secret_access_key = ...
 * </pre>
 *
 * ({@code aws_access_key_id} and {@code aws_secret_access_key} are accepted as well; lines starting
 * with {@code #} or {@code ;} are comments). A file that its group or others may read is refused,
 * as ssh refuses a private key: the secrets in it are no longer secret.
 */
public final class Credentials {

  /** Where {@link #fromProfile(String)} looks: {@code ~/.switchboard/credentials}. */
  public static Path defaultProfileFile() {
    return Path.of(System.getProperty("user.home"), ".switchboard", "credentials");
  }

  private final String accessKeyId;
  private final String secretKey;

  private Credentials(String accessKeyId, String secretKey) {
    this.accessKeyId = accessKeyId;
    this.secretKey = secretKey;
  }

  /**
   * An access key id and its secret.
   *
   * @throws IllegalArgumentException when either is empty or holds a control character, or the id
   *     holds {@code :} or {@code /} (which would make it ambiguous in Basic and SigV4)
   */
  public static Credentials of(String accessKeyId, String secretKey) {
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretKey, "secretKey");
    if (accessKeyId.isEmpty() || accessKeyId.length() > 128 || !printable(accessKeyId)) {
      throw new IllegalArgumentException(
          "an access key id must be 1..128 printable characters, got '" + accessKeyId + "'");
    }
    if (accessKeyId.contains(":") || accessKeyId.contains("/") || accessKeyId.contains(" ")) {
      throw new IllegalArgumentException(
          "an access key id must not contain ':', '/' or spaces, got '" + accessKeyId + "'");
    }
    if (secretKey.isEmpty() || secretKey.length() > 1024 || !printable(secretKey)) {
      throw new IllegalArgumentException(
          "the secret key of access key '"
              + accessKeyId
              + "' must be 1..1024 printable characters (not shown)");
    }
    return new Credentials(accessKeyId, secretKey);
  }

  /** Profile {@code profile} of {@link #defaultProfileFile()}. */
  public static Credentials fromProfile(String profile) {
    return fromProfile(defaultProfileFile(), profile);
  }

  /**
   * Profile {@code profile} of the credentials file {@code file}.
   *
   * @throws IllegalArgumentException when the file is missing, readable by its group or others, has
   *     no such profile, or the profile lacks the id or the secret; the message names the file and
   *     the profile, never a secret
   * @throws UncheckedIOException when the file cannot be read
   */
  public static Credentials fromProfile(Path file, String profile) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(profile, "profile");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("credentials file " + file + " does not exist");
    }
    checkPrivate(file);
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read credentials file " + file + ": " + e, e);
    }
    Map<String, Map<String, String>> profiles = parse(lines, file);
    Map<String, String> p = profiles.get(profile);
    if (p == null) {
      throw new IllegalArgumentException(
          "credentials file "
              + file
              + " has no profile ["
              + profile
              + "]; it has "
              + profiles.keySet().stream().sorted().map(n -> "[" + n + "]").toList());
    }
    String id = first(p, "access_key_id", "aws_access_key_id");
    String secret = first(p, "secret_access_key", "aws_secret_access_key");
    if (id == null || secret == null) {
      throw new IllegalArgumentException(
          "profile ["
              + profile
              + "] in "
              + file
              + " needs access_key_id and secret_access_key, missing "
              + (id == null ? "access_key_id" : "secret_access_key"));
    }
    return of(id, secret);
  }

  /** Sections and their {@code key = value} lines; a key outside any section is refused. */
  static Map<String, Map<String, String>> parse(List<String> lines, Path file) {
    Map<String, Map<String, String>> profiles = new HashMap<>();
    Map<String, String> current = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        String name = line.substring(1, line.length() - 1).strip();
        if (name.startsWith("profile ")) { // ~/.aws/config's spelling
          name = name.substring("profile ".length()).strip();
        }
        current = profiles.computeIfAbsent(name, n -> new HashMap<>());
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0 || current == null) {
        throw new IllegalArgumentException(
            "credentials file "
                + file
                + " line "
                + (i + 1)
                + ": expected [profile] or key = value inside a profile");
      }
      current.put(
          line.substring(0, eq).strip().toLowerCase(java.util.Locale.ROOT),
          line.substring(eq + 1).strip());
    }
    return profiles;
  }

  private static @Nullable String first(Map<String, String> p, String... keys) {
    for (String k : keys) {
      String v = p.get(k);
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return null;
  }

  /** Refuses a file that its group or others may read or write (POSIX file systems only). */
  static void checkPrivate(Path file) {
    Set<PosixFilePermission> perms;
    try {
      perms = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return; // no POSIX permissions here (Windows): nothing to check
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the permissions of " + file + ": " + e, e);
    }
    Optional<PosixFilePermission> open =
        perms.stream()
            .filter(
                p ->
                    p != PosixFilePermission.OWNER_READ
                        && p != PosixFilePermission.OWNER_WRITE
                        && p != PosixFilePermission.OWNER_EXECUTE)
            .findFirst();
    if (open.isPresent()) {
      throw new IllegalArgumentException(
          "credentials file "
              + file
              + " may be read or written by its group or others ("
              + java.nio.file.attribute.PosixFilePermissions.toString(perms)
              + "); allowed: the owner only, e.g. chmod 600 "
              + file);
    }
  }

  private static boolean printable(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isISOControl(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  public String accessKeyId() {
    return accessKeyId;
  }

  /** The secret; handle with care (never log it). */
  public String secretKey() {
    return secretKey;
  }

  /** The value of an HTTP {@code Authorization} header for Basic authentication. */
  String basicAuthorization() {
    return "Basic "
        + java.util.Base64.getEncoder()
            .encodeToString((accessKeyId + ":" + secretKey).getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Credentials c
        && c.accessKeyId.equals(accessKeyId)
        && java.security.MessageDigest.isEqual(
            c.secretKey.getBytes(StandardCharsets.UTF_8),
            secretKey.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public int hashCode() {
    return accessKeyId.hashCode();
  }

  /** The id only: {@code Credentials[accessKeyId=AKID, secret hidden]}. */
  @Override
  public String toString() {
    return "Credentials[accessKeyId=" + accessKeyId + ", secret hidden]";
  }
}
