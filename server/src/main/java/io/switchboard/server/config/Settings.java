package io.switchboard.server.config;

import io.switchboard.server.auth.AccessKeys;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Every server setting, declared once, in the order the docs list them. To add one: declare it here
 * (its place among the declarations is its place in {@link #ALL} and the docs), read it where it is
 * used with {@link ServerConfig#get(Setting)}, and regenerate the table in {@code docs/server.md}
 * ({@code SettingsDocTest} says how). Its flag, variable, config-file key, parsing, checks, error
 * messages, help and docs row follow from the declaration.
 */
public final class Settings {

  private Settings() {}

  /** Filled by {@link #declare} as the declarations below initialize, in their order. */
  private static final List<Setting<?>> DECLARED = new ArrayList<>();

  private static <T> Setting<T> declare(Setting<T> setting) {
    if (DECLARED.stream().anyMatch(s -> s.key().equals(setting.key()))) {
      throw new IllegalStateException("setting " + setting.key() + " is declared twice");
    }
    DECLARED.add(setting);
    return setting;
  }

  public static final Setting<Integer> PORT =
      declare(Setting.integer("port", 8080, 0, 65535, "TCP port; 0 picks a free port"));

  public static final Setting<String> BIND =
      declare(
          Setting.of(
              "bind",
              Setting.checked(
                  text -> text,
                  text -> {
                    if (text.isBlank()) {
                      throw new IllegalArgumentException(
                          "bind must be a host name or address, got an empty value");
                    }
                  }),
              "127.0.0.1",
              "address to listen on; `0.0.0.0` to listen on every interface. A non-loopback"
                  + " address needs access keys or `allow-anonymous`"));

  public static final Setting<URI> PUBLIC_URL =
      declare(
          Setting.of(
                  "public-url",
                  Settings::advertiseUrl,
                  null,
                  "the URL clients reach this server at (`https://sqs.example.com`): SQS queue URLs"
                      + " name it, and its host is accepted in `Host`"
                      + " (`docs/security.md#public-url`)")
              .defaultDoc("none (the request's `Host` when it is allowed)"));

  public static final Setting<Boolean> ALLOW_ANONYMOUS =
      declare(
          Setting.bool(
              "allow-anonymous",
              false,
              "start bound to a non-loopback address without access keys: anyone who reaches the"
                  + " port may do anything (`docs/security.md#keyless-mode`)"));

  public static final Setting<List<String>> CORS_ORIGINS =
      declare(
          Setting.of(
                  "cors-origins",
                  new Setting.Type<List<String>>() {
                    @Override
                    public List<String> parse(String text) {
                      return list(text).stream().map(Settings::origin).toList();
                    }

                    @Override
                    public String show(List<String> origins) {
                      return String.join(",", origins);
                    }
                  },
                  List.of(),
                  "origins whose web pages may call the server (CORS, preflight answered):"
                      + " `https://app.example.com,http://localhost:3000`; other origins are refused")
              .defaultDoc("none"));

  public static final Setting<PrivateAddresses> OUTBOUND_PRIVATE_ADDRESSES =
      declare(
          Setting.enumeration(
              "outbound-private-addresses",
              PrivateAddresses.class,
              PrivateAddresses.AUTO,
              "whether assignment callback URLs may name loopback and private addresses"
                  + " (`127/8`, `10/8`, `192.168/16`, `fc00::/7`...): `allowed`, `refused`, or"
                  + " `auto`, allowed on a server without access keys bound to loopback only;"
                  + " link-local and metadata addresses (`169.254/16`) are always refused"
                  + " (`docs/security.md`, \"Outbound requests\")"));

  public static final Setting<Path> TLS_CERT =
      declare(
          Setting.path(
                  "tls-cert",
                  null,
                  "PEM certificate chain (server certificate first): serve HTTPS; with `tls-key`;"
                      + " reloaded when the file changes")
              .defaultDoc("none (plain HTTP)"));

  public static final Setting<Path> TLS_KEY =
      declare(
          Setting.path(
                  "tls-key",
                  null,
                  "PEM private key of `tls-cert` (PKCS#8, or PKCS#1 RSA); reloaded when the file"
                      + " changes")
              .defaultDoc("none"));

  public static final Setting<Path> TLS_CLIENT_CA =
      declare(
          Setting.path(
                  "tls-client-ca",
                  null,
                  "PEM certificates of the CAs client certificates must chain to: with it every"
                      + " client must present one (mutual TLS)")
              .defaultDoc("none (no client certificates)"));

  public static final Setting<Duration> TLS_RELOAD_CHECK =
      declare(
          Setting.duration(
              "tls-reload-check",
              Duration.ofSeconds(10),
              Duration.ofSeconds(1),
              Duration.ofHours(1),
              "how often the TLS files are checked for changes; changed files are loaded for new"
                  + " connections"));

  public static final Setting<Path> DATA_DIR =
      declare(Setting.path("data-dir", Path.of("data"), "the durable store's directory"));

  public static final Setting<Durability> DURABILITY =
      declare(
          Setting.enumeration(
              "durability",
              Durability.class,
              Durability.SYNC,
              "when the durable store answers a send: `sync` after fsync (group commit), `batch` once"
                  + " written (synced every 10 ms), `none` never syncs"));

  public static final Setting<Boolean> IN_MEMORY =
      declare(
          Setting.bool(
              "in-memory",
              false,
              "keep nothing on disk, everything is lost when the server stops; wins over `data-dir`"));

  /** The default {@code hot-window}: messages a standard queue keeps in the heap. */
  static final int DEFAULT_HOT_WINDOW = 10_000;

  public static final Setting<Integer> HOT_WINDOW =
      declare(
          Setting.of(
              "hot-window",
              new Setting.Type<Integer>() {
                @Override
                public Integer parse(String text) {
                  String t = text.trim();
                  if (t.equalsIgnoreCase("off")) {
                    return 0;
                  }
                  try {
                    return Integer.parseInt(t);
                  } catch (NumberFormatException e) {
                    throw new Setting.Invalid(allowed());
                  }
                }

                @Override
                public void check(Integer value) {
                  if (value < 0 || value > 1_000_000) {
                    throw new Setting.Invalid(allowed(), value.toString());
                  }
                }

                @Override
                public String allowed() {
                  return "0..1000000 messages, or off (0)";
                }
              },
              DEFAULT_HOT_WINDOW,
              "with the embedded store, the waiting messages each standard queue keeps in the"
                  + " heap; the rest of its backlog is read from disk when the heap runs low"
                  + " (`docs/storage.md`, \"The order index\"). `off` or 0 keeps every message in"
                  + " the heap; ignored with `in-memory` and `postgres-url`"));

  public static final Setting<ByteAmount> MAX_BACKLOG_DISK =
      declare(
          Setting.of(
                  "max-backlog-disk",
                  new Setting.Type<ByteAmount>() {
                    @Override
                    public ByteAmount parse(String text) {
                      ByteAmount a = ByteAmount.parse(text);
                      if (a == null) {
                        throw new Setting.Invalid(allowed() + " (such as 200g, or 80%)");
                      }
                      return a;
                    }

                    @Override
                    public void check(ByteAmount value) {
                      boolean ok =
                          value.percent() > 0
                              ? value.percent() <= 95
                              : value.bytes() >= 1L << 20 && value.bytes() <= 1L << 50;
                      if (!ok) {
                        throw new Setting.Invalid(
                            allowed() + " (such as 200g, or 80%)", value.toString());
                      }
                    }

                    @Override
                    public String allowed() {
                      return "1m..1024t bytes or 1%..95% of the data directory's file system";
                    }

                    @Override
                    public String show(ByteAmount value) {
                      return value.toString();
                    }
                  },
                  ByteAmount.ofHeapPercent(80),
                  "with the embedded store, the most the store may take on disk"
                      + " (table files and unflushed writes); past it a send gets 429 `QUEUE_FULL`"
                      + " (SQS: `RequestThrottled`) until consumers drain it. A share of the file"
                      + " system by default (`docs/storage.md`, \"Disk space\")")
              .defaultDoc("80% of the file system"));

  public static final Setting<Integer> MAX_BODY_BYTES =
      declare(
          Setting.integer(
              "max-body-bytes", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024, "largest request body"));

  public static final Setting<Integer> MAX_BATCH =
      declare(Setting.integer("max-batch", 100, 1, 1000, "most messages in one send batch"));

  public static final Setting<Integer> MAX_SELECTOR_LENGTH =
      declare(
          Setting.integer(
              "max-selector-length", 4096, 1, 4096, "longest selector text, in characters"));

  /** Heap an empty queue is allowed by the default {@code max-queues}, in bytes. */
  static final long HEAP_BYTES_PER_QUEUE = 4096;

  public static final Setting<Integer> MAX_QUEUES =
      declare(
          Setting.integer(
                  "max-queues",
                  10_000,
                  1,
                  1_000_000,
                  "most queues the server holds; one more is refused (`TOO_MANY_QUEUES`, SQS"
                      + " `OverLimit`). By default one per 4 KiB of a quarter of the max heap"
                      + " (`-Xmx`), at least 10000: an idle queue costs about 0.4 KB of heap, a used one more")
              .defaultDoc("heap / 16 KiB"));

  /**
   * The default {@code max-queues} for a max heap of {@code heapBytes}: a quarter of it at {@link
   * #HEAP_BYTES_PER_QUEUE} a queue, 10,000..1,000,000.
   */
  public static int defaultMaxQueues(long heapBytes) {
    long queues = heapBytes / 4 / HEAP_BYTES_PER_QUEUE;
    return (int) Math.max(10_000, Math.min(1_000_000, queues));
  }

  public static final Setting<ByteAmount> MAX_QUEUED_BYTES =
      declare(
          Setting.bytes(
              "max-queued-bytes",
              ByteAmount.ofHeapPercent(50),
              1L << 20,
              1L << 40,
              true,
              "bytes of queued messages in all queues together (bodies, attributes and 256 bytes"
                  + " each for bookkeeping); over it a send gets 503 `SERVER_FULL`. A share of the"
                  + " max heap (`-Xmx`) by default, leaving the rest to work with"));

  public static final Setting<ByteAmount> MAX_QUEUE_BYTES =
      declare(
          Setting.bytes(
              "max-queue-bytes",
              ByteAmount.ofHeapPercent(50),
              1L << 10,
              1L << 40,
              true,
              "bytes of queued messages in one queue, counted as `max-queued-bytes` counts them;"
                  + " over it a send gets 429 `QUEUE_FULL`. Set it lower than `max-queued-bytes`"
                  + " to keep one queue from filling the server"));

  public static final Setting<Integer> DEFAULT_MAX_DEPTH =
      declare(
          Setting.integer(
              "default-max-depth",
              10_000_000,
              1,
              1_000_000_000,
              "the `maxDepth` of a queue whose configuration sets none (its overflow: `reject`)"));

  public static final Setting<Integer> MAX_IN_FLIGHT =
      declare(
          Setting.integer(
              "max-in-flight",
              120_000,
              1,
              100_000_000,
              "messages in flight (received, not yet acked) in one standard queue; at it a receive"
                  + " gets 429 `OVER_LIMIT` (SQS: `OverLimit`), as in Amazon SQS"));

  public static final Setting<Integer> MAX_IN_FLIGHT_FIFO =
      declare(
          Setting.integer(
              "max-in-flight-fifo",
              20_000,
              1,
              100_000_000,
              "the same for a grouped (`.fifo`) queue"));

  public static final Setting<ByteAmount> MAX_ANSWER_BYTES =
      declare(
          Setting.bytes(
              "max-answer-bytes",
              ByteAmount.ofBytes(10L << 20),
              64L << 10,
              1L << 30,
              false,
              "bytes of message bodies and attributes in one answer: a receive returns fewer"
                  + " messages and a browse page ends early (with a cursor) rather than pass it;"
                  + " the default is SQS's largest receive, 10 messages of 1 MiB"));

  public static final Setting<Integer> SHUTDOWN_GRACE_SECONDS =
      declare(
          Setting.integer(
              "shutdown-grace-seconds",
              10,
              0,
              300,
              "how long a stop waits for requests in flight"));

  public static final Setting<Duration> READ_TIMEOUT =
      declare(
          Setting.duration(
              "read-timeout",
              Duration.ofSeconds(30),
              Duration.ofMillis(100),
              Duration.ofHours(1),
              "longest pause while a client sends a request (line, headers or body); then the"
                  + " connection is closed. Never limits how long an answer takes"));

  public static final Setting<Duration> IDLE_TIMEOUT =
      declare(
          Setting.duration(
              "idle-timeout",
              Duration.ofMinutes(5),
              Duration.ofMillis(100),
              Duration.ofHours(24),
              "how long a kept-alive connection may wait for its next request before it is"
                  + " closed"));

  public static final Setting<Integer> MAX_CONNECTIONS =
      declare(
          Setting.integer(
              "max-connections",
              10_000,
              1,
              1_000_000,
              "most open client connections; one more is answered 503 `TOO_MANY_CONNECTIONS`"
                  + " and closed at once"));

  public static final Setting<Integer> MAX_CONNECTIONS_PER_ADDRESS =
      declare(
          Setting.integer(
              "max-connections-per-address",
              2_500,
              1,
              1_000_000,
              "most open connections from one client address (a proxy or NAT is one address);"
                  + " one more is answered 429 `TOO_MANY_CONNECTIONS` and closed at once"));

  public static final Setting<Integer> MAX_LONG_POLLS =
      declare(
          Setting.integer(
              "max-long-polls",
              5_000,
              1,
              1_000_000,
              "most receives waiting for messages at once (native `waitSeconds`, SQS"
                  + " `WaitTimeSeconds`); one more is refused: native 503 `TOO_MANY_LONG_POLLS`,"
                  + " SQS `RequestThrottled`"));

  public static final Setting<Integer> MAX_EVENT_STREAMS =
      declare(
          Setting.integer(
              "max-event-streams",
              2_000,
              1,
              1_000_000,
              "most routing event streams open at once; one more is answered 503"
                  + " `TOO_MANY_EVENT_STREAMS`"));

  public static final Setting<Integer> MAX_EVENT_STREAMS_PER_KEY =
      declare(
          Setting.integer(
              "max-event-streams-per-key",
              500,
              1,
              1_000_000,
              "most routing event streams of one client (its credential's key id once requests"
                  + " are authenticated, else its address); one more is answered 429"
                  + " `TOO_MANY_EVENT_STREAMS`"));

  public static final Setting<Integer> GRPC_PORT =
      declare(
          Setting.integer(
              "grpc-port",
              -1,
              -1,
              65535,
              "TCP port of the gRPC API (docs/api.md#grpc), on the same bind address and TLS as"
                  + " the HTTP API; 0 picks a free port; -1 serves no gRPC"));

  public static final Setting<Integer> GRPC_MAX_CREDIT =
      declare(
          Setting.integer(
              "grpc-max-credit",
              1_000,
              1,
              100_000,
              "most messages one gRPC `Consume` stream may hold leased and unsettled (its"
                  + " credit); a larger credit is refused `INVALID_ARGUMENT`"));

  public static final Setting<Integer> GRPC_MAX_STREAMS_PER_KEY =
      declare(
          Setting.integer(
              "grpc-max-streams-per-key",
              100,
              1,
              1_000_000,
              "most gRPC `Publish` and `Consume` streams open at once for one access key (in"
                  + " keyless mode, one client address); one more is refused"
                  + " `RESOURCE_EXHAUSTED`"));

  public static final Setting<Integer> GRPC_PUBLISH_WINDOW =
      declare(
          Setting.integer(
              "grpc-publish-window",
              64,
              1,
              10_000,
              "most sends of a gRPC `Publish` stream the server reads ahead of its answers (flow"
                  + " control: the client's next sends wait in the network)"));

  public static final Setting<AccessKeys> ACCESS_KEYS =
      declare(
          accessKeys(
              "access-keys",
              "`ID:SECRET[,ID:SECRET...]`: access keys allowed everything (`admin`); with any key"
                  + " configured every request but `/health` and `/openapi.yaml` needs credentials"
                  + " (`docs/security.md`). Prefer the variable: a flag shows in the process list"));

  public static final Setting<AccessKeys> SQS_ACCESS_KEYS =
      declare(
          accessKeys(
              "sqs-access-keys",
              "the old name of `access-keys`, kept as an alias: its keys are added to those"));

  public static final Setting<Path> ACCESS_KEYS_FILE =
      declare(
          Setting.path(
                  "access-keys-file",
                  null,
                  "a YAML or `.properties` file of access keys with their grants"
                      + " (`docs/security.md`); refused if its group or others may read it")
              .defaultDoc("none"));

  public static final Setting<Duration> ACCESS_KEYS_RELOAD_CHECK =
      declare(
          Setting.duration(
              "access-keys-reload-check",
              Duration.ofSeconds(10),
              Duration.ofSeconds(1),
              Duration.ofHours(1),
              "how often `access-keys-file` is checked for changes; a changed file replaces the"
                  + " file's keys, an invalid one is logged and the old keys kept"));

  public static final Setting<Path> INIT =
      declare(
          Setting.path(
                  "init",
                  null,
                  "a YAML file of queues, workspaces, agents and access keys created at start"
                      + " (`switchboard export` writes one): what exists as declared is left alone,"
                      + " what differs is changed as the API would or the start refused, naming it"
                      + " (`docs/deploy.md`, \"Declare your setup\")")
              .defaultDoc("none"));

  public static final Setting<Boolean> METRICS_PUBLIC =
      declare(
          Setting.bool(
              "metrics-public",
              false,
              "serve `/metrics` without credentials even when access keys are configured"));

  public static final Setting<Integer> METRICS_TOP_QUEUES =
      declare(
          Setting.integer(
              "metrics-top-queues",
              100,
              0,
              10_000,
              "how many queues have series of their own on `/metrics`: those holding the most"
                  + " messages (any state) and those with the oldest message, in turn, at the"
                  + " scrape; the totals cover every queue"
                  + " (`docs/operations.md#metrics-of-many-queues`)"));

  public static final Setting<Set<String>> METRICS_QUEUES =
      declare(
          Setting.of(
                  "metrics-queues",
                  names("queue"),
                  Set.of(),
                  "queues that have series of their own on `/metrics` however few messages they"
                      + " hold, besides `metrics-top-queues`: `orders,payments.fifo`")
              .defaultDoc("none"));

  public static final Setting<Integer> METRICS_TOP_WORKSPACES =
      declare(
          Setting.integer(
              "metrics-top-workspaces",
              100,
              0,
              10_000,
              "how many routing workspaces have series of their own on `/metrics`, besides"
                  + " `default`: those with the most contacts waiting at the scrape"));

  public static final Setting<Set<String>> METRICS_WORKSPACES =
      declare(
          Setting.of(
                  "metrics-workspaces",
                  names("workspace"),
                  Set.of(),
                  "workspaces that have series of their own on `/metrics` however few contacts"
                      + " wait in them, besides `metrics-top-workspaces`: `support,sales`")
              .defaultDoc("none"));

  public static final Setting<Boolean> TRACE_PROBES =
      declare(
          Setting.bool(
              "trace-probes",
              false,
              "when tracing is on, make spans of `GET /health` and `GET /metrics` too (left out"
                  + " by default: probes and scrapes every few seconds would bury the requests;"
                  + " `docs/deploy.md#tracing`)"));

  public static final Setting<String> SQS_ACCOUNT_ID =
      declare(
          Setting.of(
              "sqs-account-id",
              Setting.checked(
                  String::trim, id -> new SqsAccount(id, SqsAccount.DEFAULT.defaultRegion())),
              SqsAccount.DEFAULT.id(),
              "12 digits: the account in SQS queue URLs and ARNs; a URL or ARN of another account"
                  + " names no queue (`docs/sqs.md`)"));

  public static final Setting<String> SQS_DEFAULT_REGION =
      declare(
          Setting.of(
              "sqs-default-region",
              Setting.checked(
                  String::trim, region -> new SqsAccount(SqsAccount.DEFAULT.id(), region)),
              SqsAccount.DEFAULT.defaultRegion(),
              "the region of unsigned SQS requests whose host names none; its queues are the native"
                  + " API's queues of the same name, other regions' are kept apart (`docs/sqs.md`)"));

  public static final Setting<String> ROUTING_STRATEGY =
      declare(
          Setting.of(
              "routing-strategy",
              Setting.checked(String::trim, RoutingSettings::strategy),
              "longest-idle",
              "which available agent gets an offer: `longest-idle`, `least-occupied`,"
                  + " `highest:<attribute>`"));

  public static final Setting<Duration> ROUTING_OFFER_TIMEOUT =
      declare(
          Setting.duration(
              "routing-offer-timeout",
              Duration.ofSeconds(30),
              Duration.ofSeconds(1),
              Duration.ofHours(1),
              "how long an offer waits for accept or reject"));

  public static final Setting<Integer> ROUTING_MISS_LIMIT =
      declare(
          Setting.integer(
              "routing-miss-limit",
              3,
              0,
              1000,
              "missed offers in a row that set an agent away; 0 never"));

  public static final Setting<Duration> ROUTING_REST_PERIOD =
      declare(
          Setting.duration(
              "routing-rest-period",
              Duration.ofSeconds(30),
              Duration.ofSeconds(1),
              Duration.ofHours(1),
              "after a reject or a missed offer, how long that contact is not offered to that"
                  + " agent again (the workspace default's; others set their own)"));

  public static final Setting<Set<String>> ROUTING_AUTO_ACCEPT =
      declare(
          Setting.of(
                  "routing-auto-accept",
                  new Setting.Type<Set<String>>() {
                    @Override
                    public Set<String> parse(String text) {
                      return new LinkedHashSet<>(list(text));
                    }

                    @Override
                    public String show(Set<String> channels) {
                      return String.join(",", channels);
                    }
                  },
                  Set.of(),
                  "channels whose offers are accepted at once: `voice,chat`")
              .defaultDoc("none"));

  public static final Setting<Map<String, Duration>> ROUTING_WRAP_UP =
      declare(
          Setting.of(
                  "routing-wrap-up",
                  new Setting.Type<Map<String, Duration>>() {
                    @Override
                    public Map<String, Duration> parse(String text) {
                      Map<String, Duration> out = new LinkedHashMap<>();
                      for (String item : list(text)) {
                        int eq = item.indexOf('=');
                        Duration d = eq < 0 ? null : Setting.parseDuration(item.substring(eq + 1));
                        if (d == null) {
                          throw new Setting.Invalid(
                              "channel=duration pairs separated by commas, such as chat=30s,voice=10s");
                        }
                        out.put(item.substring(0, eq).trim(), d);
                      }
                      return out;
                    }

                    @Override
                    public String show(Map<String, Duration> wrapUp) {
                      StringBuilder b = new StringBuilder();
                      wrapUp.forEach(
                          (channel, d) ->
                              b.append(b.isEmpty() ? "" : ",")
                                  .append(channel)
                                  .append('=')
                                  .append(Setting.showDuration(d)));
                      return b.toString();
                    }
                  },
                  Map.of(),
                  "default wrap-up per channel: `chat=30s,voice=10s` (0..1h each)")
              .defaultDoc("none"));

  public static final Setting<Duration> ROUTING_SERVICE_LEVEL =
      declare(
          Setting.duration(
              "routing-service-level",
              Duration.ofSeconds(20),
              Duration.ofSeconds(1),
              Duration.ofHours(1),
              "\"answered within\" of the service level"));

  public static final Setting<Duration> ROUTING_STATS_WINDOW =
      declare(
          Setting.duration(
              "routing-stats-window",
              Duration.ofMinutes(15),
              Duration.ofMinutes(1),
              Duration.ofHours(24),
              "sliding window of the routing statistics"));

  public static final Setting<Duration> ROUTING_STATS_RETENTION =
      declare(
          Setting.duration(
              "routing-stats-retention",
              Duration.ofDays(35),
              Duration.ofDays(1),
              Duration.ofDays(400),
              "how long the lasting routing statistics keep each 15-minute interval"));

  public static final Setting<Integer> ROUTING_EVENT_HISTORY =
      declare(
          Setting.integer(
              "routing-event-history",
              10_000,
              16,
              1_000_000,
              "routing events kept for resuming clients"));

  public static final Setting<Integer> ROUTING_CONTACT_HISTORY =
      declare(
          Setting.integer(
              "routing-contact-history", 10_000, 0, 1_000_000, "finished contacts kept readable"));

  public static final Setting<String> POSTGRES_URL =
      declare(
          Setting.of(
                  "postgres-url",
                  Setting.checked(
                      String::trim,
                      url -> {
                        if (!url.startsWith("jdbc:postgresql:")) {
                          throw new Setting.Invalid("a JDBC URL starting with jdbc:postgresql:");
                        }
                      }),
                  null,
                  "JDBC URL of a PostgreSQL database shared by several servers"
                      + " (`jdbc:postgresql://db:5432/switchboard`); wins over `in-memory` and"
                      + " `data-dir`")
              .defaultDoc("none (embedded store)"));

  public static final Setting<String> POSTGRES_USER =
      declare(Setting.text("postgres-user", null, "PostgreSQL user"));

  public static final Setting<String> POSTGRES_PASSWORD =
      declare(
          Setting.text(
                  "postgres-password",
                  null,
                  "PostgreSQL password; no flag (a flag shows in the process list): the variable or"
                      + " the config file")
              .secret()
              .withoutFlag());

  public static final Setting<URI> ADVERTISE_URL =
      declare(
          Setting.of(
                  "advertise-url",
                  Settings::advertiseUrl,
                  null,
                  "with `postgres-url` or `dynamodb-table`: where the other servers reach this one with"
                      + " routing calls"
                      + " while it is the routing leader")
              .defaultDoc("`http://<bind>:<port>` (`https` with `tls-cert`)"));

  public static final Setting<Duration> ROUTING_LEASE =
      declare(
          Setting.duration(
              "routing-lease",
              Duration.ofSeconds(5),
              Duration.ofSeconds(1),
              Duration.ofMinutes(5),
              "with `postgres-url` or `dynamodb-table`: the routing leader's lease; a dead leader is"
                  + " replaced within about"
                  + " this long"));

  public static final Setting<String> DYNAMODB_TABLE =
      declare(
          Setting.of(
                  "dynamodb-table",
                  Setting.checked(
                      String::trim,
                      name -> {
                        if (!name.matches("[A-Za-z0-9_.-]{3,255}")) {
                          throw new Setting.Invalid(
                              "a DynamoDB table name: 3..255 of A-Z a-z 0-9 _ - .");
                        }
                      }),
                  null,
                  "Amazon DynamoDB table the queues live in, shared by several servers (made on"
                      + " first start when missing); credentials from the AWS SDK's default chain;"
                      + " wins over `in-memory` and `data-dir` (queues only: routing stays in"
                      + " `data-dir`)")
              .defaultDoc("none (embedded store)"));

  public static final Setting<String> DYNAMODB_REGION =
      declare(
          Setting.text(
                  "dynamodb-region", null, "with `dynamodb-table`: the AWS region (`eu-west-1`)")
              .defaultDoc("none (the AWS SDK's: AWS_REGION, the profile, instance metadata)"));

  public static final Setting<URI> DYNAMODB_ENDPOINT =
      declare(
          Setting.of(
                  "dynamodb-endpoint",
                  Settings::advertiseUrl,
                  null,
                  "with `dynamodb-table`: DynamoDB's URL, for an emulator"
                      + " (`http://127.0.0.1:5000`)")
              .defaultDoc("none (AWS's endpoint of the region)"));

  public static final Setting<Integer> DYNAMODB_SHARD_RATE =
      declare(
          Setting.integer(
              "dynamodb-shard-rate",
              200,
              0,
              100_000,
              "with `dynamodb-table`: sends a second per shard above which a queue's messages are"
                  + " spread over more partition keys (measured over two minutes; 0: never)"));

  public static final Setting<Integer> DYNAMODB_MAX_SHARDS =
      declare(
          Setting.integer(
              "dynamodb-max-shards",
              16,
              1,
              64,
              "with `dynamodb-table`: the most partition keys a busy queue's messages of one"
                  + " priority are spread over (a receive reads every one's head)"));

  /** Every setting, in the order of the docs: the order of the declarations above. */
  public static final List<Setting<?>> ALL = List.copyOf(DECLARED);

  /** Every key, in the order of {@link #ALL}. */
  public static List<String> keys() {
    return ALL.stream().map(Setting::key).toList();
  }

  /** The setting of {@code key}, or null. */
  static @Nullable Setting<?> byKey(String key) {
    for (Setting<?> s : ALL) {
      if (s.key().equals(key)) {
        return s;
      }
    }
    return null;
  }

  /**
   * The table of every setting in {@code docs/server.md} (Markdown): key and flag, variable,
   * default, description.
   */
  public static String markdownTable() {
    StringBuilder b = new StringBuilder();
    b.append("| key / flag | variable | default | |\n|---|---|---|---|\n");
    for (Setting<?> s : ALL) {
      String def = s.defaultText();
      b.append("| `")
          .append(s.hasFlag() ? s.flag() : s.key())
          .append("` | `")
          .append(s.variable())
          .append("` | ")
          .append(def.startsWith("none") || def.startsWith("`") ? def : "`" + def + "`")
          .append(" | ")
          .append(s.description().replace("|", "\\|"))
          .append(" |\n");
    }
    return b.toString();
  }

  private static Setting<AccessKeys> accessKeys(String key, String doc) {
    return Setting.of(
            key,
            new Setting.Type<AccessKeys>() {
              @Override
              public AccessKeys parse(String text) {
                // the message names the entry's position or id, never the secret
                return AccessKeys.parse(text);
              }

              @Override
              public String show(AccessKeys keys) {
                return keys.enabled() ? "ids " + new TreeSet<>(keys.ids()) : "none";
              }
            },
            AccessKeys.none(),
            doc)
        .defaultDoc("none");
  }

  /** A comma-separated set of names, none blank. */
  private static Setting.Type<Set<String>> names(String what) {
    return new Setting.Type<>() {
      @Override
      public Set<String> parse(String text) {
        Set<String> out = new LinkedHashSet<>(list(text));
        if (out.contains("")) {
          throw new Setting.Invalid("comma-separated " + what + " names, none empty");
        }
        return out;
      }

      @Override
      public String show(Set<String> names) {
        return String.join(",", names);
      }
    };
  }

  private static List<String> list(String text) {
    if (text.isBlank()) {
      return List.of();
    }
    return List.of(text.split(",")).stream().map(String::trim).toList();
  }

  /** An origin as a browser sends it: {@code scheme://host[:port]}, lower-cased. */
  private static String origin(String text) {
    URI uri = null;
    try {
      uri = new URI(text);
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
      throw new Setting.Invalid(
          "origins separated by commas, each scheme://host[:port] with nothing after it (such as"
              + " https://app.example.com)");
    }
    return text.toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * An absolute {@code http://} or {@code https://} URL with a host and nothing after the port
   * (other servers append the request's path to it).
   */
  private static URI advertiseUrl(String value) {
    String text = value.trim();
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
      throw new Setting.Invalid(
          "an absolute http:// or https:// URL with a host and an optional port, nothing after it"
              + " (such as http://10.0.0.5:8080)");
    }
    return uri;
  }
}
