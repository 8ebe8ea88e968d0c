package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every queued contact, in one {@link WaitingGroup} per (channel, normalized requirement). Only
 * groups with a contact in them are kept.
 *
 * <p>An agent that frees up must find the best head among the groups it matches. Scanning every
 * group costs a selector evaluation per group, and with requirements of one to three of 40 skills
 * there can be ten thousand groups. So each group is filed under its key: the set of (up to {@link
 * #MAX_KEY}) terms its requirement cannot match without ({@link RequiredTerms}). A group can only
 * match an agent whose terms include its whole key, so the agent looks up each subset of its own
 * terms (only terms some key uses, subsets no larger than the largest key) and evaluates just the
 * groups found, plus the groups without a key. When the subsets would outnumber the groups (an
 * agent with very many relevant terms) it scans the groups instead, so the lookup never costs more
 * than the scan.
 */
final class WaitingLine {

  /** At most this many terms make a group's key; more would only multiply an agent's subsets. */
  static final int MAX_KEY = 3;

  private final Map<String, Channel> byChannel = new HashMap<>();
  private int size;

  /** The non-empty groups of one channel, and their index. */
  private static final class Channel {
    final Map<String, WaitingGroup> groups = new LinkedHashMap<>();
    final Set<WaitingGroup> unkeyed = new LinkedHashSet<>();
    final Map<String, List<WaitingGroup>> byKey = new HashMap<>();
    final Map<String, Integer> termUse = new HashMap<>();
    final int[] keySizes = new int[MAX_KEY + 1];

    void index(WaitingGroup g) {
      if (g.keyTerms.isEmpty()) {
        unkeyed.add(g);
        return;
      }
      byKey.computeIfAbsent(g.indexKey, k -> new ArrayList<>(1)).add(g);
      g.keyTerms.forEach(t -> termUse.merge(t, 1, Integer::sum));
      keySizes[g.keyTerms.size()]++;
    }

    void unindex(WaitingGroup g) {
      if (g.keyTerms.isEmpty()) {
        unkeyed.remove(g);
        return;
      }
      List<WaitingGroup> bucket = byKey.get(g.indexKey);
      bucket.remove(g);
      if (bucket.isEmpty()) {
        byKey.remove(g.indexKey);
      }
      g.keyTerms.forEach(t -> termUse.merge(t, -1, (a, b) -> a + b == 0 ? null : a + b));
      keySizes[g.keyTerms.size()]--;
    }

    int largestKey() {
      for (int k = MAX_KEY; k > 0; k--) {
        if (keySizes[k] > 0) {
          return k;
        }
      }
      return 0;
    }
  }

  /** Queues the contact in the group of its current requirement; returns whether it was empty. */
  boolean add(ContactRecord contact) {
    String key = WaitingGroup.key(contact.channel, contact.requirement);
    Channel channel = byChannel.computeIfAbsent(contact.channel, c -> new Channel());
    WaitingGroup group = channel.groups.get(key);
    if (group == null) {
      group = new WaitingGroup(contact.channel, contact.requirement);
      channel.groups.put(key, group);
      channel.index(group);
    }
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
      Channel channel = byChannel.get(group.channel);
      channel.groups.remove(group.key);
      channel.unindex(group);
      if (channel.groups.isEmpty()) {
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
    for (String name : agent.capacity.keySet()) {
      Channel channel = byChannel.get(name);
      if (channel == null || !agent.eligible(name)) {
        continue;
      }
      for (WaitingGroup group : channel.unkeyed) {
        best = better(best, group, agent);
      }
      int largest = channel.largestKey();
      if (largest == 0) {
        continue;
      }
      List<String> relevant = new ArrayList<>();
      for (String term : agent.terms) {
        if (channel.termUse.containsKey(term)) {
          relevant.add(term);
        }
      }
      int keyed = channel.groups.size() - channel.unkeyed.size();
      if (subsets(relevant.size(), largest) > keyed) {
        for (WaitingGroup group : channel.groups.values()) {
          if (!group.keyTerms.isEmpty()) {
            best = better(best, group, agent);
          }
        }
      } else {
        best = walk(channel, relevant, 0, largest, new StringBuilder(), best, agent);
      }
    }
    return Optional.ofNullable(best);
  }

  /** Looks up every subset of {@code terms[from..]} (up to {@code left} more terms) as a key. */
  private static ContactRecord walk(
      Channel channel,
      List<String> terms,
      int from,
      int left,
      StringBuilder prefix,
      ContactRecord best,
      AgentRecord agent) {
    for (int i = from; i < terms.size(); i++) {
      int mark = prefix.length();
      if (mark > 0) {
        prefix.append(WaitingGroup.KEY_SEPARATOR);
      }
      prefix.append(terms.get(i));
      List<WaitingGroup> bucket = channel.byKey.get(prefix.toString());
      if (bucket != null) {
        for (WaitingGroup group : bucket) {
          best = better(best, group, agent);
        }
      }
      if (left > 1) {
        best = walk(channel, terms, i + 1, left - 1, prefix, best, agent);
      }
      prefix.setLength(mark);
    }
    return best;
  }

  private static ContactRecord better(ContactRecord best, WaitingGroup group, AgentRecord agent) {
    ContactRecord head = group.head;
    return (best == null || ContactRecord.compareOrder(head, best) < 0) && group.matches(agent)
        ? head
        : best;
  }

  /** How many non-empty subsets of at most {@code k} of {@code n} terms there are, capped. */
  static long subsets(int n, int k) {
    long total = 0;
    long c = 1;
    for (int i = 1; i <= k && i <= n; i++) {
      c = c * (n - i + 1) / i;
      total += c;
      if (total > Integer.MAX_VALUE) {
        return Integer.MAX_VALUE;
      }
    }
    return total;
  }

  int size() {
    return size;
  }

  List<WaitingGroup> groups() {
    List<WaitingGroup> all = new ArrayList<>();
    byChannel.values().forEach(c -> all.addAll(c.groups.values()));
    return all;
  }

  /** Whether a group with this key has contacts. */
  Optional<WaitingGroup> group(String channel, Optional<Selector> requirement) {
    Channel c = byChannel.get(channel);
    return c == null
        ? Optional.empty()
        : Optional.ofNullable(c.groups.get(WaitingGroup.key(channel, requirement)));
  }
}
