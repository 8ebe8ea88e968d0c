package io.switchboard.server.sqs;

import io.switchboard.queue.QueueException;
import io.switchboard.server.security.sigv4.SigV4Error;
import java.util.Map;

/**
 * An error in SQS terms: its code (the query protocol's name, as in {@code docs/sqs.md}), the type
 * that goes into {@code __type} (the JSON protocol's error shape, {@code com.amazonaws.sqs#<type>},
 * the exception name of the SQS JSON model, {@link #jsonType}), the legacy query-protocol code that
 * goes into the {@code x-amzn-query-error} header and the XML {@code <Code>} (SDKs built for the
 * JSON protocol read it to keep old error codes), whether the caller is at fault, the HTTP status,
 * and the message (the query protocol's, where SQS words it differently).
 */
public final class SqsError extends RuntimeException {

  private final String code;
  private final String queryCode;
  private final boolean senderFault;
  private final int status;
  private final String queryMessage;

  private SqsError(String code, String queryCode, boolean senderFault, int status, String message) {
    this(code, queryCode, senderFault, status, message, message);
  }

  private SqsError(
      String code,
      String queryCode,
      boolean senderFault,
      int status,
      String message,
      String queryMessage) {
    super(message);
    this.code = code;
    this.queryCode = queryCode;
    this.senderFault = senderFault;
    this.status = status;
    this.queryMessage = queryMessage;
  }

  /**
   * JSON {@code __type} names that differ from the code: SQS's JSON protocol answers these errors,
   * which its model does not declare, with the exception names AWS's JSON services use (as Amazon
   * SQS answers them), while {@code x-amzn-query-error} keeps the query code. The SQS model's own
   * exceptions ({@code QueueDoesNotExist}, {@code InvalidAttributeName}, ...) are their code.
   */
  private static final Map<String, String> JSON_TYPES =
      Map.of(
          "InvalidParameterValue", "InvalidParameterValueException",
          "MissingParameter", "MissingRequiredParameterException",
          "AccessDenied", "AccessDeniedException",
          "InvalidAction", "UnknownOperationException");

  /**
   * HTTP statuses other than 400 of the SQS model's client errors ({@code awsQueryError} of
   * botocore's SQS model): {@code OverLimit} and {@code PurgeQueueInProgress} are 403, {@code
   * ResourceNotFoundException} 404.
   */
  private static final Map<String, Integer> STATUSES =
      Map.of("OverLimit", 403, "PurgeQueueInProgress", 403, "ResourceNotFoundException", 404);

  /**
   * Query-protocol codes that differ from the code and do not follow the {@code
   * AWS.SimpleQueueService.} pattern ({@link #legacySender}), as the SQS model's error shapes name
   * them.
   */
  private static final Map<String, String> QUERY_CODES =
      Map.of("QueueNameExists", "QueueAlreadyExists");

  /** A client error whose legacy code is its code, but for the few in {@link #QUERY_CODES}. */
  static SqsError sender(String code, String message) {
    return new SqsError(
        code,
        QUERY_CODES.getOrDefault(code, code),
        true,
        STATUSES.getOrDefault(code, 400),
        message);
  }

  /**
   * A refused signature or credential: {@code MissingAuthenticationToken}, {@code
   * InvalidClientTokenId}, {@code SignatureDoesNotMatch} (403), {@code IncompleteSignature}, {@code
   * RequestExpired} (400).
   */
  static SqsError auth(String code, int status, String message) {
    return new SqsError(code, code, true, status, message);
  }

  /** A request SigV4 refused or could not read: its code and status, as {@link #auth}. */
  static SqsError of(SigV4Error e) {
    return auth(e.code(), e.status(), String.valueOf(e.getMessage()));
  }

  /** A client error whose legacy code is {@code AWS.SimpleQueueService.<code>}. */
  static SqsError legacySender(String code, String message) {
    return new SqsError(
        code, "AWS.SimpleQueueService." + code, true, STATUSES.getOrDefault(code, 400), message);
  }

  static SqsError invalidParameter(String message) {
    return sender("InvalidParameterValue", message);
  }

  static SqsError missingParameter(String name) {
    return SqsErrorText.MISSING_PARAMETER.error(name);
  }

  /** A client error with one of Amazon's texts ({@link SqsErrorText#error}). */
  static SqsError of(String code, String queryCode, int status, String message) {
    return new SqsError(code, queryCode, true, status, message);
  }

  /** A client error whose query-protocol text differs from the JSON protocol's. */
  static SqsError of(
      String code, String queryCode, int status, String message, String queryMessage) {
    return new SqsError(code, queryCode, true, status, message, queryMessage);
  }

  /** {@code RequestThrottled} (400): the AWS SDKs count it as throttling and retry with backoff. */
  static SqsError throttled(String message) {
    return new SqsError("RequestThrottled", "RequestThrottled", true, 400, message);
  }

  static SqsError internal(String message) {
    return new SqsError("InternalFailure", "InternalFailure", false, 500, message);
  }

  /** The SQS error for an engine error, keeping the engine's message (it names field and range). */
  static SqsError of(QueueException e) {
    String m = String.valueOf(e.getMessage()); // an engine error always carries one
    return switch (e.code()) {
      case QUEUE_NOT_FOUND -> SqsErrorText.QUEUE_DOES_NOT_EXIST.error();
      case QUEUE_ALREADY_EXISTS ->
          new SqsError("QueueNameExists", "QueueAlreadyExists", true, 400, m);
      case RECEIPT_INVALID, RECEIPT_STALE, MESSAGE_NOT_FOUND -> sender("ReceiptHandleIsInvalid", m);
      case MESSAGE_NOT_IN_FLIGHT -> legacySender("MessageNotInflight", m);
      case INVALID_ARGUMENT, INVALID_SELECTOR, MESSAGE_TOO_LARGE, CONFLICT -> invalidParameter(m);
      case BATCH_TOO_LARGE -> legacySender("BatchRequestTooLong", m);
      case TOO_MANY_QUEUES -> sender("OverLimit", m);
      case QUEUE_FULL -> throttled(m);
      case TASK_NOT_FOUND -> sender("ResourceNotFoundException", m);
      case UNAVAILABLE, SERVER_FULL ->
          new SqsError("ServiceUnavailable", "ServiceUnavailable", false, 503, m);
      case OVER_LIMIT -> sender("OverLimit", m);
    };
  }

  /** The AWS error code, such as {@code SignatureDoesNotMatch}. */
  public String code() {
    return code;
  }

  String queryCode() {
    return queryCode;
  }

  /** The name that goes into the JSON protocol's {@code __type} ({@link #JSON_TYPES}). */
  String jsonType() {
    return JSON_TYPES.getOrDefault(code, code);
  }

  /** The message the query protocol answers with. */
  String queryMessage() {
    return queryMessage;
  }

  boolean senderFault() {
    return senderFault;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }
}
