package io.switchboard.server.init;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.KeyWire;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.RoutingWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.client.wire.WorkflowWire;
import io.switchboard.client.wire.WorkspaceWire;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Agent;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.Workspaces;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.security.AccessKeyStore;
import io.switchboard.server.security.DurableKeyRing;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies an {@link InitFile.Setup} at start, idempotently: what exists as declared is left alone
 * (nothing is written), what is missing is created, and a queue, workspace or agent declared
 * otherwise than it is is changed as the API would change it, each change logged with its old and
 * new value. What cannot be changed stops the start with a message naming the entry, the field, the
 * old and the new value. Nothing the file does not name is touched (nothing is deleted).
 */
public final class Init {

  private static final Logger LOG = LoggerFactory.getLogger(Init.class);

  private final Path file;
  private int created;
  private int changed;

  private Init(Path file) {
    this.file = file;
  }

  /**
   * Applies {@code setup} read from {@code file}.
   *
   * @param workspaces the server's workspaces; empty where they are the routing leader's (over
   *     PostgreSQL): the file's workspaces are left to {@link #applyWorkspaces}, which the routing
   *     leader runs ({@link io.switchboard.server.cluster.ClusterRouting#init})
   * @throws StartupException naming the file, the entry and what could not be done
   */
  public static void apply(
      Path file,
      InitFile.Setup setup,
      QueueEngine engine,
      Optional<Workspaces> workspaces,
      KeyRing keys,
      DurableKeyRing durable) {
    Init init = new Init(file);
    setup.queues().forEach(q -> init.queue(engine, q));
    workspaces.ifPresent(all -> setup.workspaces().forEach(w -> init.workspace(all, w)));
    setup.keys().forEach(k -> init.key(keys, durable, k));
    init.applied("init file applied");
  }

  /**
   * Applies the workspaces of {@code setup} only, as {@link #apply} does: on servers sharing a
   * PostgreSQL database, the routing leader runs it over its workspaces when it takes the lease.
   *
   * @throws StartupException naming the file, the entry and what could not be done
   */
  public static void applyWorkspaces(Path file, InitFile.Setup setup, Workspaces all) {
    Init init = new Init(file);
    setup.workspaces().forEach(w -> init.workspace(all, w));
    init.applied("init file's workspaces applied by the routing leader");
  }

  private void applied(String what) {
    LOG.atInfo()
        .addKeyValue("file", file)
        .addKeyValue("created", created)
        .addKeyValue("changed", changed)
        .log(what);
  }

  private StartupException refused(String message) {
    return new StartupException("init file " + file + ": " + message);
  }

  // ---- queues ------------------------------------------------------------------------------

  private void queue(QueueEngine engine, InitFile.DeclaredQueue q) {
    Optional<QueueInfo> existing;
    try {
      existing = Optional.of(engine.queue(q.name()));
    } catch (QueueException e) {
      if (e.code() != ErrorCode.QUEUE_NOT_FOUND) {
        throw e;
      }
      existing = Optional.empty();
    }
    if (existing.isEmpty()) {
      try {
        engine.ensureQueue(q.name(), q.config());
      } catch (QueueException e) {
        throw refused("queue '" + q.name() + "' cannot be created: " + e.getMessage());
      }
      created++;
      LOG.atInfo().addKeyValue("queue", q.name()).log("init: queue created");
      return;
    }
    QueueConfig current = existing.get().config();
    QueueConfig wanted =
        q.metadataGiven()
            ? q.config()
            : q.config().toBuilder().metadata(current.metadata()).build();
    if (wanted.equals(current)) {
      return;
    }
    List<String> changes = differences(WireFormat.config(current), WireFormat.config(wanted));
    try {
      engine.updateQueue(q.name(), c -> wanted);
    } catch (QueueException e) {
      throw refused(
          "queue '"
              + q.name()
              + "' cannot be changed ("
              + String.join("; ", changes)
              + "): "
              + e.getMessage());
    }
    changed++;
    LOG.atInfo()
        .addKeyValue("queue", q.name())
        .addKeyValue("changes", String.join("; ", changes))
        .log("init: queue changed");
  }

  /** {@code field from OLD to NEW} for each field of the two objects that differs. */
  static List<String> differences(ObjectNode old, ObjectNode now) {
    List<String> out = new ArrayList<>();
    Set<String> fields = new LinkedHashSet<>();
    old.fieldNames().forEachRemaining(fields::add);
    now.fieldNames().forEachRemaining(fields::add);
    for (String field : fields) {
      JsonNode a = old.get(field);
      JsonNode b = now.get(field);
      if (!Objects.equals(a, b)) {
        out.add(field + " from " + (a == null ? "none" : a) + " to " + (b == null ? "none" : b));
      }
    }
    return out;
  }

  // ---- workspaces --------------------------------------------------------------------------

  private void workspace(Workspaces all, InitFile.DeclaredWorkspace w) {
    String where = "workspace '" + w.name() + "'";
    Workspace ws;
    Optional<Workspace> existing = find(all, w.name());
    if (existing.isEmpty()) {
      ws = routing(where + " cannot be created", () -> all.create(w.definition().orElseThrow()));
      created++;
      LOG.atInfo().addKeyValue("workspace", w.name()).log("init: workspace created");
    } else {
      ws = existing.get();
      if (w.definition().isPresent()) {
        WorkspaceDefinition wanted = w.definition().get();
        WorkspaceDefinition current = ws.definition();
        for (Activity a : wanted.activities()) {
          Optional<Activity> had = current.activity(a.name());
          if (had.isEmpty() || !had.get().equals(a)) {
            routing(
                where + ": activity '" + a.name() + "' cannot be set (" + a + ")",
                () -> ws.putActivity(a));
            change(where, "activity " + a.name() + " from " + had.orElse(null) + " to " + a);
          }
        }
        if (!wanted.settings().equals(ws.definition().settings())) {
          ObjectNode old = settingsNode(ws.definition());
          ObjectNode now = settingsNode(wanted);
          String diff = String.join("; ", differences(old, now));
          routing(
              where + ": its settings cannot be changed (" + diff + ")",
              () -> ws.configure(wanted.settings()));
          change(where, diff);
        }
      }
    }
    for (TaskQueue q : w.taskQueues()) {
      Optional<TaskQueue> had = ws.definition().queue(q.name());
      if (had.isEmpty() || !had.get().equals(q)) {
        routing(where + ": task queue '" + q.name() + "' cannot be set", () -> ws.putQueue(q));
        if (had.isEmpty()) {
          created++;
        } else {
          change(
              where,
              "task queue "
                  + q.name()
                  + ": "
                  + String.join(
                      "; ", differences(WorkspaceWire.queue(had.get()), WorkspaceWire.queue(q))));
        }
      }
    }
    for (Workflow f : w.workflows()) {
      Optional<Workflow> had = ws.definition().workflow(f.name());
      if (had.isEmpty() || !had.get().equals(f)) {
        routing(where + ": workflow '" + f.name() + "' cannot be set", () -> ws.putWorkflow(f));
        if (had.isEmpty()) {
          created++;
        } else {
          change(
              where,
              "workflow "
                  + f.name()
                  + ": "
                  + String.join(
                      "; ",
                      differences(
                          Json.tree(WorkflowWire.WorkflowBody.of(had.get())),
                          Json.tree(WorkflowWire.WorkflowBody.of(f)))));
        }
      }
    }
    for (InitFile.DeclaredAgent a : w.agents()) {
      agent(ws, where, a);
    }
  }

  private static ObjectNode settingsNode(WorkspaceDefinition d) {
    ObjectNode o = WorkspaceWire.workspace(d);
    o.remove(List.of("name", "activities", "taskQueues", "workflows"));
    return o;
  }

  private static Optional<Workspace> find(Workspaces all, String name) {
    try {
      return Optional.of(all.get(name));
    } catch (RoutingException e) {
      if (e.code() != RoutingErrorCode.WORKSPACE_NOT_FOUND) {
        throw e;
      }
      return Optional.empty();
    }
  }

  /** Agents are created as declared; attributes and capacity are changed, the activity is not. */
  private void agent(Workspace ws, String where, InitFile.DeclaredAgent a) {
    String id = a.agent().id();
    Optional<Agent> had;
    try {
      had = Optional.of(ws.router().agent(id));
    } catch (RoutingException e) {
      if (e.code() != RoutingErrorCode.AGENT_NOT_FOUND) {
        throw e;
      }
      had = Optional.empty();
    }
    if (had.isEmpty()) {
      routing(
          where + ": agent '" + id + "' cannot be created",
          () -> ws.createAgent(a.agent(), a.activity()));
      created++;
      return;
    }
    Agent agent = had.get();
    JsonNode oldAttributes = RoutingWire.attributes(agent.attributes());
    JsonNode newAttributes = RoutingWire.attributes(a.agent().attributes());
    if (!oldAttributes.equals(newAttributes)) {
      routing(
          where + ": agent '" + id + "' attributes cannot be changed",
          () -> ws.router().updateAttributes(id, a.agent().attributes()));
      change(where, "agent " + id + " attributes from " + oldAttributes + " to " + newAttributes);
    }
    if (!agent.capacity().equals(a.agent().capacity())) {
      routing(
          where + ": agent '" + id + "' capacity cannot be changed",
          () -> ws.router().updateCapacity(id, a.agent().capacity()));
      change(
          where,
          "agent "
              + id
              + " capacity from "
              + new TreeMap<>(agent.capacity())
              + " to "
              + new TreeMap<>(a.agent().capacity()));
    }
  }

  private void change(String where, String what) {
    changed++;
    LOG.atInfo().addKeyValue("entry", where).addKeyValue("change", what).log("init: changed");
  }

  private <T> T routing(String what, Supplier<T> call) {
    try {
      return call.get();
    } catch (RoutingException | QueueException e) {
      throw refused(what + ": " + e.getMessage());
    }
  }

  // ---- keys --------------------------------------------------------------------------------

  private void key(KeyRing keys, DurableKeyRing durable, InitFile.DeclaredKey k) {
    String where = "key '" + k.id() + "'";
    if (durable.configured(k.id())) {
      throw refused(
          where
              + " is configured by access-keys or access-keys-file; declare it in one place only");
    }
    AccessKeyStore store =
        durable
            .store()
            .orElseThrow(() -> refused(where + ": this server's engine keeps no access keys"));
    Optional<AccessKeyStore.StoredKey> had = store.find(k.id());
    if (had.isEmpty()) {
      String secret =
          k.secret()
              .orElseThrow(
                  () ->
                      refused(
                          where
                              + " does not exist and the file gives no secret: add secret:"
                              + " ${ENV:NAME} (or the secret itself)"));
      keys.put(stored(k, secret).principal());
      created++;
      LOG.atInfo().addKeyValue("key", k.id()).log("init: access key created");
      return;
    }
    AccessKeyStore.StoredKey current = had.get();
    AccessKeyStore.StoredKey wanted = stored(k, current.secret());
    List<String> changes = new ArrayList<>();
    if (!Objects.equals(current.name(), wanted.name())) {
      changes.add("name from " + current.name() + " to " + wanted.name());
    }
    List<KeyWire.Grant> oldGrants = normalized(current);
    List<KeyWire.Grant> newGrants = normalized(wanted);
    if (!oldGrants.equals(newGrants)) {
      changes.add("grants from " + oldGrants + " to " + newGrants);
    }
    if (!Objects.equals(current.agent(), wanted.agent())) {
      changes.add("agent from " + current.agent() + " to " + wanted.agent());
    }
    if (!Objects.equals(current.account(), wanted.account())) {
      changes.add("account from " + current.account() + " to " + wanted.account());
    }
    if (k.secret().isPresent() && !current.principal().secretMatches(k.secret().get())) {
      changes.add("the secret differs");
    }
    if (!changes.isEmpty()) {
      throw refused(
          where
              + " exists otherwise ("
              + String.join("; ", changes)
              + "); a key is not changed in place: revoke it (switchboard keys revoke "
              + k.id()
              + ") and start again, or declare a key with another id");
    }
  }

  private static AccessKeyStore.StoredKey stored(InitFile.DeclaredKey k, String secret) {
    return new AccessKeyStore.StoredKey(
        k.id(),
        secret,
        k.name().orElse(null),
        k.grants(),
        k.agent().orElse(null),
        "unused",
        k.account().orElse(null));
  }

  /** Grants as stored: actions sorted by their wire names. */
  private static List<KeyWire.Grant> normalized(AccessKeyStore.StoredKey k) {
    Principal p = k.principal();
    return AccessKeyStore.StoredKey.of(p, Instant.EPOCH).grants();
  }
}
