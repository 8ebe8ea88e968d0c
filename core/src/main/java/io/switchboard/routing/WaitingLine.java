package io.switchboard.routing;

import io.switchboard.internal.LongObjectMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Every queued contact, in one {@link WaitingGroup} per (channel, normalized requirement, task
 * queue). Only groups with a contact in them are kept.
 *
 * <p>An agent that frees up must find the best head among the groups it matches. Scanning every
 * group costs a selector evaluation per group, and with requirements of one to three of 40 skills
 * there can be ten thousand groups. So each group is filed under its key: the set of (up to {@link
 * #MAX_KEY}) terms its requirement cannot match without ({@link RequiredTerms}), as small ids
 * packed into a {@code long} ({@link TermIds}). A group can only match an agent whose terms include
 * its whole key, so the agent looks up each subset of its own terms (only terms some key uses,
 * subsets no larger than the largest key) and looks only at the groups found, plus the groups
 * without a key. When the subsets would outnumber the groups (an agent with very many relevant
 * terms) it scans the groups instead, so the lookup never costs more than the scan.
 *
 * <p>A group found by its key whose requirement is nothing but those terms ({@link
 * WaitingGroup#keyDecides}, e.g. {@code skills HAS ALL ('a', 'b')}) matches the agent without an
 * evaluation; any other is evaluated, and only when its head would beat the best head so far.
 */
final class WaitingLine {

  /** At most this many terms make a group's key; more would only multiply an agent's subsets. */
  static final int MAX_KEY = 3;

  private final Map<String, Channel> byChannel = new HashMap<>();
  private int size;

  /** An agent's relevant term ids, reused by every lookup (the router's lock is held). */
  private int[] scratch = new int[16];

  /** The non-empty groups of one channel, and their index. */
  private static final class Channel {
    /** By requirement text and task queue ({@link #groupName}). */
    final Map<String, WaitingGroup> groups = new HashMap<>();

    final Set<WaitingGroup> unkeyed = new LinkedHashSet<>();
    final LongObjectMap<WaitingGroup> byKey = new LongObjectMap<>();
    final TermIds terms = new TermIds();
    final int[] keySizes = new int[MAX_KEY + 1];

    void index(WaitingGroup g) {
      int k = g.keyTerms.size();
      int[] ids = new int[k];
      for (int i = 0; i < k; i++) {
        ids[i] = terms.acquire(g.keyTerms.get(i));
        if (ids[i] < 0) {
          // out of ids (millions of distinct terms waiting): file it unkeyed, still correct
          for (int j = 0; j < i; j++) {
            terms.release(g.keyTerms.get(j));
          }
          k = 0;
          break;
        }
      }
      if (k == 0) {
        g.indexKey = 0;
        unkeyed.add(g);
        return;
      }
      Arrays.sort(ids);
      g.indexKey = TermIds.pack(ids, k);
      WaitingGroup first = byKey.get(g.indexKey);
      g.nextSameKey = first;
      g.previousSameKey = null;
      if (first != null) {
        first.previousSameKey = g;
      }
      byKey.put(g.indexKey, g);
      keySizes[k]++;
    }

    void unindex(WaitingGroup g) {
      if (g.indexKey == 0) {
        unkeyed.remove(g);
        return;
      }
      if (g.previousSameKey != null) {
        g.previousSameKey.nextSameKey = g.nextSameKey;
      } else if (g.nextSameKey != null) {
        byKey.put(g.indexKey, g.nextSameKey);
      } else {
        byKey.remove(g.indexKey);
      }
      if (g.nextSameKey != null) {
        g.nextSameKey.previousSameKey = g.previousSameKey;
      }
      g.nextSameKey = null;
      g.previousSameKey = null;
      g.keyTerms.forEach(terms::release);
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

  /**
   * Queues the contact in the group of its current requirement and task queue, whose {@code rules}
   * (null: none) order it; returns whether an eligible agent may match it: the group was empty, or
   * holds contacts resting from some agent ({@link WaitingGroup#resting}), which that agent may be
   * free beside.
   */
  boolean add(ContactRecord contact, @Nullable QueueRules rules) {
    Channel channel = byChannel.get(contact.channel);
    if (channel == null) {
      channel = new Channel();
      byChannel.put(contact.channel, channel);
    }
    String name = groupName(contact.requirement, contact.queue);
    WaitingGroup group = channel.groups.get(name);
    boolean wasEmpty = group == null;
    if (group == null) {
      group = new WaitingGroup(contact.channel, contact.requirement, contact.queue, rules);
      channel.groups.put(name, group);
      channel.index(group);
    }
    contact.lifo = rules != null && rules.lifo;
    group.add(contact);
    size++;
    return wasEmpty || group.resting > 0;
  }

  void remove(ContactRecord contact) {
    WaitingGroup group = Objects.requireNonNull(contact.group);
    group.remove(contact);
    size--;
    if (group.isEmpty()) {
      Channel channel =
          Objects.requireNonNull(byChannel.get(group.channel), "a group's channel is in the line");
      channel.groups.remove(groupName(group.requirement, group.queue));
      channel.unindex(group);
      if (channel.groups.isEmpty()) {
        byChannel.remove(group.channel);
      }
    }
  }

  /** A group's name in its channel: the requirement text, and the task queue if any. */
  private static String groupName(Requirement requirement, @Nullable String queue) {
    return queue == null ? requirement.text : requirement.text + '\u0000' + queue;
  }

  /**
   * A queued contact's rest ended: its group no longer counts it ({@link WaitingGroup#resting}).
   */
  void restEnded(ContactRecord contact) {
    WaitingGroup group = contact.group;
    if (group != null && contact.restCounted) {
      contact.restCounted = false;
      group.resting--;
    }
  }

  /**
   * The best queued contact the agent matches (and whose task queue's cap it is below) on a channel
   * where it is eligible, in order of service, passing over contacts resting from the agent at
   * {@code now}; null if none.
   */
  @Nullable ContactRecord bestFor(AgentRecord agent) {
    ContactRecord best = null;
    for (String name : agent.capacity.keySet()) {
      Channel channel = byChannel.get(name);
      if (channel == null || !agent.eligible(name)) {
        continue;
      }
      for (WaitingGroup group : channel.unkeyed) {
        best = better(best, group, agent, false);
      }
      int largest = channel.largestKey();
      if (largest == 0) {
        continue;
      }
      int n = relevantIds(channel, agent);
      int keyed = channel.groups.size() - channel.unkeyed.size();
      if (subsets(n, largest) > keyed) {
        for (WaitingGroup group : channel.groups.values()) {
          if (group.indexKey != 0) {
            best = better(best, group, agent, false);
          }
        }
      } else {
        best = walk(channel.byKey, scratch, n, 0, largest, 0L, 0, best, agent);
      }
    }
    return best;
  }

  /** Puts the ids of the agent's terms that some key of the channel uses in scratch, sorted. */
  private int relevantIds(Channel channel, AgentRecord agent) {
    String[] terms = agent.terms;
    if (scratch.length < terms.length) {
      scratch = new int[Math.max(terms.length, scratch.length * 2)];
    }
    int n = 0;
    for (String term : terms) {
      int id = channel.terms.id(term);
      if (id >= 0) {
        scratch[n++] = id;
      }
    }
    Arrays.sort(scratch, 0, n);
    return n;
  }

  /**
   * Looks up every subset of {@code ids[from..n)} (up to {@code left} more ids) extending {@code
   * key}, whose next id goes at bit {@code shift}, in ascending order as {@link TermIds#pack} does.
   */
  private static @Nullable ContactRecord walk(
      LongObjectMap<WaitingGroup> byKey,
      int[] ids,
      int n,
      int from,
      int left,
      long key,
      int shift,
      @Nullable ContactRecord best,
      AgentRecord agent) {
    for (int i = from; i < n; i++) {
      long k = key | (long) (ids[i] + 1) << shift;
      for (WaitingGroup g = byKey.get(k); g != null; g = g.nextSameKey) {
        best = better(best, g, agent, true);
      }
      if (left > 1) {
        best = walk(byKey, ids, n, i + 1, left - 1, k, shift + TermIds.BITS, best, agent);
      }
    }
    return best;
  }

  /**
   * The better of {@code best} and the group's first contact not resting from the agent, if the
   * agent matches the group; {@code keyHeld} says the agent holds the group's whole key.
   */
  private static @Nullable ContactRecord better(
      @Nullable ContactRecord best, WaitingGroup group, AgentRecord agent, boolean keyHeld) {
    Objects.requireNonNull(group.head); // a filed group is not empty
    ContactRecord head = group.firstFor(agent);
    if (head == null || (best != null && ContactRecord.compareOrder(head, best) >= 0)) {
      return best;
    }
    return group.admits(agent) && ((keyHeld && group.keyDecides) || group.matches(agent))
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
}
