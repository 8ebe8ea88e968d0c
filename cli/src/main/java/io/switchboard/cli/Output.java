package io.switchboard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.switchboard.client.AckResult;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.RedriveTask;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Tables for people, the API's JSON for scripts. */
final class Output {

  private Output() {}

  static void json(PrintWriter out, JsonNode node) {
    try {
      out.println(
          Json.STRICT.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(node));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    out.flush();
  }

  /** Prints rows as aligned columns; the first row is the header. */
  static void table(PrintWriter out, List<List<String>> rows) {
    int columns = rows.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        String cell = row.get(i);
        line.append(cell);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - cell.length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }

  static void messages(PrintWriter out, List<Message> messages, boolean withReceipt) {
    if (messages.isEmpty()) {
      out.println("(no messages)");
      out.flush();
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    List<String> header =
        new ArrayList<>(List.of("ID", "PRIO", "STATE", "RECV", "ATTRIBUTES", "BODY"));
    if (withReceipt) {
      header.add("RECEIPT");
    }
    rows.add(header);
    for (Message m : messages) {
      List<String> row =
          new ArrayList<>(
              List.of(
                  m.id(),
                  Integer.toString(m.priority()),
                  m.state().wireName(),
                  Integer.toString(m.receiveCount()),
                  attributes(m.attributes()),
                  abbreviate(m.body(), 40)));
      if (withReceipt) {
        row.add(m.receipt().orElse(""));
      }
      rows.add(row);
    }
    table(out, rows);
  }

  /** One message in full, a field per line. */
  static void message(PrintWriter out, Message m) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("id", m.id()));
    rows.add(List.of("state", m.state().wireName()));
    rows.add(List.of("priority", Integer.toString(m.priority())));
    m.groupId().ifPresent(g -> rows.add(List.of("group", g)));
    m.deduplicationId().ifPresent(d -> rows.add(List.of("dedup id", d)));
    rows.add(List.of("sequence", Long.toString(m.sequence())));
    rows.add(List.of("received", m.receiveCount() + " time(s)"));
    rows.add(List.of("sent at", m.sentAt().toString()));
    m.firstReceivedAt().ifPresent(t -> rows.add(List.of("first received", t.toString())));
    m.visibleAt().ifPresent(t -> rows.add(List.of("visible at", t.toString())));
    rows.add(List.of("expires at", m.expiresAt().toString()));
    m.deadLetterSource().ifPresent(q -> rows.add(List.of("dead-lettered from", q)));
    rows.add(List.of("attributes", attributes(m.attributes())));
    rows.add(List.of("body", abbreviate(m.body(), 200)));
    table(out, rows);
  }

  static void ackResults(PrintWriter out, List<AckResult> results) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("RECEIPT", "RESULT"));
    for (AckResult r : results) {
      rows.add(
          List.of(
              r.receipt(),
              r.acked() ? "acked" : r.code().orElse("") + ": " + r.message().orElse("")));
    }
    table(out, rows);
    long acked = results.stream().filter(AckResult::acked).count();
    out.println("acknowledged " + acked + " of " + results.size());
    out.flush();
  }

  static void tasks(PrintWriter out, List<RedriveTask> tasks) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("TASK", "SOURCE", "DESTINATION", "STATUS", "MOVED", "RATE", "STARTED"));
    for (RedriveTask t : tasks) {
      rows.add(
          List.of(
              t.id(),
              t.source(),
              t.destination().orElse("(sources)"),
              WireFormat.wireName(t.status())
                  + t.failureReason().map(r -> " (" + r + ")").orElse(""),
              t.moved() + "/" + t.toMove(),
              t.maxPerSecond().isPresent() ? t.maxPerSecond().getAsInt() + "/s" : "-",
              t.startedAt().toString()));
    }
    table(out, rows);
  }

  static void queues(PrintWriter out, List<QueueInfo> queues) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("NAME", "KIND", "ORDER", "VISIBILITY", "DEAD LETTER", "CREATED"));
    for (QueueInfo q : queues) {
      rows.add(
          List.of(
              q.name(),
              q.grouped() ? "grouped" : "standard",
              WireFormat.wireName(q.config().order()),
              q.config().visibilityTimeout().toSeconds() + "s",
              q.config()
                  .deadLetter()
                  .map(d -> d.target() + " after " + d.maxReceiveCount())
                  .orElse("-"),
              q.createdAt().toString()));
    }
    table(out, rows);
  }

  static void stats(PrintWriter out, String queue, QueueStats s) {
    QueueStats.Counters c = s.counters();
    table(
        out,
        List.of(
            List.of("QUEUE", "AVAILABLE", "DELAYED", "IN FLIGHT", "OLDEST", "WAITING"),
            List.of(
                queue,
                Long.toString(s.available()),
                Long.toString(s.delayed()),
                Long.toString(s.inFlight()),
                s.oldestAge().map(a -> a.toMillis() / 1000.0 + "s").orElse("-"),
                Integer.toString(s.waitingReceivers()))));
    out.println(
        "counters: sent "
            + c.sent()
            + ", received "
            + c.received()
            + ", acked "
            + c.acked()
            + ", released "
            + c.released()
            + ", failed "
            + c.failed()
            + ", expired "
            + c.expired()
            + ", shed "
            + c.shed()
            + ", dead-lettered "
            + c.deadLettered()
            + ", removed "
            + c.removed()
            + ", duplicates "
            + c.duplicates()
            + ", key-limited "
            + c.keyLimited());
    if (!s.byPriority().isEmpty()) {
      out.println(
          "by priority: "
              + s.byPriority().entrySet().stream()
                  .map(e -> e.getKey() + ": " + e.getValue())
                  .collect(Collectors.joining(", ")));
    }
    out.flush();
  }

  private static String attributes(Map<String, AttributeValue> attributes) {
    if (attributes.isEmpty()) {
      return "-";
    }
    return attributes.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + "=" + value(e.getValue()))
        .collect(Collectors.joining(","));
  }

  private static String value(AttributeValue v) {
    return switch (v) {
      case AttributeValue.StringValue s -> s.value();
      case AttributeValue.NumberValue n -> n.value();
      case AttributeValue.StringListValue l -> "[" + String.join("|", l.value()) + "]";
      case AttributeValue.BinaryValue b -> "<" + b.value().length + " bytes>";
    };
  }

  private static String abbreviate(String s, int max) {
    String oneLine = s.replace('\n', ' ');
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max - 3) + "...";
  }
}
