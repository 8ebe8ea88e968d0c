package io.switchboard.selector;

/**
 * A selector text that does not parse. The message names the column, what was expected and what was
 * found: {@code selector error at column 7: expected AND, OR or end of input, found identifier b}.
 */
public final class SelectorException extends IllegalArgumentException {

  /** The stable error code of every selector error, for APIs that report codes. */
  public static final String CODE = "INVALID_SELECTOR";

  private final int column;
  private final String reason;

  SelectorException(int column, String reason) {
    super("selector error at column " + column + ": " + reason);
    this.column = column;
    this.reason = reason;
  }

  /** Always {@value #CODE}. */
  public String code() {
    return CODE;
  }

  /** The 1-based column of the offending token, counted in UTF-16 characters of the text. */
  public int column() {
    return column;
  }

  /** The message without the "selector error at column N: " prefix. */
  public String reason() {
    return reason;
  }
}
