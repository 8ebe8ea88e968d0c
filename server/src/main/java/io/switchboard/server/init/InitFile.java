package io.switchboard.server.init;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.switchboard.client.KeyWire;
import io.switchboard.client.PushWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.RoutingWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.client.wire.WorkflowWire;
import io.switchboard.client.wire.WorkspaceWire;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueInfo;
import io.switchboard.routing.Agent;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.Presence;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.Workspaces;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.security.AccessKeyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The declarative setup of {@code --init FILE} and {@code switchboard export}: queues, workspaces
 * (activities, task queues, agents) and access keys in one YAML document ({@code docs/deploy.md},
 * "Declare your setup").
 *
 * <p>The document is bound with Jackson; each queue, workspace, task queue and agent entry is the
 * native API's JSON for the same thing ({@code docs/api.md}), read by the API's own readers ({@link
 * WireFormat}, {@link WorkspaceWire}, {@link RoutingWire}): one set of field names, ranges and
 * error messages for the API, the file and the export. A field the reader does not know is refused,
 * naming the known ones.
 *
 * <p>Secrets may be given by reference, {@code secret: ${ENV:NAME}}, read from the environment at
 * start; a secret is never shown in an error or the log.
 */
public final class InitFile {

  private static final YAMLMapper YAML =
      YAMLMapper.builder(
              YAMLFactory.builder()
                  .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                  .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                  .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final Pattern ENV_REFERENCE =
      Pattern.compile("\\$\\{ENV:([A-Za-z_][A-Za-z0-9_]*)}");

  private InitFile() {}

  /** The document's top level: each section maps names to entries. */
  record Document(
      @Nullable Map<String, JsonNode> queues,
      @Nullable Map<String, JsonNode> workspaces,
      @Nullable Map<String, KeySpec> keys,
      @Nullable Map<String, Map<String, JsonNode>> subscriptions) {}

  /**
   * A workspace entry: the fields of {@code POST /v1/workspaces} and its task queues and agents.
   */
  record WorkspaceSpec(
      @Nullable String strategy,
      @Nullable Long offerTimeoutSeconds,
      @Nullable JsonNode wrapUpSeconds,
      @Nullable Long serviceLevelThresholdSeconds,
      @Nullable String defaultActivity,
      @Nullable Integer missLimit,
      @Nullable List<String> autoAccept,
      @Nullable Long statsWindowSeconds,
      @Nullable Long restPeriodSeconds,
      @Nullable String rejectActivity,
      @Nullable String timeoutActivity,
      @Nullable List<JsonNode> activities,
      @Nullable Map<String, JsonNode> taskQueues,
      @Nullable Map<String, JsonNode> workflows,
      @Nullable Map<String, AgentSpec> agents) {}

  /** An agent entry: its attributes, capacity per channel, and the activity it starts in. */
  record AgentSpec(
      @Nullable JsonNode attributes,
      @Nullable Map<String, Integer> capacity,
      @Nullable String activity) {}

  /** An access key entry, keyed by its id; {@code secret} is needed only to create it. */
  record KeySpec(
      @Nullable String name,
      @Json.Required List<KeyWire.Grant> grants,
      @Nullable String agent,
      @Nullable String account) {}

  /** A queue as declared; {@code metadataGiven} false leaves the queue's metadata as it is. */
  record DeclaredQueue(String name, QueueConfig config, boolean metadataGiven) {}

  /** An agent as declared, with the activity it is created in (empty: the workspace's default). */
  record DeclaredAgent(NewAgent agent, Optional<String> activity) {}

  /**
   * A workspace as declared: its definition (settings and activities; empty for {@code default},
   * whose are the server's), task queues, workflows and agents.
   */
  public record DeclaredWorkspace(
      String name,
      Optional<WorkspaceDefinition> definition,
      List<TaskQueue> taskQueues,
      List<Workflow> workflows,
      List<DeclaredAgent> agents) {}

  /** An access key as declared; the secret is resolved, never shown ({@link #toString}). */
  record DeclaredKey(
      String id,
      Optional<String> secret,
      Optional<String> name,
      List<KeyWire.Grant> grants,
      Optional<String> agent,
      Optional<String> account) {
    @Override
    public String toString() {
      return "DeclaredKey[" + id + ", secret hidden]";
    }
  }

  /**
   * A push subscription as declared, by queue: the native API's body ({@code secret} taken out) and
   * the secret the file gives, resolved and never shown ({@link #toString}); empty, the server
   * makes one when it creates the subscription.
   */
  public record DeclaredSubscription(
      String queue, PushWire.Subscription subscription, Optional<String> secret) {
    @Override
    public String toString() {
      return "DeclaredSubscription[" + queue + "/" + subscription.name() + ", secret hidden]";
    }
  }

  /**
   * A whole file, checked: queues in dependency order (a dead-letter target before its sources).
   */
  public record Setup(
      List<DeclaredQueue> queues,
      List<DeclaredWorkspace> workspaces,
      List<DeclaredKey> keys,
      List<DeclaredSubscription> subscriptions) {

    public Setup(
        List<DeclaredQueue> queues, List<DeclaredWorkspace> workspaces, List<DeclaredKey> keys) {
      this(queues, workspaces, keys, List.of());
    }

    /** The names of the queues the file declares. */
    public Set<String> queueNames() {
      Set<String> names = new HashSet<>();
      queues.forEach(q -> names.add(q.name()));
      return names;
    }
  }

  /** The file could not be used; the message names the file, the entry and what is wrong. */
  private static StartupException invalid(Path file, String message, Throwable cause) {
    return new StartupException("init file " + file + ": " + message, cause);
  }

  /**
   * Reads and checks {@code file}; {@code env} resolves {@code ${ENV:NAME}} references.
   *
   * @throws StartupException naming the file, the entry and what is wrong; nothing has been applied
   */
  public static Setup read(Path file, Function<String, String> env) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readAllBytes(file));
    } catch (JsonProcessingException e) {
      throw invalid(file, "not valid YAML: " + yamlProblem(e), e);
    } catch (IOException e) {
      throw invalid(file, "cannot read it: " + e.getMessage(), e);
    }
    try {
      return parse(root, env);
    } catch (RuntimeException e) {
      // WireFormatException, QueueException, RoutingException, IllegalArgumentException: each
      // message names the entry (the readers were told where they read)
      throw invalid(file, String.valueOf(e.getMessage()), e);
    }
  }

  /**
   * What is wrong and where, without the parser's excerpt of the line: the line may hold a secret.
   */
  private static String yamlProblem(JsonProcessingException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.yaml.snakeyaml.error.MarkedYAMLException y
          && y.getProblemMark() != null) {
        return y.getProblem()
            + " at line "
            + (y.getProblemMark().getLine() + 1)
            + ", column "
            + (y.getProblemMark().getColumn() + 1);
      }
    }
    String where =
        e.getLocation() == null
            ? ""
            : " at line "
                + e.getLocation().getLineNr()
                + ", column "
                + e.getLocation().getColumnNr();
    return e.getOriginalMessage() + where;
  }

  static Setup parse(JsonNode root, Function<String, String> env) {
    if (root == null || root.isMissingNode() || root.isNull()) {
      return new Setup(List.of(), List.of(), List.of());
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(
          "the document must be a mapping of queues, workspaces and keys, got "
              + JsonFields.typeName(root));
    }
    root = root.deepCopy(); // the secrets are taken out of it
    emptyEntries((ObjectNode) root);
    Map<String, JsonNode> secrets = takeSecrets((ObjectNode) root);
    Map<String, JsonNode> subscriptionSecrets = takeSubscriptionSecrets((ObjectNode) root);
    Document doc = Json.strict(root, "the document", Document.class);
    Map<String, DeclaredQueue> queues = new LinkedHashMap<>();
    map(doc.queues()).forEach((name, node) -> queues.put(name, queue(name, node)));
    List<DeclaredWorkspace> workspaces = new ArrayList<>();
    map(doc.workspaces()).forEach((name, node) -> workspaces.add(workspace(name, node)));
    List<DeclaredKey> keys = new ArrayList<>();
    map(doc.keys()).forEach((id, spec) -> keys.add(key(id, spec, secrets.get(id), env)));
    List<DeclaredSubscription> subscriptions = new ArrayList<>();
    map(doc.subscriptions())
        .forEach(
            (queue, byName) ->
                map(byName)
                    .forEach(
                        (name, node) ->
                            subscriptions.add(
                                subscription(
                                    queue,
                                    name,
                                    node,
                                    subscriptionSecrets.get(queue + "/" + name),
                                    env))));
    return new Setup(dependencyOrder(queues), workspaces, keys, subscriptions);
  }

  /** {@code orders:} with nothing after it is {@code orders: {}}, in every section. */
  private static void emptyEntries(ObjectNode root) {
    for (String section : List.of("queues", "workspaces", "keys", "subscriptions")) {
      if (root.get(section) instanceof ObjectNode entries) {
        entries
            .properties()
            .forEach(
                e -> {
                  if (e.getValue().isNull()) {
                    e.setValue(WireFormat.object());
                  }
                });
      }
    }
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /**
   * Removes each key's {@code secret} from the tree, so that no reader's error message can show it;
   * {@link #secret} checks it with messages that never do.
   */
  private static Map<String, JsonNode> takeSecrets(ObjectNode root) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    if (root.get("keys") instanceof ObjectNode keys) {
      keys.properties()
          .forEach(
              e -> {
                if (e.getValue() instanceof ObjectNode key && key.has("secret")) {
                  out.put(e.getKey(), key.remove("secret"));
                }
              });
    }
    return out;
  }

  /** The same for each subscription's {@code secret}, by {@code queue/name}. */
  private static Map<String, JsonNode> takeSubscriptionSecrets(ObjectNode root) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    if (root.get("subscriptions") instanceof ObjectNode queues) {
      queues
          .properties()
          .forEach(
              q -> {
                if (q.getValue() instanceof ObjectNode byName) {
                  byName
                      .properties()
                      .forEach(
                          e -> {
                            if (e.getValue() instanceof ObjectNode sub && sub.has("secret")) {
                              out.put(q.getKey() + "/" + e.getKey(), sub.remove("secret"));
                            }
                          });
                }
              });
    }
    return out;
  }

  /**
   * A subscription entry: the body of {@code POST /v1/queues/{queue}/subscriptions} without its
   * {@code name} (the entry's key) and {@code queue} (the section's key), bound strictly; the
   * server checks its settings and URL before anything of the file is applied.
   */
  private static DeclaredSubscription subscription(
      String queue,
      String name,
      JsonNode node,
      @Nullable JsonNode secretNode,
      Function<String, String> env) {
    String where = "subscription '" + name + "' of queue '" + queue + "'";
    if (!node.isObject()) {
      throw new IllegalArgumentException(
          where + " must be a mapping of its settings, got " + JsonFields.typeName(node));
    }
    for (String fixed : List.of("name", "queue", "createdAt")) {
      if (node.has(fixed)) {
        throw new IllegalArgumentException(
            where
                + ": '"
                + fixed
                + "' is not a setting of the file's entry (the name is the entry's key, the"
                + " queue the section's, the creation time the server's)");
      }
    }
    ObjectNode body = ((ObjectNode) node).deepCopy();
    body.put("name", name);
    PushWire.Subscription w = Json.strict(body, where, PushWire.Subscription.class);
    if (w.headers() != null) {
      // header values are often credentials: given by reference like secrets, never shown
      Map<String, String> headers = new LinkedHashMap<>();
      w.headers()
          .forEach(
              (header, value) ->
                  headers.put(header, secret(where + ", header '" + header + "',", value, env)));
      w = w.withHeaders(headers);
    }
    Optional<String> secret = Optional.empty();
    if (secretNode != null && !secretNode.isNull()) {
      if (!secretNode.isTextual()) {
        throw new IllegalArgumentException(
            where
                + ": its secret must be a string (quote it), got "
                + JsonFields.typeName(secretNode));
      }
      secret = Optional.of(secret(where, secretNode.textValue(), env));
    }
    return new DeclaredSubscription(queue, w, secret);
  }

  private static <V> Map<String, V> map(@Nullable Map<String, V> m) {
    return m == null ? Map.of() : m;
  }

  private static DeclaredQueue queue(String name, JsonNode node) {
    String where = "queue '" + name + "'";
    if (!node.isObject()) {
      throw new IllegalArgumentException(
          where + " must be a mapping of its configuration, got " + JsonFields.typeName(node));
    }
    JsonFields f = JsonFields.strict(node, where);
    QueueConfig config;
    try {
      config = WireFormat.config(f, QueueConfig.defaults());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
    f.finish();
    return new DeclaredQueue(name, config, node.has("metadata"));
  }

  /** Dead-letter targets declared in the file come before the queues that name them. */
  private static List<DeclaredQueue> dependencyOrder(Map<String, DeclaredQueue> queues) {
    List<DeclaredQueue> out = new ArrayList<>();
    Set<String> done = new HashSet<>();
    for (String name : queues.keySet()) {
      visit(name, queues, done, new ArrayList<>(), out);
    }
    return out;
  }

  private static void visit(
      String name,
      Map<String, DeclaredQueue> queues,
      Set<String> done,
      List<String> path,
      List<DeclaredQueue> out) {
    DeclaredQueue q = queues.get(name);
    if (q == null || done.contains(name)) {
      return; // a target the file does not declare must exist on the server
    }
    if (path.contains(name)) {
      List<String> cycle = new ArrayList<>(path.subList(path.indexOf(name), path.size()));
      cycle.add(name);
      throw new IllegalArgumentException(
          "the queues' dead-letter targets form a cycle: " + String.join(" -> ", cycle));
    }
    path.add(name);
    q.config().deadLetter().ifPresent(d -> visit(d.target(), queues, done, path, out));
    path.remove(path.size() - 1);
    done.add(name);
    out.add(q);
  }

  private static DeclaredWorkspace workspace(String name, JsonNode node) {
    String where = "workspace '" + name + "'";
    WorkspaceSpec spec = Json.strict(node, where, WorkspaceSpec.class);
    ObjectNode definition = ((ObjectNode) node).deepCopy();
    definition.remove("taskQueues");
    definition.remove("workflows");
    definition.remove("agents");
    Optional<WorkspaceDefinition> d;
    if (name.equals(Workspaces.DEFAULT)) {
      if (!definition.isEmpty()) {
        throw new IllegalArgumentException(
            where
                + " takes only taskQueues, workflows and agents: its settings are the server's"
                + " routing-*"
                + " settings and its activities are fixed; got "
                + String.join(", ", fieldNames(definition)));
      }
      d = Optional.empty();
    } else {
      definition.put("name", name);
      try {
        d = Optional.of(WorkspaceWire.create(JsonFields.strict(definition, where)));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
    }
    List<TaskQueue> taskQueues = new ArrayList<>();
    map(spec.taskQueues())
        .forEach(
            (queue, q) -> {
              String qWhere = "task queue '" + queue + "' of " + where;
              JsonNode body = q.isNull() ? WireFormat.object() : q;
              try {
                taskQueues.add(WorkspaceWire.queue(JsonFields.strict(body, qWhere), queue));
              } catch (RuntimeException e) {
                throw new IllegalArgumentException(qWhere + ": " + e.getMessage(), e);
              }
            });
    List<Workflow> workflows = new ArrayList<>();
    map(spec.workflows())
        .forEach(
            (workflow, body) -> {
              String wWhere = "workflow '" + workflow + "' of " + where;
              try {
                workflows.add(
                    Json.strict(body, wWhere, WorkflowWire.WorkflowBody.class)
                        .toWorkflow(workflow));
              } catch (RuntimeException e) {
                throw new IllegalArgumentException(wWhere + ": " + e.getMessage(), e);
              }
            });
    List<DeclaredAgent> agents = new ArrayList<>();
    map(spec.agents())
        .forEach(
            (id, a) -> {
              String aWhere = "agent '" + id + "' of " + where;
              AgentSpec s = a == null ? new AgentSpec(null, null, null) : a;
              try {
                NewAgent agent =
                    new NewAgent(
                        id,
                        RoutingWire.attributes(s.attributes(), "attributes"),
                        s.capacity() == null ? Map.of() : s.capacity(),
                        Presence.offline());
                agents.add(new DeclaredAgent(agent, Optional.ofNullable(s.activity())));
              } catch (RuntimeException e) {
                throw new IllegalArgumentException(aWhere + ": " + e.getMessage(), e);
              }
            });
    return new DeclaredWorkspace(name, d, taskQueues, workflows, agents);
  }

  private static DeclaredKey key(
      String id, KeySpec spec, @Nullable JsonNode secretNode, Function<String, String> env) {
    String where = "key '" + id + "'";
    Optional<String> secret = Optional.empty();
    if (secretNode != null && !secretNode.isNull()) {
      if (!secretNode.isTextual()) {
        throw new IllegalArgumentException(
            where
                + ": its secret must be a string (quote it), got "
                + JsonFields.typeName(secretNode));
      }
      secret = Optional.of(secret(where, secretNode.textValue(), env));
    }
    try {
      // the checks of POST /v1/keys (name, grants, agent, account) ...
      AccessKeyStore.newKey(
          Optional.ofNullable(spec.name()),
          spec.grants(),
          Optional.ofNullable(spec.agent()),
          Optional.ofNullable(spec.account()),
          Instant.EPOCH);
      // ... and those of a key's id (and routing:agent needing an agent)
      new Principal(id, "unused", Optional.empty(), List.of(), Optional.ofNullable(spec.agent()));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
    return new DeclaredKey(
        id,
        secret,
        Optional.ofNullable(spec.name()),
        List.copyOf(spec.grants()),
        Optional.ofNullable(spec.agent()),
        Optional.ofNullable(spec.account()));
  }

  /** A literal secret, or {@code ${ENV:NAME}} read from the environment. */
  private static String secret(String where, String text, Function<String, String> env) {
    Matcher m = ENV_REFERENCE.matcher(text);
    if (m.matches()) {
      String value = env.apply(m.group(1));
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException(
            where
                + ": its secret names the environment variable "
                + m.group(1)
                + ", which is not set");
      }
      return value;
    }
    if (text.startsWith("${")) {
      throw new IllegalArgumentException(
          where + ": a secret by reference is written ${ENV:NAME}, with NAME of [A-Za-z0-9_]");
    }
    if (text.isEmpty()) {
      throw new IllegalArgumentException(where + ": the secret is empty");
    }
    return text;
  }

  // ---- export ------------------------------------------------------------------------------

  /**
   * The YAML of the setup of the server {@code client} talks to ({@code switchboard export}): its
   * queues, workspaces with their task queues, workflows and agents, and run-time access keys, read
   * over the API with the client's credentials (which need {@code admin} for the keys).
   */
  public static String export(SwitchboardClient client) {
    List<WorkspaceDefinition> workspaces = new ArrayList<>();
    for (WorkspaceDefinition d : client.workspaces().list()) {
      WorkspaceDefinition with = d;
      // a workspace's answer lists no workflows: they have routes of their own
      for (Workflow f : client.workspaces().workflows(d.name())) {
        with = with.withWorkflow(f);
      }
      workspaces.add(with);
    }
    Map<String, List<Agent>> agents = new LinkedHashMap<>();
    for (WorkspaceDefinition d : workspaces) {
      agents.put(
          d.name(),
          d.name().equals(Workspaces.DEFAULT)
              ? client.routing().agents()
              : client.workspace(d.name()).agents());
    }
    List<QueueInfo> queues = client.listQueues("");
    Map<String, List<PushWire.Subscription>> subscriptions = new LinkedHashMap<>();
    for (QueueInfo q : queues) {
      List<PushWire.Subscription> of = client.listSubscriptions(q.name());
      if (!of.isEmpty()) {
        subscriptions.put(q.name(), of);
      }
    }
    return export(queues, workspaces, agents, client.listKeys(), subscriptions);
  }

  /**
   * The YAML of a server's setup, as {@code switchboard export} writes it and {@code --init} reads
   * it: queue fields that are their default are left out, keys are written without secrets (and
   * keys of the server's configuration, which have no creation time, not at all).
   *
   * @param agents each workspace's agents, by workspace name (absent: none)
   */
  public static String export(
      List<QueueInfo> queues,
      List<WorkspaceDefinition> workspaces,
      Map<String, List<Agent>> agents,
      List<KeyWire.AccessKey> keys) {
    return export(queues, workspaces, agents, keys, Map.of());
  }

  /**
   * The same with each queue's push subscriptions, written without secrets (a server the file is
   * given to makes new ones unless the file is edited to give them, e.g. {@code ${ENV:NAME}}).
   *
   * @param subscriptions each queue's subscriptions, by queue name
   */
  public static String export(
      List<QueueInfo> queues,
      List<WorkspaceDefinition> workspaces,
      Map<String, List<Agent>> agents,
      List<KeyWire.AccessKey> keys,
      Map<String, List<PushWire.Subscription>> subscriptions) {
    ObjectNode root = WireFormat.object();
    ObjectNode defaults = WireFormat.config(QueueConfig.defaults());
    if (!queues.isEmpty()) {
      ObjectNode qs = root.putObject("queues");
      for (QueueInfo q : queues.stream().sorted((a, b) -> a.name().compareTo(b.name())).toList()) {
        ObjectNode config = WireFormat.config(q.config());
        withoutDefaults(config, defaults);
        qs.set(q.name(), config);
      }
    }
    ObjectNode ws = WireFormat.object();
    for (WorkspaceDefinition d : workspaces) {
      ObjectNode w = WorkspaceWire.workspace(d);
      w.remove("name");
      ObjectNode taskQueues = WireFormat.object();
      if (w.remove("taskQueues") instanceof com.fasterxml.jackson.databind.node.ArrayNode list) {
        for (JsonNode q : list) {
          ObjectNode entry = ((ObjectNode) q).deepCopy();
          String name = entry.remove("name").textValue();
          if (entry.path("order").asText().equals("fifo")) {
            entry.remove("order");
          }
          taskQueues.set(name, entry);
        }
      }
      if (d.name().equals(Workspaces.DEFAULT)) {
        w.removeAll(); // the server's settings and the fixed activities
      }
      w.remove("workflows");
      if (!taskQueues.isEmpty()) {
        w.set("taskQueues", taskQueues);
      }
      if (!d.workflows().isEmpty()) {
        ObjectNode workflows = w.putObject("workflows");
        for (Workflow f : d.workflows()) {
          ObjectNode entry = Json.tree(WorkflowWire.WorkflowBody.of(f));
          entry.remove("name");
          workflows.set(f.name(), entry);
        }
      }
      ObjectNode as = WireFormat.object();
      for (Agent a : agents.getOrDefault(d.name(), List.of())) {
        ObjectNode entry = as.putObject(a.id());
        if (!a.attributes().isEmpty()) {
          entry.set("attributes", RoutingWire.attributes(a.attributes()));
        }
        if (!a.capacity().isEmpty()) {
          ObjectNode capacity = entry.putObject("capacity");
          new TreeMap<>(a.capacity()).forEach(capacity::put);
        }
        entry.put("activity", a.activity()); // a new server would put it in the default one
      }
      if (!as.isEmpty()) {
        w.set("agents", as);
      }
      if (!w.isEmpty() || !d.name().equals(Workspaces.DEFAULT)) {
        ws.set(d.name(), w);
      }
    }
    if (!ws.isEmpty()) {
      root.set("workspaces", ws);
    }
    ObjectNode ks = WireFormat.object();
    for (KeyWire.AccessKey k : keys) {
      if (k.createdAt() == null) {
        continue; // a key of the server's configuration: declared there
      }
      ObjectNode entry = ks.putObject(k.accessKeyId());
      if (k.name() != null) {
        entry.put("name", k.name());
      }
      entry.set("grants", Json.STRICT.valueToTree(k.grants()));
      if (k.agent() != null) {
        entry.put("agent", k.agent());
      }
      if (k.account() != null) {
        entry.put("account", k.account());
      }
    }
    if (!ks.isEmpty()) {
      root.set("keys", ks);
    }
    ObjectNode subs = WireFormat.object();
    new TreeMap<>(subscriptions)
        .forEach(
            (queue, list) -> {
              ObjectNode byName = WireFormat.object();
              for (PushWire.Subscription w :
                  list.stream().sorted((a, b) -> a.name().compareTo(b.name())).toList()) {
                ObjectNode entry = Json.tree(w.withoutSecret());
                entry.remove(List.of("name", "queue", "createdAt", "secret", "headers"));
                if (w.headers() != null && !w.headers().isEmpty()) {
                  // the values are not shown by the API: each becomes a reference to fill in
                  ObjectNode headers = entry.putObject("headers");
                  new TreeMap<>(w.headers())
                      .keySet()
                      .forEach(
                          h -> headers.put(h, "${ENV:" + headerVariable(queue, w.name(), h) + "}"));
                }
                byName.set(w.name(), entry);
              }
              if (!byName.isEmpty()) {
                subs.set(queue, byName);
              }
            });
    if (!subs.isEmpty()) {
      root.set("subscriptions", subs);
    }
    try {
      return root.isEmpty() ? "{}\n" : YAML.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write YAML", e);
    }
  }

  /**
   * The environment variable an exported subscription header refers to: {@code
   * SWITCHBOARD_HEADER_<QUEUE>_<SUBSCRIPTION>_<HEADER>}, upper case, every other character than a
   * letter or digit as {@code _}.
   */
  static String headerVariable(String queue, String subscription, String header) {
    return ("SWITCHBOARD_HEADER_" + queue + "_" + subscription + "_" + header)
        .toUpperCase(java.util.Locale.ROOT)
        .replaceAll("[^A-Z0-9_]", "_");
  }

  private static void withoutDefaults(ObjectNode config, ObjectNode defaults) {
    List<String> same = new ArrayList<>();
    config
        .properties()
        .forEach(
            e -> {
              if (e.getValue().equals(defaults.get(e.getKey()))) {
                same.add(e.getKey());
              }
            });
    config.remove(same);
  }
}
