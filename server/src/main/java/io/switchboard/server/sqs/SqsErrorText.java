package io.switchboard.server.sqs;

/**
 * The error codes and texts the SQS layer answers with where Amazon's text is known, in one place,
 * so that tools which match on the text (and tests written against Amazon SQS, ElasticMQ,
 * LocalStack or moto) see the same words. {@code docs/sqs.md} ("Error texts") lists the same table
 * with where each text comes from; keep the two in step.
 *
 * <p>A text is a {@link String#format} template; {@link #error} fills it in. Errors whose text is
 * not Amazon's (Switchboard's own limits and extensions) stay where they are raised.
 */
enum SqsErrorText {
  /**
   * Every action, whichever queue was named: Amazon's texts word for word, the JSON protocol's and
   * the query protocol's.
   */
  QUEUE_DOES_NOT_EXIST(
      "QueueDoesNotExist",
      "AWS.SimpleQueueService.NonExistentQueue",
      400,
      "The specified queue does not exist.",
      "The specified queue does not exist for this wsdl version."),
  QUEUE_NAME_INVALID(
      "InvalidParameterValue",
      "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"),
  FIFO_QUEUE_NAME_INVALID(
      "InvalidParameterValue",
      "The name of a FIFO queue can only include alphanumeric characters, hyphens, or"
          + " underscores, must end with .fifo suffix and be 1 to 80 in length."),
  MISSING_PARAMETER("MissingParameter", "The request must contain the parameter %s."),
  INVALID_ACTION("InvalidAction", "The action %s is not valid for this endpoint."),
  UNKNOWN_ATTRIBUTE("InvalidAttributeName", "Unknown Attribute %s."),
  /** SqsManagedSseEnabled=true and a KmsMasterKeyId in one request. */
  SSE_BOTH(
      "InvalidAttributeName",
      "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS"
          + " SSE or SQS SSE."),
  /** An integer member out of its range ({@code MaxNumberOfMessages}, {@code DelaySeconds}...). */
  VALUE_OUT_OF_RANGE(
      "InvalidParameterValue",
      "Value %d for parameter %s is invalid. Reason: Must be between %d and %d, if provided."),
  /** {@code WaitTimeSeconds} and {@code VisibilityTimeout} out of range, as SQS words those. */
  VALUE_OUT_OF_BOUNDS(
      "InvalidParameterValue",
      "Value %d for parameter %s is invalid. Reason: Must be >= %d and <= %d, if provided."),
  /** A message's {@code DelaySeconds} out of range (SendMessage and its batch entries). */
  DELAY_SECONDS_OUT_OF_RANGE(
      "InvalidParameterValue",
      "Value %d for parameter %s is invalid. Reason: DelaySeconds must be >= %d and <= %d."),
  /**
   * A {@code RedrivePolicy} SQS refuses (not JSON, a member missing, {@code maxReceiveCount} out of
   * range, a RedriveAllowPolicy that does not let the queue in): the policy as given, the reason.
   */
  REDRIVE_POLICY_INVALID(
      "InvalidParameterValue", "Value %s for parameter RedrivePolicy is invalid. Reason: %s"),
  RECEIPT_HANDLE_INVALID(
      "ReceiptHandleIsInvalid", "The input receipt handle \"%s\" is not a valid receipt handle."),
  MESSAGE_TOO_LONG(
      "InvalidParameterValue",
      "One or more parameters are invalid. Reason: Message must be shorter than %d bytes."),
  TOO_MANY_MESSAGE_ATTRIBUTES(
      "InvalidParameterValue",
      "Number of message attributes [%d] exceeds the allowed maximum [%d]."),
  FIFO_DELAY_SECONDS(
      "InvalidParameterValue",
      "Value %d for parameter DelaySeconds is invalid. Reason: The request include parameter that"
          + " is not valid for this queue type."),
  DEDUPLICATION_ID_REQUIRED(
      "InvalidParameterValue",
      "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId"
          + " provided explicitly"),
  INVALID_MESSAGE_CONTENTS(
      "InvalidMessageContents",
      "Invalid binary character '#x%s' was found in the message body, the set of allowed"
          + " characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to"
          + " #x10FFFF"),
  GROUP_ID_INVALID(
      "InvalidParameterValue",
      "Value %s for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include"
          + " alphanumeric and punctuation characters. 1 to 128 in length."),
  DEDUPLICATION_ID_INVALID(
      "InvalidParameterValue",
      "Value %s for parameter MessageDeduplicationId is invalid. Reason: MessageDeduplicationId"
          + " can only include alphanumeric and punctuation characters. 1 to 128 in length."),
  /** A FIFO batch entry without its group id: SQS's code is not {@code MissingParameter}. */
  BATCH_ENTRY_GROUP_ID_MISSING(
      "InvalidParameterValue", "The request must contain the parameter MessageGroupId."),
  /** {@code DeduplicationScope} or {@code FifoThroughputLimit} named for a standard queue. */
  FIFO_ATTRIBUTE_ON_STANDARD(
      "InvalidAttributeName", "You can specify the %s only when FifoQueue is set to true."),
  /** SetQueueAttributes {@code FifoQueue=false} on a FIFO queue. */
  QUEUE_TYPE_CHANGE(
      "InvalidAttributeValue",
      "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported."),
  /** ChangeMessageVisibility with the handle of a message deleted since. */
  RECEIPT_HANDLE_EXPIRED(
      "InvalidParameterValue",
      "Value %s for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."),
  VISIBILITY_MESSAGE_GONE(
      "InvalidParameterValue",
      "Value %s for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not"
          + " available for visibility timeout change."),
  /** An empty {@code StringValue} of a String or Number message attribute. */
  STRING_ATTRIBUTE_VALUE_EMPTY(
      "InvalidParameterValue",
      "Message (user) attribute '%s' must contain a non-empty value of type '%s'."),
  /** An empty {@code BinaryValue}. */
  ATTRIBUTE_VALUE_EMPTY(
      "InvalidParameterValue",
      "The message attribute '%s' must contain non-empty message attribute value for message"
          + " attribute type '%s'."),
  EMPTY_BATCH(
      "EmptyBatchRequest",
      "AWS.SimpleQueueService.EmptyBatchRequest",
      400,
      "There should be at least one %s in the request."),
  TOO_MANY_ENTRIES(
      "TooManyEntriesInBatchRequest",
      "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
      400,
      "Maximum number of entries per request are %d. You have sent %d."),
  BATCH_ENTRY_ID_INVALID(
      "InvalidBatchEntryId",
      "AWS.SimpleQueueService.InvalidBatchEntryId",
      400,
      "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can"
          + " be at most 80 letters long."),
  BATCH_ENTRY_IDS_NOT_DISTINCT(
      "BatchEntryIdsNotDistinct",
      "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
      400,
      "Id %s repeated."),
  BATCH_REQUEST_TOO_LONG(
      "BatchRequestTooLong",
      "AWS.SimpleQueueService.BatchRequestTooLong",
      400,
      "Batch requests cannot be longer than %d bytes. You have sent %d bytes."),
  PURGE_QUEUE_IN_PROGRESS(
      "PurgeQueueInProgress",
      "AWS.SimpleQueueService.PurgeQueueInProgress",
      403,
      "Only one PurgeQueue operation on %s is allowed every 60 seconds."),
  TAG_KEYS_EMPTY(
      "InvalidParameterValue", "Tag keys must be between 1 and 128 characters in length."),
  TOO_MANY_TAGS("InvalidParameterValue", "Too many tags added for queue %s."),
  PERMISSION_LABEL_EXISTS(
      "InvalidParameterValue", "Value %s for parameter Label is invalid. Reason: Already exists."),
  PERMISSION_LABEL_NOT_FOUND(
      "InvalidParameterValue",
      "Value %s for parameter Label is invalid. Reason: can't find label on existing policy."),
  PERMISSION_NO_ACCOUNTS(
      "InvalidParameterValue",
      "Value [] for parameter PrincipalId is invalid. Reason: Unable to verify."),
  PERMISSION_TOO_MANY_ACTIONS(
      "OverLimit", "OverLimit", 403, "%d Actions were found, maximum allowed is 7.");

  private final String code;
  private final String queryCode;
  private final int status;
  private final String text;
  private final String queryText;

  SqsErrorText(String code, String queryCode, int status, String text, String queryText) {
    this.code = code;
    this.queryCode = queryCode;
    this.status = status;
    this.text = text;
    this.queryText = queryText;
  }

  SqsErrorText(String code, String queryCode, int status, String text) {
    this(code, queryCode, status, text, text);
  }

  /** A client error (400) whose query-protocol code is its code. */
  SqsErrorText(String code, String text) {
    this(code, code, 400, text);
  }

  String code() {
    return code;
  }

  String text() {
    return text;
  }

  /**
   * The text for an integer member {@code field} out of its range, whose arguments are the value,
   * the field, the minimum and the maximum: SQS words {@code WaitTimeSeconds}, {@code
   * VisibilityTimeout} and {@code DelaySeconds} each their own way.
   */
  static SqsErrorText outOfRange(String field) {
    return switch (field) {
      case "WaitTimeSeconds", "VisibilityTimeout" -> VALUE_OUT_OF_BOUNDS;
      case "DelaySeconds" -> DELAY_SECONDS_OUT_OF_RANGE;
      default -> VALUE_OUT_OF_RANGE;
    };
  }

  /** The error, its text filled in with {@code args}. */
  SqsError error(Object... args) {
    return SqsError.of(code, queryCode, status, text.formatted(args), queryText.formatted(args));
  }
}
