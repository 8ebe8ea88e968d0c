package io.switchboard.queue;

import java.util.regex.Pattern;

/** Queue name rules, shared by configuration and the engine. */
final class QueueNames {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,80}");
  private static final String GROUPED_SUFFIX = ".fifo";

  private QueueNames() {}

  /**
   * Checks a queue name: 1..80 of {@code [A-Za-z0-9_-]}, optionally followed by {@code .fifo}
   * (total at most 80 characters) for a grouped queue.
   */
  static void check(String name, String field) {
    if (name == null) {
      throw QueueException.invalid(field + " is required");
    }
    String base =
        isGrouped(name) ? name.substring(0, name.length() - GROUPED_SUFFIX.length()) : name;
    if (name.length() > 80 || !NAME.matcher(base).matches()) {
      throw QueueException.invalid(
          field
              + " must be 1..80 characters of [A-Za-z0-9_-], with an optional '.fifo' suffix, got '"
              + name
              + "'");
    }
  }

  static boolean isGrouped(String name) {
    return name.endsWith(GROUPED_SUFFIX);
  }
}
