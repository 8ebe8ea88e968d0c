package io.switchboard.selector;

/**
 * The outcome of a selector: SQL's three-valued logic. {@code UNKNOWN} means "cannot tell", the
 * result of comparing a missing attribute or values of different types. Only {@code TRUE} selects;
 * {@code UNKNOWN} is not {@code FALSE}, which is why {@code NOT} of it stays {@code UNKNOWN}.
 */
public enum Truth {
  TRUE,
  FALSE,
  UNKNOWN;

  public static Truth of(boolean value) {
    return value ? TRUE : FALSE;
  }

  /** {@code NOT}: swaps {@code TRUE} and {@code FALSE}, keeps {@code UNKNOWN}. */
  public Truth not() {
    return switch (this) {
      case TRUE -> FALSE;
      case FALSE -> TRUE;
      case UNKNOWN -> UNKNOWN;
    };
  }

  /** {@code AND}: {@code FALSE} if either is, else {@code UNKNOWN} if either is, else TRUE. */
  public Truth and(Truth other) {
    if (this == FALSE || other == FALSE) {
      return FALSE;
    }
    return this == UNKNOWN || other == UNKNOWN ? UNKNOWN : TRUE;
  }

  /** {@code OR}: {@code TRUE} if either is, else {@code UNKNOWN} if either is, else FALSE. */
  public Truth or(Truth other) {
    if (this == TRUE || other == TRUE) {
      return TRUE;
    }
    return this == UNKNOWN || other == UNKNOWN ? UNKNOWN : FALSE;
  }
}
