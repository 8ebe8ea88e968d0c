package io.switchboard.server.config;

import io.switchboard.server.auth.AccessKeys;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * How a server runs: a value for every setting of {@link Settings}, each from, in order of
 * precedence, a command-line flag ({@code --key}), an environment variable ({@code
 * SWITCHBOARD_KEY}), a config file (Java properties, {@code key=value}; named by {@code --config
 * FILE} or {@code SWITCHBOARD_CONFIG}), or its default. The settings, their defaults and ranges are
 * listed in {@link Settings} and in the table of {@code docs/server.md}, which is generated from
 * them. Read a setting with {@link #get(Setting)}; the named accessors are the settings the server
 * has always had.
 *
 * <p>{@link #toString()} never shows a secret: the PostgreSQL password is {@code ***}, the access
 * keys show their ids only, and URLs hide their passwords.
 */
public final class ServerConfig {

  /** The routing leader's lease when {@code routing-lease} is not set. */
  public static final Duration DEFAULT_ROUTING_LEASE =
      Settings.ROUTING_LEASE.defaultValue().orElseThrow();

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
      String url,
      @Nullable String user,
      @Nullable String password,
      Optional<URI> advertiseUrl,
      Duration routingLease) {
    public Postgres {
      Settings.POSTGRES_URL.check(url);
      Objects.requireNonNull(advertiseUrl, "advertiseUrl");
      Settings.ROUTING_LEASE.check(routingLease);
    }

    /** The default advertised URL and routing lease. */
    public Postgres(String url, @Nullable String user, @Nullable String password) {
      this(url, user, password, Optional.empty(), DEFAULT_ROUTING_LEASE);
    }

    /** The URL with its password (a {@code password=} parameter, or user info) hidden. */
    public String displayUrl() {
      return Redact.url(url);
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

  /**
   * Where a DynamoDB engine keeps its queues: the table, and the region and endpoint when not the
   * AWS SDK's defaults. Credentials come from the SDK's default chain, never from here.
   *
   * @param table the table's name
   * @param region the AWS region; empty for the SDK's default
   * @param endpoint DynamoDB's URL (an emulator); empty for AWS's endpoint of the region
   */
  public record DynamoDb(String table, Optional<String> region, Optional<URI> endpoint) {
    public DynamoDb {
      Settings.DYNAMODB_TABLE.check(table);
      Objects.requireNonNull(region, "region");
      Objects.requireNonNull(endpoint, "endpoint");
    }
  }

  /** Each setting's value; a setting without one (and no default) is absent. */
  private final Map<Setting<?>, Object> values;

  /** Where each value that was set came from ({@code --port}, a variable, the config file). */
  private final Map<Setting<?>, String> sources;

  private final SqsAccount sqsAccount;
  private final RoutingSettings routing;
  private final Optional<Postgres> postgres;
  private final Optional<DynamoDb> dynamodb;

  private ServerConfig(Map<Setting<?>, Object> values, Map<Setting<?>, String> sources) {
    this.values = Map.copyOf(values);
    this.sources = Map.copyOf(sources);
    this.sqsAccount =
        new SqsAccount(get(Settings.SQS_ACCOUNT_ID), get(Settings.SQS_DEFAULT_REGION));
    // reads this object's values, all set above
    this.routing = RoutingSettings.of(this);
    this.postgres =
        find(Settings.POSTGRES_URL)
            .map(
                url ->
                    new Postgres(
                        url,
                        find(Settings.POSTGRES_USER).orElse(null),
                        find(Settings.POSTGRES_PASSWORD).orElse(null),
                        find(Settings.ADVERTISE_URL),
                        get(Settings.ROUTING_LEASE)));
    this.dynamodb =
        find(Settings.DYNAMODB_TABLE)
            .map(
                table ->
                    new DynamoDb(
                        table, find(Settings.DYNAMODB_REGION), find(Settings.DYNAMODB_ENDPOINT)));
  }

  /** Every default; a durable server on 127.0.0.1:8080. */
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
   * @throws StartupException naming the setting, what is allowed, the value and its source
   */
  public static ServerConfig resolve(Map<String, String> flags, Map<String, String> env) {
    for (String key : flags.keySet()) {
      if (Settings.byKey(key) == null && !key.equals("config")) {
        throw new StartupException("unknown setting '" + key + "'; known: " + Settings.keys());
      }
    }
    Map<Setting<?>, Sourced> texts = new LinkedHashMap<>();
    Optional.ofNullable(flags.get("config"))
        .map(v -> new Sourced(v, "--config"))
        .or(
            () ->
                Optional.ofNullable(env.get("SWITCHBOARD_CONFIG"))
                    .map(v -> new Sourced(v, "SWITCHBOARD_CONFIG")))
        .ifPresent(f -> texts.putAll(readFile(Path.of(f.value()))));
    for (Setting<?> s : Settings.ALL) {
      if (env.containsKey(s.variable())) {
        texts.put(s, new Sourced(env.get(s.variable()), s.variable()));
      }
      if (flags.containsKey(s.key())) {
        texts.put(s, new Sourced(flags.get(s.key()), s.flag()));
      }
    }
    Map<Setting<?>, Object> values = new HashMap<>();
    Map<Setting<?>, String> sources = new HashMap<>();
    for (Setting<?> s : Settings.ALL) {
      Sourced text = texts.get(s);
      if (text != null) {
        values.put(s, s.parse(text.value(), text.source()));
        sources.put(s, text.source());
      } else {
        s.defaultValue().ifPresent(d -> values.put(s, d));
      }
    }
    return new ServerConfig(values, sources);
  }

  /**
   * The value of a setting that has one (set, or its default).
   *
   * @throws NoSuchElementException when it has none: use {@link #find(Setting)} for a setting
   *     without a default
   */
  public <T> T get(Setting<T> setting) {
    return find(setting)
        .orElseThrow(() -> new NoSuchElementException(setting.key() + " is not set"));
  }

  /** The value of a setting, or empty when it is neither set nor has a default. */
  @SuppressWarnings("unchecked") // values holds each setting's own type
  public <T> Optional<T> find(Setting<T> setting) {
    return Optional.ofNullable((T) values.get(Objects.requireNonNull(setting, "setting")));
  }

  /** Where a setting's value came from ({@code --port}, a variable, the config file), if set. */
  Optional<String> source(Setting<?> setting) {
    return Optional.ofNullable(sources.get(setting));
  }

  /** The source of a value set by {@link #with}. */
  static final String SET_IN_CODE = "set in code";

  /**
   * A copy with one setting changed. The value counts as set, even when it equals the setting's
   * default: a default that stands for something derived ({@code max-queues} from the heap; {@code
   * max-queue-bytes} with PostgreSQL) gives way to it.
   *
   * @throws StartupException when the value is outside the setting's range
   */
  public <T> ServerConfig with(Setting<T> setting, T value) {
    Map<Setting<?>, Object> copy = new HashMap<>(values);
    copy.put(setting, setting.check(value));
    Map<Setting<?>, String> from = new HashMap<>(sources);
    from.put(setting, SET_IN_CODE);
    return new ServerConfig(copy, from);
  }

  /** A copy listening on another port. */
  public ServerConfig withPort(int port) {
    return with(Settings.PORT, port);
  }

  /** A copy with {@code keys} as its {@code access-keys} (each allowed everything). */
  public ServerConfig withAccessKeys(AccessKeys keys) {
    return with(Settings.ACCESS_KEYS, keys);
  }

  /** TCP port, 0..65535; 0 picks a free one (tests). */
  public int port() {
    return get(Settings.PORT);
  }

  /** The address to listen on. */
  public String bind() {
    return get(Settings.BIND);
  }

  /** Where a durable store keeps its files. */
  public Path dataDir() {
    return get(Settings.DATA_DIR);
  }

  /** When a durable store acknowledges a write. */
  public Durability durability() {
    return get(Settings.DURABILITY);
  }

  /** Keep everything in memory (lost on exit); wins over {@link #dataDir()}. */
  public boolean inMemory() {
    return get(Settings.IN_MEMORY);
  }

  /**
   * Waiting messages each standard queue keeps in the heap with the embedded store ({@code
   * hot-window}); 0 keeps them all.
   */
  public int hotWindow() {
    return get(Settings.HOT_WINDOW);
  }

  /** Where {@code hot-window} was set (a flag, variable or config file), when it was. */
  public Optional<String> hotWindowSource() {
    return source(Settings.HOT_WINDOW);
  }

  /**
   * The most the embedded store may take on disk ({@code max-backlog-disk}), a share resolved
   * against {@code fileSystemBytes}, the size of the file system holding the data directory (0:
   * unknown, then a share sets no limit).
   */
  public long maxBacklogDisk(long fileSystemBytes) {
    ByteAmount a = get(Settings.MAX_BACKLOG_DISK);
    if (a.percent() > 0) {
      return fileSystemBytes > 0 ? a.resolve(fileSystemBytes) : Long.MAX_VALUE;
    }
    return a.bytes();
  }

  /** The largest request body. */
  public int maxBodyBytes() {
    return get(Settings.MAX_BODY_BYTES);
  }

  /** Most messages in one send batch. */
  public int maxBatch() {
    return get(Settings.MAX_BATCH);
  }

  /** The longest selector text in characters. */
  public int maxSelectorLength() {
    return get(Settings.MAX_SELECTOR_LENGTH);
  }

  /**
   * Most queues the server holds: as set, or by default derived from this JVM's max heap ({@link
   * Settings#defaultMaxQueues}). The declared default, when nothing set the setting (no source: no
   * flag, environment variable or file, nor {@link #with}), stands for the derived one; a value set
   * is kept, even one equal to the declared default.
   */
  public int maxQueues() {
    if (source(Settings.MAX_QUEUES).isEmpty()) {
      return Settings.defaultMaxQueues(Runtime.getRuntime().maxMemory());
    }
    return get(Settings.MAX_QUEUES);
  }

  /**
   * The limits the engine holds queues to, from the limit settings; shares of the heap resolved
   * against this JVM's maximum heap. With PostgreSQL, {@code max-queue-bytes} holds only when set:
   * its default, a share of this server's heap, says nothing about a queue kept in the database.
   */
  public io.switchboard.queue.QueueLimits queueLimits() {
    long heap = Runtime.getRuntime().maxMemory();
    long queueBytes = get(Settings.MAX_QUEUE_BYTES).resolve(heap);
    if (postgres().isPresent() && source(Settings.MAX_QUEUE_BYTES).isEmpty()) {
      // the messages live in the database, not in this heap: a share of the heap is no default
      queueBytes = io.switchboard.queue.QueueLimits.NONE.maxQueueBytes();
    }
    return new io.switchboard.queue.QueueLimits(
        get(Settings.MAX_QUEUED_BYTES).resolve(heap),
        queueBytes,
        get(Settings.DEFAULT_MAX_DEPTH),
        get(Settings.MAX_IN_FLIGHT),
        get(Settings.MAX_IN_FLIGHT_FIFO),
        get(Settings.MAX_ANSWER_BYTES).resolve(heap));
  }

  /** How long a stop waits for requests in flight. */
  public int shutdownGraceSeconds() {
    return get(Settings.SHUTDOWN_GRACE_SECONDS);
  }

  /**
   * The keys of {@code access-keys} and its alias {@code sqs-access-keys}, together (not those of
   * {@code access-keys-file}, read when the server starts).
   *
   * @throws StartupException if both name one key id with different secrets
   */
  public AccessKeys accessKeys() {
    AccessKeys keys = get(Settings.ACCESS_KEYS);
    AccessKeys alias = get(Settings.SQS_ACCESS_KEYS);
    if (!alias.enabled()) {
      return keys;
    }
    Map<String, String> all = new LinkedHashMap<>();
    for (String id : keys.ids()) {
      all.put(id, keys.secret(id).orElseThrow());
    }
    for (String id : alias.ids()) {
      String secret = alias.secret(id).orElseThrow();
      String before = all.put(id, secret);
      if (before != null && !before.equals(secret)) {
        throw new StartupException(
            "access key id "
                + id
                + " is in both access-keys and sqs-access-keys with different secrets; give it"
                + " once");
      }
    }
    return AccessKeys.of(all);
  }

  /**
   * The account id SQS queue URLs and ARNs carry, and the region of an unsigned SQS request whose
   * host names none.
   */
  public SqsAccount sqsAccount() {
    return sqsAccount;
  }

  /** The router's settings. */
  public RoutingSettings routing() {
    return routing;
  }

  /**
   * The PostgreSQL database the queues live in, shared with other servers; wins over {@link
   * #inMemory()} and {@link #dataDir()}.
   */
  public Optional<Postgres> postgres() {
    return postgres;
  }

  /**
   * The DynamoDB table the queues live in, shared with other servers; wins over {@link #inMemory()}
   * and {@link #dataDir()} for the queues ({@link #postgres()} wins over it).
   */
  public Optional<DynamoDb> dynamodb() {
    return dynamodb;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerConfig c && c.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  /** Every setting and its value, secrets hidden. */
  @Override
  public String toString() {
    return Settings.ALL.stream()
        .map(s -> s.key() + "=" + shown(s))
        .collect(Collectors.joining(", ", "ServerConfig[", "]"));
  }

  private <T> String shown(Setting<T> setting) {
    return find(setting).map(setting::show).map(Redact::url).orElse("none");
  }

  private record Sourced(String value, String source) {}

  private static Map<Setting<?>, Sourced> readFile(Path path) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new StartupException("cannot read config file " + path + ": " + e.getMessage(), e);
    }
    Map<Setting<?>, Sourced> out = new LinkedHashMap<>();
    for (String key : properties.stringPropertyNames()) {
      Setting<?> setting = Settings.byKey(key);
      if (setting == null) {
        throw new StartupException(
            "unknown setting '" + key + "' in config file " + path + "; known: " + Settings.keys());
      }
      out.put(setting, new Sourced(properties.getProperty(key).trim(), "config file " + path));
    }
    return out;
  }
}
