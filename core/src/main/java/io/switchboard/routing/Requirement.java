package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A contact's requirement, prepared once: the selector (none: any agent), its normalized text, the
 * attribute terms it cannot be true without ({@link RequiredTerms}), and whether holding those
 * terms is also enough. Contacts with the same requirement text share one instance ({@link
 * Requirements}), so this work is done once per distinct requirement, not once per contact or per
 * match.
 */
final class Requirement {

  /** No requirement: every agent matches. */
  static final Requirement ANY = new Requirement(Optional.empty());

  final Optional<Selector> selector;

  /** The normalized text, or empty for {@link #ANY}. */
  final Optional<String> normalized;

  /** {@link #normalized} or "" : the requirement's part of a group key. */
  final String text;

  /** Sorted and distinct; empty when none narrows the requirement. */
  final List<String> terms;

  /**
   * Whether the requirement is true exactly when the agent holds every one of {@link #terms}, so
   * that an index lookup on the terms decides without evaluating the selector ({@link
   * RequiredTerms#exact}). {@link #ANY} is exact with no terms.
   */
  final boolean exact;

  /** The group key of the channel last asked for: one string shared by its contacts. */
  private @Nullable GroupKey lastKey;

  private record GroupKey(String channel, String key) {}

  private Requirement(Optional<Selector> selector) {
    this.selector = selector;
    this.normalized = selector.map(Selector::normalized);
    this.text = normalized.orElse("");
    this.terms = RequiredTerms.of(selector);
    this.exact = selector.isEmpty() || RequiredTerms.exact(selector.get().expression());
  }

  static Requirement of(Optional<Selector> selector) {
    return selector.isEmpty() ? ANY : new Requirement(selector);
  }

  static Requirement of(Selector selector) {
    return new Requirement(Optional.of(selector));
  }

  /**
   * {@code channel + '\u0000' + text}, the name of the requirement's group on that channel in the
   * statistics, as one string per channel rather than one per contact, so its hash is computed once
   * and maps find it by identity.
   */
  String groupKey(String channel) {
    GroupKey k = lastKey;
    if (k == null || !k.channel.equals(channel)) {
      k = new GroupKey(channel, channel + '\u0000' + text);
      lastKey = k;
    }
    return k.key;
  }

  boolean matches(AgentRecord agent) {
    return selector.isEmpty() || selector.get().matches(agent.view);
  }

  @Override
  public String toString() {
    return text.isEmpty() ? "(any agent)" : text;
  }
}
