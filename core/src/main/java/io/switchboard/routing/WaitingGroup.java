package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The queued contacts of one channel with the same normalized requirement, in order of service
 * (priority desc, then arrival). A contact that comes back from an offer keeps its arrival number,
 * so it returns to its original place.
 */
final class WaitingGroup {

  final String channel;
  final Optional<Selector> requirement;
  final String key;

  /** Separates the terms of {@link #indexKey}. */
  static final char KEY_SEPARATOR = '\u0001';

  /** Up to {@link WaitingLine#MAX_KEY} of the requirement's terms, sorted; empty if none. */
  final List<String> keyTerms;

  /** {@link #keyTerms} joined: the group's place in {@link WaitingLine}'s index. */
  final String indexKey;

  final TreeSet<ContactRecord> line = new TreeSet<>(ContactRecord::compareOrder);

  /** The same contacts by arrival alone, for the longest wait. */
  final TreeSet<ContactRecord> byArrival =
      new TreeSet<>(Comparator.comparingLong((ContactRecord c) -> c.seq));

  WaitingGroup(String channel, Optional<Selector> requirement) {
    this.channel = channel;
    this.requirement = requirement;
    this.key = key(channel, requirement);
    List<String> terms = RequiredTerms.of(requirement);
    this.keyTerms = terms.subList(0, Math.min(terms.size(), WaitingLine.MAX_KEY));
    this.indexKey = String.join(String.valueOf(KEY_SEPARATOR), keyTerms);
  }

  static String key(String channel, Optional<Selector> requirement) {
    return channel + "\u0000" + requirement.map(Selector::normalized).orElse("");
  }

  boolean matches(AgentRecord agent) {
    return requirement.isEmpty() || requirement.get().matches(agent.view);
  }

  /** {@code line.first()}, kept at hand: the agent-side lookup compares many groups' heads. */
  ContactRecord head;

  void add(ContactRecord contact) {
    line.add(contact);
    if (head == null || ContactRecord.compareOrder(contact, head) < 0) {
      head = contact;
    }
    byArrival.add(contact);
    contact.group = this;
  }

  void remove(ContactRecord contact) {
    line.remove(contact);
    if (contact == head) {
      head = line.isEmpty() ? null : line.first();
    }
    byArrival.remove(contact);
    contact.group = null;
  }
}
