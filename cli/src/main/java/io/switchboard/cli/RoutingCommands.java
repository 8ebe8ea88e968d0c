package io.switchboard.cli;

import io.switchboard.cli.QueuesCommand.ClientCommand;
import io.switchboard.client.RoutingClient;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.RoutingWire;
import io.switchboard.client.wire.StatisticsWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactStats;
import io.switchboard.routing.GroupStats;
import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.RoutingStats;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.StatisticsReport;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard agents ...}, {@code contacts ...}, {@code reservations ...} and {@code routing
 * stats}: the routing API from the command line, as tables or, with {@code --json}, the API's own
 * JSON.
 */
final class RoutingCommands {

  private RoutingCommands() {}

  /** A command over the routing client. */
  abstract static class RoutingCommand extends ClientCommand {
    @Override
    void run(SwitchboardClient client) {
      run(client.routing(), out());
    }

    abstract void run(RoutingClient routing, PrintWriter out);

    void agent(PrintWriter out, Agent a) {
      if (options.json) {
        Output.json(out, RoutingWire.agent(a));
      } else {
        agents(out, List.of(a));
      }
    }

    void contact(PrintWriter out, Contact c) {
      if (options.json) {
        Output.json(out, RoutingWire.contact(c));
        return;
      }
      Output.table(
          out,
          List.of(
              List.of(
                  "CONTACT", "CHANNEL", "STATE", "AGENT", "RESERVATION", "PRIORITY", "REQUIRES"),
              List.of(
                  c.id(),
                  c.channel(),
                  WireFormat.wireName(c.state()),
                  c.agentId().orElse("-"),
                  c.reservationId().orElse("-"),
                  Integer.toString(c.priority()),
                  c.requirements().orElse("(any agent)"))));
    }
  }

  static void agents(PrintWriter out, List<Agent> agents) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("AGENT", "PRESENCE", "CAPACITY", "LOAD", "IDLE SINCE", "ATTRIBUTES"));
    for (Agent a : agents) {
      rows.add(
          List.of(
              a.id(),
              a.presence().toString() + (a.inWrapUp() ? " (wrap-up)" : ""),
              counts(a.capacity()),
              counts(a.load()),
              a.idleSince().toString(),
              RoutingWire.attributes(a.attributes()).toString()));
    }
    Output.table(out, rows);
  }

  private static String counts(Map<String, Integer> counts) {
    return counts.isEmpty()
        ? "-"
        : new TreeMap<>(counts)
            .entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
  }

  /** Agent and contact attributes: text, numbers, booleans, lists of text. */
  static final class Attributes {
    @Option(
        names = {"-a", "--attr"},
        paramLabel = "NAME=TEXT",
        description = "text attribute")
    Map<String, String> strings = new LinkedHashMap<>();

    @Option(
        names = {"-n", "--num"},
        paramLabel = "NAME=NUMBER",
        description = "number attribute (e.g. proficiency)")
    Map<String, BigDecimal> numbers = new LinkedHashMap<>();

    @Option(
        names = {"-b", "--bool"},
        paramLabel = "NAME=true|false",
        description = "boolean attribute")
    Map<String, Boolean> booleans = new LinkedHashMap<>();

    @Option(
        names = {"-l", "--list"},
        paramLabel = "NAME=A,B",
        description = "list attribute (e.g. skills=english,billing)")
    Map<String, String> lists = new LinkedHashMap<>();

    Map<String, Object> values() {
      Map<String, Object> out = new LinkedHashMap<>();
      out.putAll(strings);
      out.putAll(numbers);
      out.putAll(booleans);
      lists.forEach((k, v) -> out.put(k, List.of(v.split(","))));
      return out;
    }
  }

  static Presence presence(String kind, @Nullable String reason) {
    return switch (WireFormat.enumValue(Presence.Kind.class, "presence", kind)) {
      case AVAILABLE -> Presence.available();
      case OFFLINE -> Presence.offline();
      case AWAY -> Presence.away(reason == null ? "" : reason);
    };
  }

  // ---- agents ------------------------------------------------------------------------------

  /** {@code switchboard agents create|list|show|presence|delete}. */
  @Command(
      name = "agents",
      description = "Create, list, show, set the presence of and delete routing agents.",
      subcommands = {
        Agents.Create.class,
        Agents.ListAgents.class,
        Agents.Show.class,
        Agents.SetPresence.class,
        Agents.Delete.class
      })
  static final class Agents implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "create", description = "Create an agent (offline unless --presence).")
    static final class Create extends RoutingCommand {
      @Parameters(paramLabel = "ID")
      String id;

      @Option(
          names = {"-c", "--capacity"},
          paramLabel = "CHANNEL=N",
          description = "contacts at once per channel, e.g. voice=1 chat=3")
      Map<String, Integer> capacity = new LinkedHashMap<>();

      @Option(names = "--presence", description = "available | away | offline (default offline)")
      String presence = "offline";

      @Option(names = "--reason", description = "why away")
      @Nullable String reason;

      @Mixin Attributes attributes;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        NewAgent.Builder b =
            NewAgent.builder(id)
                .attributes(attributes.values())
                .presence(RoutingCommands.presence(presence, reason));
        capacity.forEach(b::capacity);
        agent(out, routing.createAgent(b.build()));
      }
    }

    @Command(name = "list", description = "List agents, optionally those matching a selector.")
    static final class ListAgents extends RoutingCommand {
      @Option(names = "--selector", description = "e.g. \"skills HAS 'billing'\"")
      @Nullable String selector;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        List<Agent> agents = selector == null ? routing.agents() : routing.agents(selector);
        if (options.json) {
          var array = WireFormat.array();
          agents.forEach(a -> array.add(RoutingWire.agent(a)));
          Output.json(out, WireFormat.object().set("agents", array));
        } else {
          agents(out, agents);
        }
      }
    }

    @Command(name = "show", description = "Show an agent and its pending offers.")
    static final class Show extends RoutingCommand {
      @Parameters(paramLabel = "ID")
      String id;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        agent(out, routing.agent(id));
        if (!options.json) {
          routing
              .pendingReservations(id)
              .forEach(
                  r ->
                      out.println(
                          "offered " + r.contactId() + " (" + r.id() + ") until " + r.expiresAt()));
          out.flush();
        }
      }
    }

    @Command(name = "presence", description = "Set presence: available, away [--reason], offline.")
    static final class SetPresence extends RoutingCommand {
      @Parameters(index = "0", paramLabel = "ID")
      String id;

      @Parameters(index = "1", paramLabel = "PRESENCE")
      String presence;

      @Option(names = "--reason", description = "why away")
      @Nullable String reason;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        agent(out, routing.presence(id, RoutingCommands.presence(presence, reason)));
      }
    }

    @Command(name = "delete", description = "Remove an agent (refused while it has contacts).")
    static final class Delete extends RoutingCommand {
      @Parameters(paramLabel = "ID")
      String id;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        routing.removeAgent(id);
        out.println("deleted agent " + id);
        out.flush();
      }
    }
  }

  // ---- contacts ----------------------------------------------------------------------------

  /** {@code switchboard contacts create|show|abandon|complete}. */
  @Command(
      name = "contacts",
      description = "Create, show, abandon and complete routed contacts.",
      subcommands = {
        Contacts.Create.class,
        Contacts.Show.class,
        Contacts.Abandon.class,
        Contacts.Complete.class
      })
  static final class Contacts implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "create", description = "Queue a contact; offered at once if an agent matches.")
    static final class Create extends RoutingCommand {
      @Parameters(index = "0", paramLabel = "ID")
      String id;

      @Parameters(index = "1", paramLabel = "CHANNEL")
      String channel;

      @Option(
          names = {"-r", "--requires"},
          paramLabel = "SELECTOR",
          description = "requirements over agent attributes, e.g. \"languages HAS 'es'\"")
      @Nullable String requirements;

      @Option(names = "--priority", description = "-1000..1000, higher first (default 0)")
      int priority;

      @Option(
          names = "--escalate",
          paramLabel = "SECONDS=SELECTOR",
          description = "after SECONDS the requirements become SELECTOR (empty: any agent)")
      Map<Long, String> escalations = new LinkedHashMap<>();

      @Option(names = "--max-wait", paramLabel = "SECONDS")
      @Nullable Long maxWait;

      @Mixin Attributes attributes;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        NewContact.Builder b =
            NewContact.builder(id, channel).attributes(attributes.values()).priority(priority);
        if (requirements != null) {
          b.requirements(requirements);
        }
        escalations.forEach(
            (after, selector) -> {
              if (selector.isBlank()) {
                b.escalateToAnyAgent(Duration.ofSeconds(after));
              } else {
                b.escalate(Duration.ofSeconds(after), selector);
              }
            });
        if (maxWait != null) {
          b.maxWait(Duration.ofSeconds(maxWait));
        }
        contact(out, routing.createContact(b.build()));
      }
    }

    @Command(name = "show", description = "Show a contact.")
    static final class Show extends RoutingCommand {
      @Parameters(paramLabel = "ID")
      String id;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        contact(out, routing.contact(id));
      }
    }

    @Command(name = "abandon", description = "The caller left.")
    static final class Abandon extends RoutingCommand {
      @Parameters(paramLabel = "ID")
      String id;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        contact(out, routing.abandon(id));
      }
    }

    @Command(name = "complete", description = "The agent finished an assigned contact.")
    static final class Complete extends RoutingCommand {
      @Parameters(paramLabel = "ID")
      String id;

      @Option(
          names = "--wrap-up",
          paramLabel = "SECONDS",
          description = "wrap-up time (default the channel's)")
      @Nullable Long wrapUp;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        contact(
            out,
            wrapUp == null
                ? routing.complete(id)
                : routing.complete(id, Duration.ofSeconds(wrapUp)));
      }
    }
  }

  // ---- reservations and stats --------------------------------------------------------------

  /** {@code switchboard reservations accept|reject}. */
  @Command(
      name = "reservations",
      description = "Accept or reject an offer of a contact to an agent.",
      subcommands = {Reservations.Accept.class, Reservations.Reject.class})
  static final class Reservations implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "accept", description = "Accept an offer; the contact is assigned.")
    static final class Accept extends RoutingCommand {
      @Parameters(paramLabel = "RESERVATION")
      String id;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        contact(out, routing.accept(id));
      }
    }

    @Command(name = "reject", description = "Reject an offer; the contact goes back in line.")
    static final class Reject extends RoutingCommand {
      @Parameters(paramLabel = "RESERVATION")
      String id;

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        contact(out, routing.reject(id));
      }
    }
  }

  /** {@code switchboard routing stats}. */
  @Command(
      name = "routing",
      description = "Routing statistics.",
      subcommands = {Routing.Stats.class, Routing.Statistics.class})
  static final class Routing implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "stats", description = "Waiting, service level, agents and occupancy.")
    static final class Stats extends RoutingCommand {
      @Override
      void run(RoutingClient routing, PrintWriter out) {
        RoutingStats s = routing.stats();
        if (options.json) {
          Output.json(out, RoutingWire.stats(s));
          return;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(
            List.of(
                "CHANNEL", "REQUIRES", "WAITING", "LONGEST", "ANSWERED", "SL", "ASA", "ABANDON"));
        rows.add(row("all", "all", s.overall()));
        for (GroupStats g : s.groups()) {
          rows.add(row(g.channel(), g.requirements().orElse("(any)"), g.contacts()));
        }
        Output.table(out, rows);
        out.println(
            "agents: "
                + s.agentsByPresence().entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .map(e -> WireFormat.wireName(e.getKey()) + " " + e.getValue())
                    .collect(Collectors.joining(", ")));
        out.println(
            "occupancy: "
                + (s.occupancyByChannel().isEmpty()
                    ? "-"
                    : new TreeMap<>(s.occupancyByChannel())
                        .entrySet().stream()
                            .map(e -> e.getKey() + " " + percent(e.getValue()))
                            .collect(Collectors.joining(", "))));
        out.flush();
      }

      private static List<String> row(String channel, String requires, ContactStats c) {
        return List.of(
            channel,
            requires,
            Integer.toString(c.waiting()),
            c.longestWait().toSeconds() + "s",
            Long.toString(c.answered()),
            c.serviceLevel().isPresent() ? percent(c.serviceLevel().getAsDouble()) : "-",
            c.averageSpeedOfAnswer().map(d -> d.toMillis() + "ms").orElse("-"),
            c.abandonmentRate().isPresent() ? percent(c.abandonmentRate().getAsDouble()) : "-");
      }

      private static String percent(double share) {
        return Math.round(share * 1000) / 10.0 + "%";
      }
    }

    @Command(
        name = "statistics",
        description =
            "Lasting statistics per 15-minute interval: offers, answers, service level, handle"
                + " time (docs/routing.md, \"Statistics that last\").")
    static final class Statistics extends RoutingCommand {
      @Option(
          names = "--from",
          description = "start, an ISO-8601 instant (default 24 hours before --to)")
      @Nullable String from;

      @Option(names = "--to", description = "end, an ISO-8601 instant (default now)")
      @Nullable String to;

      @Option(names = "--queue", description = "one task queue's figures")
      @Nullable String queue;

      @Option(names = "--agent", description = "one agent's figures")
      @Nullable String agent;

      @Option(names = "--workspace", description = "a workspace's (default: /v1/routing)")
      @Nullable String workspace;

      @Override
      void run(SwitchboardClient client) {
        run(workspace == null ? client.routing() : client.workspace(workspace), out());
      }

      @Override
      void run(RoutingClient routing, PrintWriter out) {
        Instant end = to == null ? Instant.now() : instant("--to", to);
        Instant start = from == null ? end.minus(Duration.ofHours(24)) : instant("--from", from);
        StatisticsQuery query =
            new StatisticsQuery(start, end, Optional.ofNullable(queue), Optional.ofNullable(agent));
        StatisticsReport r = routing.statistics(query);
        if (options.json) {
          Output.json(out, Json.tree(StatisticsWire.Report.of(r)));
          return;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(
            List.of(
                "INTERVAL",
                "ARRIVED",
                "OFFERED",
                "ACCEPTED",
                "REJECTED",
                "TIMED OUT",
                "ANSWERED",
                "SL",
                "ABANDONED",
                "HANDLED",
                "AHT",
                "WRAP-UP"));
        for (StatisticsReport.Interval i : r.intervals()) {
          rows.add(row(i.start().toString(), i.figures()));
        }
        rows.add(row("total", r.totals()));
        rows.add(row("since start", r.cumulative()));
        Output.table(out, rows);
        out.flush();
      }

      private Instant instant(String option, String text) {
        try {
          return Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
          throw new picocli.CommandLine.ParameterException(
              spec.commandLine(),
              option
                  + " must be an ISO-8601 instant such as 2030-01-01T00:00:00Z, got '"
                  + text
                  + "'");
        }
      }

      private static List<String> row(String label, IntervalFigures f) {
        return List.of(
            label,
            Long.toString(f.arrived()),
            Long.toString(f.offered()),
            Long.toString(f.accepted()),
            Long.toString(f.rejected()),
            Long.toString(f.timedOut()),
            Long.toString(f.answered()),
            f.answered() == 0
                ? "-"
                : Stats.percent((double) f.answeredWithinThreshold() / f.answered()),
            Long.toString(f.abandoned()),
            Long.toString(f.handled()),
            f.handled() == 0 ? "-" : f.handleMillis() / f.handled() / 1000 + "s",
            f.wrapUpMillis() / 1000 + "s");
      }
    }
  }
}
