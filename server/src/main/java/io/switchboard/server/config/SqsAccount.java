package io.switchboard.server.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which account the SQS endpoint is and which region a request is in when nothing names one: queue
 * URLs and ARNs carry the account, and a URL or ARN naming another account names no queue. Queues
 * of the default region are the engine's queues under their own names; those of other regions are
 * kept apart ({@code io.switchboard.server.sqs.QueueAddress}).
 *
 * @param id the 12-digit account id ({@code sqs-account-id})
 * @param defaultRegion the region of an unsigned request whose host names none ({@code
 *     sqs-default-region})
 */
public record SqsAccount(String id, String defaultRegion) {

  private static final Pattern ID = Pattern.compile("\\d{12}");

  /** Lower-case letters and digits in dash-separated words, at most 32 characters. */
  static final Pattern REGION = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");

  public static final int MAX_REGION_LENGTH = 32;

  /** {@code 000000000000} in {@code us-east-1}, as local SQS stand-ins use. */
  public static final SqsAccount DEFAULT = new SqsAccount("000000000000", "us-east-1");

  /**
   * @throws IllegalArgumentException naming the setting, what is allowed and the value given
   */
  public SqsAccount {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(defaultRegion, "defaultRegion");
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "sqs-account-id must be 12 digits (such as 123456789012), got '" + id + "'");
    }
    if (!validRegion(defaultRegion)) {
      throw new IllegalArgumentException(
          "sqs-default-region must be a region name of lower-case letters, digits and single"
              + " dashes, at most "
              + MAX_REGION_LENGTH
              + " characters (such as us-east-1), got '"
              + defaultRegion
              + "'");
    }
  }

  public static boolean validRegion(String region) {
    return region.length() <= MAX_REGION_LENGTH && REGION.matcher(region).matches();
  }
}
