package io.switchboard.storage.dynamodb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/**
 * The client and the table, and how a request's failure reaches a caller: a lost condition or a
 * cancelled transaction propagates as the SDK says (the engine decides what it means); throttling
 * and conflicts the SDK's retries (backoff with jitter) did not get past become {@link
 * ErrorCode#UNAVAILABLE}, the API's retryable refusal; anything else the SDK throws is {@code
 * UNAVAILABLE} too, naming the cause, since the store could not be reached or refused the request.
 */
final class Store {

  private final DynamoDbClient dynamo;
  private final String table;

  Store(DynamoDbClient dynamo, String table) {
    this.dynamo = dynamo;
    this.table = table;
  }

  String table() {
    return table;
  }

  /** Runs one request. */
  <T> T call(Function<DynamoDbClient, T> request) {
    try {
      return request.apply(dynamo);
    } catch (ConditionalCheckFailedException | TransactionCanceledException decided) {
      throw decided;
    } catch (ProvisionedThroughputExceededException
        | RequestLimitExceededException
        | TransactionConflictException busy) {
      throw new QueueException(
          ErrorCode.UNAVAILABLE,
          "DynamoDB is throttling or busy (" + busy.getClass().getSimpleName() + "); retry later",
          busy);
    } catch (SdkException e) {
      if (e instanceof software.amazon.awssdk.awscore.exception.AwsServiceException aws
          && aws.isThrottlingException()) {
        throw new QueueException(
            ErrorCode.UNAVAILABLE, "DynamoDB is throttling requests; retry later", e);
      }
      throw new QueueException(
          ErrorCode.UNAVAILABLE, "DynamoDB request failed: " + e.getMessage(), e);
    }
  }

  /**
   * Puts {@code item} if {@code condition} holds (with the placeholders {@code values}); false when
   * it did not, and nothing was written.
   */
  boolean putIf(
      Map<String, AttributeValue> item, String condition, Map<String, AttributeValue> values) {
    return decided(
        () ->
            call(
                d ->
                    d.putItem(
                        b -> {
                          b.tableName(table).item(item).conditionExpression(condition);
                          if (!values.isEmpty()) {
                            b.expressionAttributeValues(values);
                          }
                        })));
  }

  /**
   * Applies {@code update} to the item at {@code key} if {@code condition} holds (with the
   * placeholders {@code values}); false when it did not, and nothing was written.
   */
  boolean updateIf(
      Map<String, AttributeValue> key,
      String update,
      String condition,
      Map<String, AttributeValue> values) {
    return updateIf(key, update, condition, Map.of(), values);
  }

  /** {@link #updateIf(Map, String, String, Map)} with attribute name placeholders {@code names}. */
  boolean updateIf(
      Map<String, AttributeValue> key,
      String update,
      String condition,
      Map<String, String> names,
      Map<String, AttributeValue> values) {
    return decided(
        () ->
            call(
                d ->
                    d.updateItem(
                        b -> {
                          b.tableName(table)
                              .key(key)
                              .updateExpression(update)
                              .conditionExpression(condition);
                          if (!names.isEmpty()) {
                            b.expressionAttributeNames(names);
                          }
                          if (!values.isEmpty()) {
                            b.expressionAttributeValues(values);
                          }
                        })));
  }

  /**
   * Deletes the item at {@code key} if {@code condition} holds (with the placeholders {@code
   * values}); false when it did not, and nothing was deleted.
   */
  boolean deleteIf(
      Map<String, AttributeValue> key, String condition, Map<String, AttributeValue> values) {
    return deleteIf(key, condition, Map.of(), values);
  }

  /** {@link #deleteIf(Map, String, Map)} with attribute name placeholders {@code names}. */
  boolean deleteIf(
      Map<String, AttributeValue> key,
      String condition,
      Map<String, String> names,
      Map<String, AttributeValue> values) {
    return decided(
        () ->
            call(
                d ->
                    d.deleteItem(
                        b -> {
                          b.tableName(table).key(key).conditionExpression(condition);
                          if (!names.isEmpty()) {
                            b.expressionAttributeNames(names);
                          }
                          if (!values.isEmpty()) {
                            b.expressionAttributeValues(values);
                          }
                        })));
  }

  /** Runs a conditional write: true when it was made, false when its condition failed. */
  private static boolean decided(Runnable write) {
    try {
      write.run();
      return true;
    } catch (ConditionalCheckFailedException lost) {
      return false;
    }
  }

  /** The item at {@code pk}/{@code sk}, read strongly consistent, or null. */
  @Nullable Map<String, AttributeValue> get(String pk, String sk) {
    GetItemResponse r =
        call(d -> d.getItem(b -> b.tableName(table).key(key(pk, sk)).consistentRead(true)));
    return r.hasItem() && !r.item().isEmpty() ? r.item() : null;
  }

  static Map<String, AttributeValue> key(String pk, String sk) {
    return Map.of("pk", s(pk), "sk", s(sk));
  }

  static AttributeValue s(String value) {
    return AttributeValue.fromS(value);
  }

  static AttributeValue n(long value) {
    return AttributeValue.fromN(Long.toString(value));
  }

  static long num(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    return v == null || v.n() == null ? 0 : Long.parseLong(v.n());
  }

  /** A string attribute every item of its kind has. */
  static String text(Map<String, AttributeValue> item, String name) {
    return required(item, name).s();
  }

  /** A binary attribute every item of its kind has. */
  static byte[] bytes(Map<String, AttributeValue> item, String name) {
    return required(item, name).b().asByteArray();
  }

  private static AttributeValue required(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    if (v == null) {
      throw new IllegalStateException(
          "a stored item has no '"
              + name
              + "' (damaged, or not written by Switchboard): "
              + item.keySet());
    }
    return v;
  }

  static @Nullable String str(Map<String, AttributeValue> item, String name) {
    AttributeValue v = item.get(name);
    return v == null ? null : v.s();
  }
}
