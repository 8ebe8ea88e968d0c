package io.switchboard.routing;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The queued contacts of one channel with the same normalized requirement and task queue (or none),
 * in order of service ({@link ContactRecord#compareOrder}: priority desc, then arrival, newest
 * first in a LIFO queue). A contact that comes back from an offer keeps its arrival number, so it
 * returns to its original place.
 */
final class WaitingGroup {

  final String channel;
  final Requirement requirement;

  /**
   * Channel and requirement text: the group's name in statistics and listings, which groups of
   * several task queues with the same requirement share.
   */
  final String key;

  /** The task queue of its contacts, or null. */
  final @Nullable String queue;

  /** That queue's rules, or null (no queue, or one the router has no rules for). */
  final @Nullable QueueRules rules;

  /** Up to {@link WaitingLine#MAX_KEY} of the requirement's terms, sorted; empty if none. */
  final List<String> keyTerms;

  /**
   * Whether an agent that holds the whole key matches, with no need to evaluate the selector: the
   * requirement is {@link Requirement#exact exact} and the key holds all of its terms.
   */
  final boolean keyDecides;

  /** The group's place in {@link WaitingLine}'s index ({@link TermIds#pack}); 0 when unkeyed. */
  long indexKey;

  /** The other groups filed under the same {@link #indexKey}, as a doubly linked list. */
  @Nullable WaitingGroup nextSameKey;

  @Nullable WaitingGroup previousSameKey;

  /** By order of service. */
  private final ContactHeap line = ContactHeap.byOrderOfService();

  /** The same contacts by arrival alone, for the longest wait. */
  private final ContactHeap byArrival = ContactHeap.byArrival();

  /** The first in order of service, kept at hand: the agent-side lookup compares many heads. */
  @Nullable ContactRecord head;

  /**
   * How many of its contacts were resting for some agent when they joined it ({@link
   * ContactRecord#restCounted}; a rest that ended since lowers it). While it is above 0 an eligible
   * agent may match the group (one its head rests from), so an arriving contact looks for an agent
   * and an agent's lookup looks past the heads that rest from it.
   */
  int resting;

  WaitingGroup(
      String channel, Requirement requirement, @Nullable String queue, @Nullable QueueRules rules) {
    this.channel = channel;
    this.requirement = requirement;
    this.queue = queue;
    this.rules = rules;
    this.key = key(channel, requirement);
    List<String> terms = requirement.terms;
    this.keyTerms = terms.subList(0, Math.min(terms.size(), WaitingLine.MAX_KEY));
    this.keyDecides = requirement.exact && terms.size() <= WaitingLine.MAX_KEY;
  }

  static String key(String channel, Requirement requirement) {
    return requirement.groupKey(channel);
  }

  boolean matches(AgentRecord agent) {
    return requirement.matches(agent);
  }

  /** Whether the agent is below its queue's cap of contacts per agent ({@link QueueRules}). */
  boolean admits(AgentRecord agent) {
    return rules == null || rules.admits(agent);
  }

  void add(ContactRecord contact) {
    if (contact.rests > 0) {
      contact.restCounted = true;
      resting++;
    }
    line.add(contact);
    byArrival.add(contact);
    head = line.first();
    contact.group = this;
  }

  void remove(ContactRecord contact) {
    if (contact.restCounted) {
      contact.restCounted = false;
      resting--;
    }
    line.remove(contact);
    byArrival.remove(contact);
    head = line.first();
    contact.group = null;
  }

  int size() {
    return line.size();
  }

  /**
   * The first contact in order of service that does not rest from {@code agent} ({@link
   * ContactRecord#restsFrom}); the head when none rests. Costs {@code O(k log k)} for {@code k}
   * contacts passed over.
   */
  @Nullable ContactRecord firstFor(AgentRecord agent) {
    ContactRecord first = head;
    if (resting == 0 || first == null || !first.restsFrom(agent)) {
      return first;
    }
    return line.firstWhere(c -> !c.restsFrom(agent));
  }

  boolean isEmpty() {
    return line.isEmpty();
  }

  /** The contact that has waited longest. */
  @Nullable ContactRecord oldest() {
    return byArrival.first();
  }

  /** Each contact, in no particular order: for listings that pick their own. */
  void forEach(java.util.function.Consumer<ContactRecord> action) {
    line.forEach(action);
  }

  /** The contacts in order of service. */
  List<ContactRecord> inOrder() {
    return line.sorted();
  }
}
