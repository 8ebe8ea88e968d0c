package io.switchboard.cli;

/**
 * The exit codes of {@code switchboard}, for scripts. docs/server.md ("CLI", the exit-code table)
 * lists the same codes with the same meanings; ExitCodeDocTest checks that they agree.
 */
enum ExitCode {
  OK(0, "done"),
  SERVER_ERROR(1, "server error (5xx) or an unexpected failure"),
  USAGE(2, "usage: unknown command or flag, bad server configuration"),
  NOT_FOUND(3, "not found: queue, message, task, key, agent, contact, reservation, workspace"),
  CONFLICT(4, "conflict: stale receipt, queue exists, not in flight, offer expired, ..."),
  REFUSED(5, "refused input: invalid argument or selector, too large"),
  UNAVAILABLE(6, "unavailable: cannot connect, timed out, queue full, server starting or stopping"),
  DAMAGED(7, "damaged store: `store verify` found damage, `store salvage` could not read all"),
  DENIED(8, "denied: no or wrong credentials (401), or the key may not do this (403)");

  private final int code;
  private final String meaning;

  ExitCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  int code() {
    return code;
  }

  /** What the code means; its words before the first colon head the row in docs/server.md. */
  String meaning() {
    return meaning;
  }

  /** The word(s) a row of the docs' table starts with: "usage", "not found", "done", ... */
  String label() {
    int colon = meaning.indexOf(':');
    int paren = meaning.indexOf(" (");
    int end = colon >= 0 ? colon : paren >= 0 ? paren : meaning.length();
    return meaning.substring(0, end);
  }
}
