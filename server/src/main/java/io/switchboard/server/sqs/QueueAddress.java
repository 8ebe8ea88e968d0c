package io.switchboard.server.sqs;

/**
 * Queue URLs ({@code http://host:port/<account>/<name>}) and ARNs ({@code
 * arn:aws:sqs:<region>:<account>:<name>}). Switchboard has one namespace of queues, so the account
 * and region are fixed placeholders; a queue URL is accepted in any form whose last path segment is
 * the name (a full URL from any host, a path, or the bare name), as SDKs and the CLI send all
 * three.
 */
final class QueueAddress {

  static final String ACCOUNT = "000000000000";
  static final String REGION = "us-east-1";

  private QueueAddress() {}

  static String url(String baseUrl, String name) {
    return baseUrl + "/" + ACCOUNT + "/" + name;
  }

  static String arn(String name) {
    return "arn:aws:sqs:" + REGION + ":" + ACCOUNT + ":" + name;
  }

  /** The queue name in a QueueUrl. */
  static String nameFromUrl(String queueUrl) {
    String s = queueUrl.strip();
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    String name = s.substring(s.lastIndexOf('/') + 1);
    if (name.isEmpty()) {
      throw SqsError.invalidParameter("QueueUrl must name a queue, got '" + queueUrl + "'");
    }
    return name;
  }

  /** The queue name in an SQS ARN. */
  static String nameFromArn(String arn) {
    String[] parts = arn.split(":", -1);
    if (parts.length != 6 || !parts[0].equals("arn") || !parts[2].equals("sqs")) {
      throw SqsError.invalidParameter(
          "not an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>): '" + arn + "'");
    }
    return parts[5];
  }
}
