package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every queued contact, in one {@link WaitingGroup} per (channel, normalized requirement). Only
 * groups with a contact in them are kept, so an agent that frees up tests each live requirement of
 * its channels once and takes the best head among those that match: {@code O(g)} selector
 * evaluations for {@code g} non-empty groups, plus {@code O(log n)} to take the head.
 */
final class WaitingLine {

  private final Map<String, Map<String, WaitingGroup>> byChannel = new HashMap<>();
  private int size;

  /** Queues the contact in the group of its current requirement; returns whether it was empty. */
  boolean add(ContactRecord contact) {
    String key = WaitingGroup.key(contact.channel, contact.requirement);
    WaitingGroup group =
        byChannel
            .computeIfAbsent(contact.channel, c -> new LinkedHashMap<>())
            .computeIfAbsent(key, k -> new WaitingGroup(contact.channel, contact.requirement));
    boolean wasEmpty = group.line.isEmpty();
    group.add(contact);
    size++;
    return wasEmpty;
  }

  void remove(ContactRecord contact) {
    WaitingGroup group = contact.group;
    group.remove(contact);
    size--;
    if (group.line.isEmpty()) {
      Map<String, WaitingGroup> groups = byChannel.get(group.channel);
      groups.remove(group.key);
      if (groups.isEmpty()) {
        byChannel.remove(group.channel);
      }
    }
  }

  /**
   * The best queued contact the agent matches on a channel where it is eligible, by priority then
   * arrival.
   */
  Optional<ContactRecord> bestFor(AgentRecord agent) {
    ContactRecord best = null;
    for (String channel : agent.capacity.keySet()) {
      Map<String, WaitingGroup> groups = byChannel.get(channel);
      if (groups == null || !agent.eligible(channel)) {
        continue;
      }
      for (WaitingGroup group : groups.values()) {
        ContactRecord head = group.line.first();
        if ((best == null || ContactRecord.compareOrder(head, best) < 0) && group.matches(agent)) {
          best = head;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  int size() {
    return size;
  }

  List<WaitingGroup> groups() {
    List<WaitingGroup> all = new ArrayList<>();
    byChannel.values().forEach(g -> all.addAll(g.values()));
    return all;
  }

  /** Whether a group with this key has contacts. */
  Optional<WaitingGroup> group(String channel, Optional<Selector> requirement) {
    Map<String, WaitingGroup> groups = byChannel.get(channel);
    return groups == null
        ? Optional.empty()
        : Optional.ofNullable(groups.get(WaitingGroup.key(channel, requirement)));
  }
}
