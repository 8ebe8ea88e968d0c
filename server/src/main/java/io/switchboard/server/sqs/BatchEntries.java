package io.switchboard.server.sqs;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * SQS's rules for the entries of a batch request, checked before any entry is acted on: 1..10
 * entries, each with an id of 1..80 characters of {@code [A-Za-z0-9_-]}, ids distinct. A broken
 * rule fails the whole request; anything wrong with one entry's content fails that entry only.
 */
final class BatchEntries {

  static final int MAX_ENTRIES = 10;

  private BatchEntries() {}

  static List<SqsRequest> check(List<SqsRequest> entries, String entryType) {
    if (entries.isEmpty()) {
      throw SqsErrorText.EMPTY_BATCH.error(entryType);
    }
    if (entries.size() > MAX_ENTRIES) {
      throw SqsErrorText.TOO_MANY_ENTRIES.error(MAX_ENTRIES, entries.size());
    }
    Set<String> seen = new HashSet<>();
    for (SqsRequest e : entries) {
      String id = e.string("Id").orElse("");
      if (!validId(id)) {
        throw SqsErrorText.BATCH_ENTRY_ID_INVALID.error();
      }
      if (!seen.add(id)) {
        throw SqsErrorText.BATCH_ENTRY_IDS_NOT_DISTINCT.error(id);
      }
    }
    return entries;
  }

  /**
   * An entry id SQS takes: 1..80 characters of {@code [A-Za-z0-9_-]} (checked by hand, not by a
   * regular expression: this runs on every entry of every batch).
   */
  static boolean validId(String id) {
    int n = id.length();
    if (n < 1 || n > MAX_ID_LENGTH) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = id.charAt(i);
      if (!((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '_'
          || c == '-')) {
        return false;
      }
    }
    return true;
  }

  private static final int MAX_ID_LENGTH = 80;
}
