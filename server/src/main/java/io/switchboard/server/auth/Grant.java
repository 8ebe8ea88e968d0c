package io.switchboard.server.auth;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A set of actions on a resource pattern: queue names for the {@code queue:*} actions, a routing
 * workspace for the {@code routing:*} ones ({@code default} today), anything for {@code
 * metrics:read} and {@code admin}. The pattern is a glob where {@code *} stands for any run of
 * characters ({@code orders-*}); {@code *} alone matches every resource.
 *
 * <p>Written {@code ACTION[,ACTION...] on PATTERN} in key files ({@link #parse}), which is also its
 * {@link #toString()}.
 *
 * @param actions what the grant allows, at least one
 * @param resource the glob
 */
public record Grant(Set<Action> actions, String resource) {

  public Grant {
    Objects.requireNonNull(resource, "resource");
    if (actions == null || actions.isEmpty()) {
      throw new IllegalArgumentException(
          "a grant needs at least one action (" + Action.known() + ")");
    }
    if (resource.isBlank()) {
      throw new IllegalArgumentException(
          "a grant needs a resource: a queue-name glob such as orders-*, a routing workspace, or *");
    }
    actions = Set.copyOf(EnumSet.copyOf(actions));
    resource = resource.trim();
  }

  /** {@code actions} on {@code resource}. */
  public static Grant of(String resource, Action... actions) {
    return new Grant(Set.of(actions), resource);
  }

  /** Every action on every resource. */
  public static Grant admin() {
    return of("*", Action.ADMIN);
  }

  /**
   * Reads {@code ACTION[,ACTION...] on PATTERN}, such as {@code queue:send,queue:receive on
   * orders-*}.
   *
   * @throws IllegalArgumentException saying what is wrong and what is allowed
   */
  public static Grant parse(String text) {
    String[] parts = text.trim().split("\\s+on\\s+", -1);
    if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
      throw new IllegalArgumentException(
          "a grant is written ACTION[,ACTION...] on PATTERN (such as 'queue:send on orders-*'),"
              + " got '"
              + text.trim()
              + "'");
    }
    List<Action> actions =
        List.of(parts[0].split(",")).stream().map(String::trim).map(Action::parse).toList();
    return new Grant(Set.copyOf(actions), parts[1]);
  }

  /** True if this grant names {@code action} (exactly) on {@code resource}. */
  public boolean allows(Action action, String resource) {
    return actions.contains(action) && matches(resource);
  }

  /** True if the pattern matches {@code resource}. */
  public boolean matches(String resource) {
    if (this.resource.equals("*")) {
      return true;
    }
    return glob(this.resource, resource);
  }

  /** {@code *} matches any run of characters, every other character itself. */
  static boolean glob(String pattern, String text) {
    int p = 0;
    int t = 0;
    int star = -1;
    int mark = 0;
    while (t < text.length()) {
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        mark = t;
      } else if (p < pattern.length() && pattern.charAt(p) == text.charAt(t)) {
        p++;
        t++;
      } else if (star >= 0) {
        p = star + 1;
        t = ++mark;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }

  @Override
  public String toString() {
    return actions.stream().sorted().map(Action::wireName).collect(Collectors.joining(","))
        + " on "
        + resource;
  }
}
