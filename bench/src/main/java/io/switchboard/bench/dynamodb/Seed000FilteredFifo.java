package io.switchboard.bench.dynamodb;

import static io.switchboard.bench.dynamodb.Tables.n;
import static io.switchboard.bench.dynamodb.Tables.s;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Seed 000's filtered FIFO queue ("Implement serverless FIFO queues with filtering capabilities
 * using Amazon DynamoDB transactions"), one table ({@code pk}, {@code sk}) holding agents ({@code
 * AllAgents}/{@code Agent#<name>}), one information item per queue ({@code AllQueues}/{@code
 * Q#<language>#<gender>}: {@code QueueVersionId}, {@code QueueDepth}) and the messages, one copy in
 * each queue the message matches ({@code Q#<language>#<gender>}/{@code <timestamp>}: agent name,
 * id, gender, languages, and here the body). Three languages and two genders: six queues.
 *
 * <p>A send is one {@code TransactWriteItems}: a put of each copy, the agent's status to queued,
 * each of its queues' depth and version up by one. A receive (a match) is a {@code
 * TransactGetItems} of every queue's information item (the snapshot of their versions), a strongly
 * consistent {@code Query} of the wanted queue (limit 1: its head), and a {@code
 * TransactWriteItems} that deletes every copy of the message, updates each of its queues' depth and
 * version on the condition that the version is the snapshot's, and sets the agent to attending. The
 * design has no acknowledgement: the match is final. It has no batch either: a batch receive is
 * that many matches. The agents exist before (the post's pool): the bench writes their items
 * uncounted.
 */
final class Seed000FilteredFifo implements Design {

  static final List<String> LANGUAGES = List.of("English", "French", "Spanish");
  static final List<String> GENDERS = List.of("F", "M");
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy/MM/dd-HH:mm:ss.SSSSSS");

  private final DynamoDbClient metered;
  private final DynamoDbClient shadow;
  private final String table;
  private final int bodyBytes;
  private LocalDateTime last = LocalDateTime.MIN;

  Seed000FilteredFifo(DynamoDbClient metered, DynamoDbClient shadow, String table, int bodyBytes) {
    this.metered = metered;
    this.shadow = shadow;
    this.table = table;
    this.bodyBytes = bodyBytes;
    createTable(shadow, table);
    for (String queue : queues()) {
      shadow.putItem(
          b ->
              b.tableName(table)
                  .item(
                      Map.of(
                          "pk", s("AllQueues"),
                          "sk", s(queue),
                          "QueueVersionId", n(0),
                          "QueueDepth", n(0))));
    }
  }

  /** The post's one table: string keys {@code pk} and {@code sk}, no index. */
  static void createTable(DynamoDbClient shadow, String table) {
    shadow.createTable(
        b ->
            b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                    a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                    a -> a.attributeName("sk").attributeType(ScalarAttributeType.S))
                .keySchema(
                    k -> k.attributeName("pk").keyType(KeyType.HASH),
                    k -> k.attributeName("sk").keyType(KeyType.RANGE)));
  }

  private static List<String> queues() {
    List<String> out = new ArrayList<>();
    for (String l : LANGUAGES) {
      for (String g : GENDERS) {
        out.add(queue(l, g));
      }
    }
    return out;
  }

  private static String queue(String language, String gender) {
    return "Q#" + language + "#" + gender;
  }

  /** The sort key: the time the agent joined, in the post's format, made strictly increasing. */
  private String timestamp() {
    LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
    last = now.isAfter(last) ? now : last.plusNanos(1000);
    return TIME.format(last);
  }

  private static Map<String, AttributeValue> key(String pk, String sk) {
    return Map.of("pk", s(pk), "sk", s(sk));
  }

  @Override
  public void send(List<Message> batch) {
    for (Message m : batch) {
      String agent = "Agent#" + m.id();
      shadow.putItem(
          b ->
              b.tableName(table)
                  .item(
                      Map.of(
                          "pk", s("AllAgents"),
                          "sk", s(agent),
                          "AgentName", s(m.id()),
                          "AgentID", s(m.id()),
                          "Gender", s(m.gender()),
                          "Languages", AttributeValue.fromSs(m.languages()),
                          "AgentStatus", s("available"))));
      String sk = timestamp();
      List<TransactWriteItem> items = new ArrayList<>();
      for (String l : m.languages()) {
        Map<String, AttributeValue> item = new HashMap<>(key(queue(l, m.gender()), sk));
        item.put("AgentName", s(m.id()));
        item.put("AgentID", s(m.id()));
        item.put("Gender", s(m.gender()));
        item.put("Languages", AttributeValue.fromSs(m.languages()));
        item.put("Payload", s(m.body(bodyBytes)));
        items.add(TransactWriteItem.builder().put(p -> p.tableName(table).item(item)).build());
      }
      items.add(
          TransactWriteItem.builder()
              .update(
                  u ->
                      u.tableName(table)
                          .key(key("AllAgents", agent))
                          .updateExpression("SET AgentStatus = :q")
                          .expressionAttributeValues(Map.of(":q", s("queued"))))
              .build());
      for (String l : m.languages()) {
        items.add(
            TransactWriteItem.builder()
                .update(
                    u ->
                        u.tableName(table)
                            .key(key("AllQueues", queue(l, m.gender())))
                            .updateExpression(
                                "SET QueueDepth = QueueDepth + :one,"
                                    + " QueueVersionId = QueueVersionId + :one")
                            .expressionAttributeValues(Map.of(":one", n(1))))
                .build());
      }
      metered.transactWriteItems(b -> b.transactItems(items));
    }
  }

  @Override
  public List<Taken> receive(@Nullable Want want, int max) {
    if (want == null) {
      throw new IllegalArgumentException("seed 000's queue is read by a filter: name one");
    }
    List<Taken> out = new ArrayList<>();
    while (out.size() < max) {
      Taken t = match(want);
      if (t == null) {
        break;
      }
      out.add(t);
    }
    return out;
  }

  private @Nullable Taken match(Want want) {
    while (true) {
      List<String> queues = queues();
      List<TransactGetItem> gets = new ArrayList<>();
      for (String q : queues) {
        gets.add(
            TransactGetItem.builder()
                .get(g -> g.tableName(table).key(key("AllQueues", q)))
                .build());
      }
      List<ItemResponse> snapshot =
          metered.transactGetItems(b -> b.transactItems(gets)).responses();
      Map<String, AttributeValue> versions = new HashMap<>();
      for (int i = 0; i < queues.size(); i++) {
        versions.put(queues.get(i), Tables.attr(snapshot.get(i).item(), "QueueVersionId"));
      }
      QueryResponse head =
          metered.query(
              b ->
                  b.tableName(table)
                      .consistentRead(true)
                      .keyConditionExpression("pk = :q")
                      .expressionAttributeValues(
                          Map.of(":q", s(queue(want.language(), want.gender()))))
                      .limit(1));
      if (head.items().isEmpty()) {
        return null;
      }
      Map<String, AttributeValue> agent = head.items().get(0);
      String sk = Tables.attr(agent, "sk").s();
      String gender = Tables.attr(agent, "Gender").s();
      List<TransactWriteItem> items = new ArrayList<>();
      for (String l : Tables.attr(agent, "Languages").ss()) {
        items.add(
            TransactWriteItem.builder()
                .delete(d -> d.tableName(table).key(key(queue(l, gender), sk)))
                .build());
      }
      for (String l : Tables.attr(agent, "Languages").ss()) {
        String q = queue(l, gender);
        items.add(
            TransactWriteItem.builder()
                .update(
                    u ->
                        u.tableName(table)
                            .key(key("AllQueues", q))
                            .updateExpression(
                                "SET QueueDepth = QueueDepth - :one,"
                                    + " QueueVersionId = QueueVersionId + :one")
                            .conditionExpression("QueueVersionId = :v")
                            .expressionAttributeValues(
                                Map.of(":one", n(1), ":v", Tables.attr(versions, q))))
                .build());
      }
      items.add(
          TransactWriteItem.builder()
              .update(
                  u ->
                      u.tableName(table)
                          .key(key("AllAgents", "Agent#" + Tables.attr(agent, "AgentName").s()))
                          .updateExpression("SET AgentStatus = :a")
                          .expressionAttributeValues(Map.of(":a", s("attendingCall"))))
              .build());
      try {
        metered.transactWriteItems(b -> b.transactItems(items));
        return new Taken(Tables.attr(agent, "AgentName").s(), sk);
      } catch (TransactionCanceledException lost) {
        // another match changed one of the queues since the snapshot: again
      }
    }
  }

  @Override
  public void ack(List<Taken> taken) {
    // the match was final: nothing to acknowledge
  }

  @Override
  public long bytesKept() {
    return Tables.bytesKept(shadow, table);
  }

  @Override
  public void close() {}
}
