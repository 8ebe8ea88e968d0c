package io.switchboard.bench.dynamodb;

import static io.switchboard.bench.dynamodb.Tables.n;
import static io.switchboard.bench.dynamodb.Tables.s;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Seed 002's LIFO task queue ("Implementing a LIFO task queue using AWS Lambda and Amazon
 * DynamoDB", and its sample's {@code template.yaml}, {@code create_tasks.js}, {@code
 * process_tasks.js}): table {@code QueueTable} keyed by {@code taskId}, one global secondary index
 * {@code task-status-created-index} ({@code taskStatus} hash, {@code taskCreated} range, projection
 * ALL), a {@code ttl} attribute. A send is a {@code PutItem} of a PENDING task; a consumer queries
 * the index for a page of 10 PENDING tasks newest first (eventually consistent, as every index
 * read) and works through the page task by task: an {@code UpdateItem} PENDING to TAKEN on the
 * condition that it is still PENDING, then (the acknowledgement) TAKEN to SUCCESS on the condition
 * that it is TAKEN. Each status change moves the item within the index (its hash key changes): a
 * delete and a put there. Processed tasks stay until their TTL deletes them. The sample's tasks
 * carry no payload; here each carries the message body as {@code taskData}. Its DynamoDB stream and
 * Lambda triggers cost no request units and are left out.
 */
final class Seed002Lifo implements Design {

  static final String INDEX = "task-status-created-index";
  static final int PAGE = 10;

  private final DynamoDbClient metered;
  private final DynamoDbClient shadow;
  private final String table;
  private final int bodyBytes;
  private final Deque<Map<String, AttributeValue>> page = new ArrayDeque<>();
  private long lastCreated;

  Seed002Lifo(DynamoDbClient metered, DynamoDbClient shadow, String table, int bodyBytes) {
    this.metered = metered;
    this.shadow = shadow;
    this.table = table;
    this.bodyBytes = bodyBytes;
    createTable(shadow, table);
  }

  /** The sample's table of tasks: keyed by task id, its status index ({@link #INDEX}), a TTL. */
  static void createTable(DynamoDbClient shadow, String table) {
    shadow.createTable(
        b ->
            b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                    a -> a.attributeName("taskId").attributeType(ScalarAttributeType.S),
                    a -> a.attributeName("taskStatus").attributeType(ScalarAttributeType.S),
                    a -> a.attributeName("taskCreated").attributeType(ScalarAttributeType.N))
                .keySchema(k -> k.attributeName("taskId").keyType(KeyType.HASH))
                .globalSecondaryIndexes(
                    g ->
                        g.indexName(INDEX)
                            .keySchema(
                                k -> k.attributeName("taskStatus").keyType(KeyType.HASH),
                                k -> k.attributeName("taskCreated").keyType(KeyType.RANGE))
                            .projection(p -> p.projectionType(ProjectionType.ALL))));
    shadow.updateTimeToLive(
        b -> b.tableName(table).timeToLiveSpecification(t -> t.attributeName("ttl").enabled(true)));
  }

  /** Milliseconds, made strictly increasing so that LIFO order is the send order. */
  private long now() {
    lastCreated = Math.max(System.currentTimeMillis(), lastCreated + 1);
    return lastCreated;
  }

  @Override
  public void send(List<Message> batch) {
    for (Message m : batch) {
      long now = now();
      metered.putItem(
          b ->
              b.tableName(table)
                  .item(
                      Map.of(
                          "taskId", s(UUID.randomUUID().toString()),
                          "taskStatus", s("PENDING"),
                          "taskCreated", n(now),
                          "taskUpdated", n(now),
                          "ttl", n(now + 3_600_000),
                          "taskData", s(m.body(bodyBytes)))));
    }
  }

  @Override
  public List<Taken> receive(@Nullable Want want, int max) {
    List<Taken> out = new ArrayList<>();
    while (out.size() < max) {
      if (page.isEmpty()) {
        if (!out.isEmpty()) {
          break;
        }
        page.addAll(
            metered
                .query(
                    b ->
                        b.tableName(table)
                            .indexName(INDEX)
                            .keyConditionExpression("taskStatus = :taskStatus")
                            .expressionAttributeValues(Map.of(":taskStatus", s("PENDING")))
                            .limit(PAGE)
                            .scanIndexForward(false))
                .items());
        if (page.isEmpty()) {
          break;
        }
      }
      Map<String, AttributeValue> task = page.poll();
      String taskId = Tables.attr(task, "taskId").s();
      if (transition(taskId, "PENDING", "TAKEN")) {
        out.add(new Taken(Message.idOf(Tables.attr(task, "taskData").s()), taskId));
      }
    }
    return out;
  }

  private boolean transition(String taskId, String from, String to) {
    try {
      metered.updateItem(
          b ->
              b.tableName(table)
                  .key(Map.of("taskId", s(taskId)))
                  .updateExpression("set taskStatus = :toTaskStatus, taskUpdated = :taskUpdated")
                  .conditionExpression("taskStatus = :fromTaskStatus")
                  .expressionAttributeValues(
                      Map.of(
                          ":fromTaskStatus", s(from),
                          ":toTaskStatus", s(to),
                          ":taskUpdated", n(System.currentTimeMillis()))));
      return true;
    } catch (ConditionalCheckFailedException lost) {
      return false;
    }
  }

  @Override
  public void ack(List<Taken> taken) {
    for (Taken t : taken) {
      transition((String) t.handle(), "TAKEN", "SUCCESS");
    }
  }

  @Override
  public long bytesKept() {
    return Tables.bytesKept(shadow, table);
  }

  @Override
  public void close() {}
}
