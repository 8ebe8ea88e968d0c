package io.switchboard.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code --access-keys-file}: YAML (any name but {@code *.properties}) or Java properties
 * ({@code *.properties}), in the formats {@code docs/security.md} shows. The file must be readable
 * by its owner only ({@code chmod 600}) where the file system has POSIX permissions: a key file
 * others can read is refused, as ssh refuses such a private key.
 *
 * <p>Every error names the file and what is wrong (the key id, the field), never a secret.
 */
public final class KeyFile {

  private static final Set<PosixFilePermission> OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private KeyFile() {}

  /** The file could not be used; the message says why and how to fix it. */
  public static final class Invalid extends RuntimeException {
    /** {@code message} says what is wrong and how to fix it, and names no secret. */
    public Invalid(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The keys in {@code file}.
   *
   * @throws Invalid when the file is missing, others may read it, or it is not a valid key file
   */
  public static List<Principal> read(Path file) {
    checkPermissions(file);
    try {
      return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".properties")
          ? properties(file)
          : yaml(file);
    } catch (IllegalArgumentException e) {
      throw invalid(file, String.valueOf(e.getMessage()), e);
    } catch (IOException e) {
      throw invalid(file, "cannot read it: " + e.getMessage(), e);
    }
  }

  /**
   * Refuses a file that its group or others may access.
   *
   * @throws Invalid naming the permissions found and the fix
   */
  static void checkPermissions(Path file) {
    if (!Files.isRegularFile(file)) {
      throw invalid(file, "no such file", null);
    }
    Set<PosixFilePermission> perms;
    try {
      perms = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return; // no POSIX permissions on this file system (Windows): nothing to check
    } catch (IOException e) {
      throw invalid(file, "cannot read its permissions: " + e.getMessage(), e);
    }
    Set<PosixFilePermission> open = EnumSet.noneOf(PosixFilePermission.class);
    open.addAll(perms);
    open.retainAll(OTHERS);
    if (!open.isEmpty()) {
      throw invalid(
          file,
          "it holds secrets but its group or others may access it (permissions "
              + PosixFilePermissions.toString(perms)
              + "); make it readable by its owner only: chmod 600 "
              + file,
          null);
    }
  }

  private static Invalid invalid(Path file, String what, @Nullable Throwable cause) {
    return new Invalid("access-keys-file " + file + ": " + what, cause);
  }

  // ---- YAML

  private static List<Principal> yaml(Path file) throws IOException {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
    } catch (IOException e) {
      // the parser's message quotes the text around the error, which may be a secret
      throw new IllegalArgumentException(
          "not valid YAML"
              + (e instanceof com.fasterxml.jackson.core.JsonProcessingException p
                      && p.getLocation() != null
                  ? " (line " + p.getLocation().getLineNr() + ")"
                  : ""));
    }
    if (root == null || !root.isObject() || !root.path("keys").isArray()) {
      throw new IllegalArgumentException("the file must have a 'keys:' list (docs/security.md)");
    }
    for (var field : (Iterable<String>) () -> root.fieldNames()) {
      if (!field.equals("keys")) {
        throw new IllegalArgumentException("unknown top-level field '" + field + "'; known: keys");
      }
    }
    List<Principal> out = new ArrayList<>();
    Set<String> ids = new TreeSet<>();
    int index = 0;
    for (JsonNode k : root.get("keys")) {
      index++;
      String at = "key " + index;
      if (!k.isObject()) {
        throw new IllegalArgumentException(at + " must be a map with id, secret and grants");
      }
      for (var field : (Iterable<String>) () -> k.fieldNames()) {
        if (!Set.of("id", "secret", "name", "agent", "account", "grants").contains(field)) {
          throw new IllegalArgumentException(
              at
                  + ": unknown field '"
                  + field
                  + "'; known: id, secret, name, agent, account, grants");
        }
      }
      String id = text(k, "id", at).orElseThrow(() -> missing(at, "id"));
      String where = "key " + id;
      String secret = text(k, "secret", where).orElseThrow(() -> missing("key " + id, "secret"));
      List<Grant> grants = new ArrayList<>();
      JsonNode g = k.path("grants");
      if (!g.isArray() || g.isEmpty()) {
        throw new IllegalArgumentException(
            where + ": 'grants' must be a list of at least one grant");
      }
      for (JsonNode grant : g) {
        try {
          grants.add(yamlGrant(grant, where));
        } catch (IllegalArgumentException e) {
          throw String.valueOf(e.getMessage()).startsWith(where)
              ? e
              : new IllegalArgumentException(where + ": " + e.getMessage());
        }
      }
      out.add(
          principal(
              id,
              secret,
              text(k, "name", where),
              grants,
              text(k, "agent", where),
              text(k, "account", where),
              ids));
    }
    return out;
  }

  private static Grant yamlGrant(JsonNode grant, String where) {
    if (grant.isTextual()) {
      return Grant.parse(grant.asText());
    }
    JsonNode actions = grant.path("actions");
    JsonNode resource = grant.path("resource");
    if (!grant.isObject() || !actions.isArray() || !resource.isTextual()) {
      throw new IllegalArgumentException(
          where
              + ": a grant is {actions: [queue:send, ...], resource: 'orders-*'} or the text"
              + " 'queue:send,queue:receive on orders-*'");
    }
    Set<Action> set = new LinkedHashSet<>();
    actions.forEach(a -> set.add(Action.parse(a.asText())));
    try {
      return new Grant(set, resource.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage());
    }
  }

  private static Optional<String> text(JsonNode k, String field, String where) {
    JsonNode v = k.get(field);
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    if (!v.isValueNode() || v.asText().isBlank()) {
      throw new IllegalArgumentException(where + ": '" + field + "' must be a non-empty text");
    }
    return Optional.of(v.asText().trim());
  }

  private static IllegalArgumentException missing(String where, String field) {
    return new IllegalArgumentException(where + ": '" + field + "' is required");
  }

  // ---- properties

  /**
   * {@code <id>.secret}, {@code <id>.grants}, optional {@code <id>.name}, {@code <id>.agent},
   * {@code <id>.account}.
   */
  private static List<Principal> properties(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Map<String, Map<String, String>> byId = new TreeMap<>();
    for (String name : p.stringPropertyNames()) {
      int dot = name.lastIndexOf('.');
      String field = dot < 0 ? "" : name.substring(dot + 1);
      if (dot <= 0 || !Set.of("secret", "name", "agent", "account", "grants").contains(field)) {
        throw new IllegalArgumentException(
            "unknown property '"
                + name
                + "'; each is <key id>.secret, <key id>.grants, <key id>.name, <key id>.agent or"
                + " <key id>.account");
      }
      byId.computeIfAbsent(name.substring(0, dot), x -> new TreeMap<>())
          .put(field, p.getProperty(name).trim());
    }
    if (byId.isEmpty()) {
      throw new IllegalArgumentException("it names no key (docs/security.md shows the format)");
    }
    List<Principal> out = new ArrayList<>();
    Set<String> ids = new TreeSet<>();
    for (var e : byId.entrySet()) {
      String where = "key " + e.getKey();
      Map<String, String> f = e.getValue();
      String secret = nonBlank(f.get("secret")).orElseThrow(() -> missing(where, "secret"));
      String grantText = nonBlank(f.get("grants")).orElseThrow(() -> missing(where, "grants"));
      List<Grant> grants = new ArrayList<>();
      for (String g : grantText.split(";")) {
        if (!g.isBlank()) {
          grants.add(Grant.parse(g));
        }
      }
      out.add(
          principal(
              e.getKey(),
              secret,
              nonBlank(f.get("name")),
              grants,
              nonBlank(f.get("agent")),
              nonBlank(f.get("account")),
              ids));
    }
    return out;
  }

  private static Optional<String> nonBlank(@Nullable String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
  }

  private static Principal principal(
      String id,
      String secret,
      Optional<String> name,
      List<Grant> grants,
      Optional<String> agent,
      Optional<String> account,
      Set<String> ids) {
    if (!ids.add(id)) {
      throw new IllegalArgumentException("access key id " + id + " is given twice");
    }
    try {
      return new Principal(id, secret, name, grants, agent, account);
    } catch (IllegalArgumentException e) {
      throw String.valueOf(e.getMessage()).contains(id)
          ? e
          : new IllegalArgumentException("key " + id + ": " + e.getMessage(), e);
    }
  }
}
