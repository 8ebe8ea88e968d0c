package io.switchboard.server.sqs;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * SQS's rules for the entries of a batch request, checked before any entry is acted on: 1..10
 * entries, each with an id of 1..80 characters of {@code [A-Za-z0-9_-]}, ids distinct. A broken
 * rule fails the whole request; anything wrong with one entry's content fails that entry only.
 */
final class BatchEntries {

  static final int MAX_ENTRIES = 10;
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,80}");

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
      if (!ID.matcher(id).matches()) {
        throw SqsErrorText.BATCH_ENTRY_ID_INVALID.error();
      }
      if (!seen.add(id)) {
        throw SqsErrorText.BATCH_ENTRY_IDS_NOT_DISTINCT.error(id);
      }
    }
    return entries;
  }
}
