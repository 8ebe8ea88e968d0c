package io.switchboard.server;

import io.switchboard.server.sqs.SqsAccessKeys;
import io.switchboard.server.sqs.SqsAccount;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * How a server runs. Each setting comes from, in order of precedence, a command-line flag, an
 * environment variable, a config file (Java properties; {@code --config FILE} or {@code
 * SWITCHBOARD_CONFIG}), or its default:
 *
 * <table>
 *   <tr><th>key (flag {@code --key})</th><th>variable</th><th>default</th></tr>
 *   <tr><td>port</td><td>SWITCHBOARD_PORT</td><td>8080 (0 = any free port)</td></tr>
 *   <tr><td>bind</td><td>SWITCHBOARD_BIND</td><td>127.0.0.1</td></tr>
 *   <tr><td>data-dir</td><td>SWITCHBOARD_DATA_DIR</td><td>data</td></tr>
 *   <tr><td>durability</td><td>SWITCHBOARD_DURABILITY</td><td>sync</td></tr>
 *   <tr><td>in-memory</td><td>SWITCHBOARD_IN_MEMORY</td><td>false</td></tr>
 *   <tr><td>max-body-bytes</td><td>SWITCHBOARD_MAX_BODY_BYTES</td><td>4194304</td></tr>
 *   <tr><td>max-batch</td><td>SWITCHBOARD_MAX_BATCH</td><td>100</td></tr>
 *   <tr><td>max-selector-length</td><td>SWITCHBOARD_MAX_SELECTOR_LENGTH</td><td>4096</td></tr>
 *   <tr><td>max-queues</td><td>SWITCHBOARD_MAX_QUEUES</td><td>10000</td></tr>
 *   <tr><td>shutdown-grace-seconds</td><td>SWITCHBOARD_SHUTDOWN_GRACE_SECONDS</td><td>10</td></tr>
 *   <tr><td>sqs-access-keys</td><td>SWITCHBOARD_SQS_ACCESS_KEYS</td><td>none (SigV4 not
 *   verified)</td></tr>
 *   <tr><td>sqs-account-id</td><td>SWITCHBOARD_SQS_ACCOUNT_ID</td><td>000000000000</td></tr>
 *   <tr><td>sqs-default-region</td><td>SWITCHBOARD_SQS_DEFAULT_REGION</td><td>us-east-1</td></tr>
 *   <tr><td>routing-*</td><td>SWITCHBOARD_ROUTING_*</td><td>see {@link RoutingSettings}</td></tr>
 *   <tr><td>postgres-url</td><td>SWITCHBOARD_POSTGRES_URL</td><td>none (embedded store)</td></tr>
 *   <tr><td>postgres-user</td><td>SWITCHBOARD_POSTGRES_USER</td><td>none</td></tr>
 *   <tr><td>postgres-password</td><td>SWITCHBOARD_POSTGRES_PASSWORD</td><td>none</td></tr>
 *   <tr><td>advertise-url</td><td>SWITCHBOARD_ADVERTISE_URL</td><td>http://&lt;bind&gt;:&lt;port&gt;
 *   (with postgres-url: where other servers forward routing calls)</td></tr>
 *   <tr><td>routing-lease</td><td>SWITCHBOARD_ROUTING_LEASE</td><td>5s (with postgres-url: the
 *   routing leader's lease, 1s..5m)</td></tr>
 * </table>
 *
 * @param port TCP port, 0..65535; 0 picks a free one (tests)
 * @param bind address to listen on
 * @param dataDir where a durable store keeps its files
 * @param durability when a durable store acknowledges a write
 * @param inMemory keep everything in memory (lost on exit); wins over {@code dataDir}
 * @param maxBodyBytes largest request body, 1 KiB..64 MiB
 * @param maxBatch most messages in one send batch, 1..1000
 * @param maxSelectorLength longest selector text in characters, 1..4096
 * @param maxQueues most queues the server holds, 1..1000000
 * @param shutdownGraceSeconds how long a stop waits for requests in flight, 0..300
 * @param sqsAccessKeys the keys SQS requests must be signed with ({@code ID:SECRET,...}); none
 *     turns SigV4 verification off. Shown as key ids only when printed.
 * @param sqsAccount the account id SQS queue URLs and ARNs carry, and the region of an unsigned SQS
 *     request whose host names none
 * @param routing the router's settings
 * @param postgres the PostgreSQL database the queues live in, shared with other servers; wins over
 *     {@code inMemory} and {@code dataDir}
 */
public record ServerConfig(
    int port,
    String bind,
    Path dataDir,
    Durability durability,
    boolean inMemory,
    int maxBodyBytes,
    int maxBatch,
    int maxSelectorLength,
    int maxQueues,
    int shutdownGraceSeconds,
    SqsAccessKeys sqsAccessKeys,
    SqsAccount sqsAccount,
    RoutingSettings routing,
    Optional<Postgres> postgres) {

  /** The routing leader's lease when {@code routing-lease} is not set. */
  public static final Duration DEFAULT_ROUTING_LEASE = Duration.ofSeconds(5);

  /**
   * Where a PostgreSQL engine connects: a JDBC URL such as {@code
   * jdbc:postgresql://db:5432/switchboard}, and the login (prefer the environment or a config file
   * for the password: flags show in the process list). {@code toString} hides the password.
   *
   * @param advertiseUrl where the other servers reach this one with routing calls while it is the
   *     routing leader; none means {@code http://<bind>:<port>} as the server listens
   * @param routingLease how long the routing leader's lease lasts without renewal
   */
  public record Postgres(
      String url, String user, String password, Optional<URI> advertiseUrl, Duration routingLease) {
    public Postgres {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(advertiseUrl, "advertiseUrl");
      Objects.requireNonNull(routingLease, "routingLease");
      if (!url.startsWith("jdbc:postgresql:")) {
        throw new StartupException(
            "postgres-url must be a JDBC URL starting with jdbc:postgresql:, got '" + url + "'");
      }
    }

    /** The default advertised URL and routing lease. */
    public Postgres(String url, String user, String password) {
      this(url, user, password, Optional.empty(), DEFAULT_ROUTING_LEASE);
    }

    /** The URL with any {@code password=} parameter hidden, for logs and messages. */
    public String displayUrl() {
      return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    @Override
    public String toString() {
      return "Postgres[url="
          + displayUrl()
          + ", user="
          + user
          + ", password="
          + (password == null ? "none" : "***")
          + ", advertiseUrl="
          + advertiseUrl.map(URI::toString).orElse("default")
          + ", routingLease="
          + routingLease
          + "]";
    }
  }

  /** Every key, in the order of the table above. */
  public static final List<String> KEYS =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of(
                  "port",
                  "bind",
                  "data-dir",
                  "durability",
                  "in-memory",
                  "max-body-bytes",
                  "max-batch",
                  "max-selector-length",
                  "max-queues",
                  "shutdown-grace-seconds",
                  "sqs-access-keys",
                  "sqs-account-id",
                  "sqs-default-region",
                  "postgres-url",
                  "postgres-user",
                  "postgres-password",
                  "advertise-url",
                  "routing-lease"),
              RoutingSettings.KEYS.stream())
          .toList();

  public ServerConfig {
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(durability, "durability");
    Objects.requireNonNull(sqsAccessKeys, "sqsAccessKeys");
    Objects.requireNonNull(sqsAccount, "sqsAccount");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(postgres, "postgres");
    check("port", port, 0, 65535);
    check("max-body-bytes", maxBodyBytes, 1024, 64 * 1024 * 1024);
    check("max-batch", maxBatch, 1, 1000);
    check("max-selector-length", maxSelectorLength, 1, 4096);
    check("max-queues", maxQueues, 1, 1_000_000);
    check("shutdown-grace-seconds", shutdownGraceSeconds, 0, 300);
    if (bind.isBlank()) {
      throw new StartupException("bind must be a host name or address, got an empty value");
    }
  }

  /** Every default; an in-memory server on 127.0.0.1:8080. */
  public static ServerConfig defaults() {
    return resolve(Map.of(), Map.of());
  }

  /** An in-memory server on a free port of 127.0.0.1: what tests start. */
  public static ServerConfig forTests() {
    return resolve(Map.of("port", "0", "in-memory", "true"), Map.of());
  }

  /**
   * Resolves the settings from flags (by key, e.g. {@code "data-dir"}, plus {@code "config"} for
   * the config file), the environment and the config file, in that precedence.
   *
   * @throws StartupException naming the source of a bad value
   */
  public static ServerConfig resolve(Map<String, String> flags, Map<String, String> env) {
    for (String key : flags.keySet()) {
      if (!KEYS.contains(key) && !key.equals("config")) {
        throw new StartupException("unknown setting '" + key + "'; known: " + KEYS);
      }
    }
    Map<String, Sourced> values = new LinkedHashMap<>();
    Optional<Sourced> file =
        Optional.ofNullable(flags.get("config"))
            .map(v -> new Sourced(v, "--config"))
            .or(
                () ->
                    Optional.ofNullable(env.get("SWITCHBOARD_CONFIG"))
                        .map(v -> new Sourced(v, "SWITCHBOARD_CONFIG")));
    file.ifPresent(f -> values.putAll(readFile(Path.of(f.value()))));
    for (String key : KEYS) {
      String variable = variable(key);
      if (env.containsKey(variable)) {
        values.put(key, new Sourced(env.get(variable), variable));
      }
      if (flags.containsKey(key)) {
        values.put(key, new Sourced(flags.get(key), "--" + key));
      }
    }
    return new ServerConfig(
        integer(values, "port", 8080),
        text(values, "bind", "127.0.0.1"),
        Path.of(text(values, "data-dir", "data")),
        durability(values),
        bool(values, "in-memory", false),
        integer(values, "max-body-bytes", 4 * 1024 * 1024),
        integer(values, "max-batch", 100),
        integer(values, "max-selector-length", 4096),
        integer(values, "max-queues", 10_000),
        integer(values, "shutdown-grace-seconds", 10),
        accessKeys(values),
        sqsAccount(values),
        routing(values),
        postgres(values));
  }

  private static Optional<Postgres> postgres(Map<String, Sourced> values) {
    Optional<URI> advertise = advertiseUrl(values.get("advertise-url"));
    Duration lease = routingLease(values.get("routing-lease"));
    return Optional.ofNullable(values.get("postgres-url"))
        .map(
            url ->
                new Postgres(
                    url.value().trim(),
                    text(values, "postgres-user", null),
                    text(values, "postgres-password", null),
                    advertise,
                    lease));
  }

  /**
   * An absolute {@code http://} or {@code https://} URL with a host and nothing after the port
   * (other servers append the request's path to it).
   */
  private static Optional<URI> advertiseUrl(Sourced v) {
    if (v == null) {
      return Optional.empty();
    }
    String text = v.value().trim();
    URI uri = null;
    try {
      uri = new URI(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    } catch (URISyntaxException e) {
      // refused below
    }
    if (uri == null
        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
        || uri.getHost() == null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null
        || uri.getRawUserInfo() != null) {
      throw new StartupException(
          "advertise-url must be an absolute http:// or https:// URL with a host and an optional"
              + " port, nothing after it (such as http://10.0.0.5:8080), got '"
              + v.value()
              + "' (from "
              + v.source()
              + ")");
    }
    return Optional.of(uri);
  }

  private static Duration routingLease(Sourced v) {
    if (v == null) {
      return DEFAULT_ROUTING_LEASE;
    }
    Duration d = RoutingSettings.duration(v.value());
    if (d == null
        || d.compareTo(Duration.ofSeconds(1)) < 0
        || d.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new StartupException(
          "routing-lease must be a duration of 1s..5m (such as 1500ms, 5s or 1m), got '"
              + v.value()
              + "' (from "
              + v.source()
              + ")");
    }
    return d;
  }

  private static RoutingSettings routing(Map<String, Sourced> values) {
    Map<String, String> texts = new LinkedHashMap<>();
    for (String key : RoutingSettings.KEYS) {
      if (values.containsKey(key)) {
        texts.put(key, values.get(key).value());
      }
    }
    return RoutingSettings.parse(texts, key -> values.get(key).source());
  }

  /** The environment variable of a key: {@code data-dir} → {@code SWITCHBOARD_DATA_DIR}. */
  public static String variable(String key) {
    return "SWITCHBOARD_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** A copy listening on another port. */
  public ServerConfig withPort(int port) {
    return new ServerConfig(
        port,
        bind,
        dataDir,
        durability,
        inMemory,
        maxBodyBytes,
        maxBatch,
        maxSelectorLength,
        maxQueues,
        shutdownGraceSeconds,
        sqsAccessKeys,
        sqsAccount,
        routing,
        postgres);
  }

  /** A copy that verifies SQS signatures with {@code keys} (or not, with none). */
  public ServerConfig withSqsAccessKeys(SqsAccessKeys keys) {
    return new ServerConfig(
        port,
        bind,
        dataDir,
        durability,
        inMemory,
        maxBodyBytes,
        maxBatch,
        maxSelectorLength,
        maxQueues,
        shutdownGraceSeconds,
        keys,
        sqsAccount,
        routing,
        postgres);
  }

  private record Sourced(String value, String source) {}

  private static Map<String, Sourced> readFile(Path path) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new StartupException("cannot read config file " + path + ": " + e.getMessage(), e);
    }
    Map<String, Sourced> out = new LinkedHashMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (!KEYS.contains(key)) {
        throw new StartupException(
            "unknown setting '" + key + "' in config file " + path + "; known: " + KEYS);
      }
      out.put(key, new Sourced(properties.getProperty(key).trim(), "config file " + path));
    }
    return out;
  }

  private static String text(Map<String, Sourced> values, String key, String fallback) {
    Sourced v = values.get(key);
    return v == null ? fallback : v.value();
  }

  private static int integer(Map<String, Sourced> values, String key, int fallback) {
    Sourced v = values.get(key);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.value().trim());
    } catch (NumberFormatException e) {
      throw new StartupException(
          key + " must be an integer, got '" + v.value() + "' (from " + v.source() + ")");
    }
  }

  private static boolean bool(Map<String, Sourced> values, String key, boolean fallback) {
    Sourced v = values.get(key);
    if (v == null) {
      return fallback;
    }
    return switch (v.value().trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "" -> true;
      case "false", "no", "0" -> false;
      default ->
          throw new StartupException(
              key + " must be true or false, got '" + v.value() + "' (from " + v.source() + ")");
    };
  }

  private static SqsAccessKeys accessKeys(Map<String, Sourced> values) {
    Sourced v = values.get("sqs-access-keys");
    if (v == null) {
      return SqsAccessKeys.none();
    }
    try {
      return SqsAccessKeys.parse(v.value());
    } catch (IllegalArgumentException e) {
      // the message names the entry's position, never the secret
      throw new StartupException(
          "sqs-access-keys: " + e.getMessage() + " (from " + v.source() + ")");
    }
  }

  private static SqsAccount sqsAccount(Map<String, Sourced> values) {
    Sourced id = values.get("sqs-account-id");
    Sourced region = values.get("sqs-default-region");
    try {
      return new SqsAccount(
          id == null ? SqsAccount.DEFAULT.id() : id.value().trim(),
          region == null ? SqsAccount.DEFAULT.defaultRegion() : region.value().trim());
    } catch (IllegalArgumentException e) {
      // the message names the setting; say where the bad value came from
      Sourced bad = e.getMessage().startsWith("sqs-account-id") ? id : region;
      throw new StartupException(e.getMessage() + " (from " + bad.source() + ")");
    }
  }

  private static Durability durability(Map<String, Sourced> values) {
    Sourced v = values.get("durability");
    if (v == null) {
      return Durability.SYNC;
    }
    try {
      return Durability.valueOf(v.value().trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new StartupException(
          "durability must be sync, batch or none, got '"
              + v.value()
              + "' (from "
              + v.source()
              + ")");
    }
  }

  private static void check(String key, int value, int min, int max) {
    if (value < min || value > max) {
      throw new StartupException(key + " must be " + min + ".." + max + ", got " + value);
    }
  }
}
