package io.switchboard.routing;

import java.util.Objects;

/**
 * Whether an agent takes work: {@link #available()}, {@link #away(String) away} with a reason, or
 * {@link #offline()}. Only an available agent is offered contacts.
 *
 * @param kind offline, available or away
 * @param reason why the agent is away; empty for the other kinds
 */
public record Presence(Kind kind, String reason) {

  /** The three presence kinds. */
  public enum Kind {
    OFFLINE,
    AVAILABLE,
    AWAY
  }

  private static final Presence OFFLINE = new Presence(Kind.OFFLINE, "");
  private static final Presence AVAILABLE = new Presence(Kind.AVAILABLE, "");

  public Presence {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reason, "reason");
    if (kind != Kind.AWAY && !reason.isEmpty()) {
      throw RoutingException.invalid("presence reason is only for away, got " + kind);
    }
  }

  public static Presence offline() {
    return OFFLINE;
  }

  public static Presence available() {
    return AVAILABLE;
  }

  /** Away, with a reason such as {@code "break"} (may be empty). */
  public static Presence away(String reason) {
    return new Presence(Kind.AWAY, reason);
  }

  public boolean isAvailable() {
    return kind == Kind.AVAILABLE;
  }

  @Override
  public String toString() {
    return kind == Kind.AWAY
        ? "away(" + reason + ")"
        : kind.name().toLowerCase(java.util.Locale.ROOT);
  }
}
