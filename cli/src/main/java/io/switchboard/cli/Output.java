package io.switchboard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.switchboard.client.WireFormat;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
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
          WireFormat.JSON
              .writer()
              .with(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(node));
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
            + c.duplicates());
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
