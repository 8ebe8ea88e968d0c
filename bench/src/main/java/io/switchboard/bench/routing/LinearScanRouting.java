package io.switchboard.bench.routing;

import java.util.Arrays;

/**
 * The baseline: no index at all, every decision scans. A contact that arrives scans all agents for
 * the available one with every required skill that has been idle longest; an agent that frees up
 * scans the waiting contacts, oldest first, for the first one it has every skill for. Skills are
 * bit masks, so one comparison is one {@code AND}: this is the cheapest scan there is, not a
 * strawman. Same semantics as Switchboard with longest idle and equal priorities: the simulation's
 * smoke test checks that both make the same decisions.
 */
final class LinearScanRouting implements RoutingTarget {

  private final Decisions decisions;
  private long[] agentSkills = new long[0];
  private long[] idleSeq = new long[0];
  private boolean[] available = new boolean[0];
  private final long[] requirementOf;
  private final int[] agentOf;
  private int agents;
  private long idleCounter;

  /** Waiting contacts in arrival order; -1 marks a hole left by a contact that was offered. */
  private int[] waiting = new int[1_024];

  private long freed;
  private long contactsExamined;
  private long[] atMeasuring = new long[2];

  private int waitingStart;
  private int waitingEnd;
  private int holes;

  LinearScanRouting(int maxContacts, Decisions decisions) {
    this.decisions = decisions;
    this.requirementOf = new long[maxContacts];
    this.agentOf = new int[maxContacts];
  }

  @Override
  public void addAgent(int agent, long skills) {
    if (agent >= agentSkills.length) {
      int size = Math.max(16, Math.max(agent + 1, agentSkills.length * 2));
      agentSkills = Arrays.copyOf(agentSkills, size);
      idleSeq = Arrays.copyOf(idleSeq, size);
      available = Arrays.copyOf(available, size);
    }
    agents = Math.max(agents, agent + 1);
    agentSkills[agent] = skills;
    becomeIdle(agent);
  }

  @Override
  public void arrive(int contact, long requirement) {
    requirementOf[contact] = requirement;
    int best = -1;
    for (int a = 0; a < agents; a++) {
      if (available[a]
          && (agentSkills[a] & requirement) == requirement
          && (best < 0 || idleSeq[a] < idleSeq[best])) {
        best = a;
      }
    }
    if (best >= 0) {
      offer(contact, best);
    } else {
      if (waitingEnd == waiting.length) {
        compact();
      }
      waiting[waitingEnd++] = contact;
    }
  }

  @Override
  public void complete(int contact) {
    becomeIdle(agentOf[contact]);
  }

  @Override
  public void accept(int contact) {}

  @Override
  public void advanceMillis(long millis) {}

  @Override
  public void measuring() {
    atMeasuring = new long[] {freed, contactsExamined};
  }

  @Override
  public String notes() {
    long f = Math.max(1, freed - atMeasuring[0]);
    return String.format(
        "measured cycles: %.1f line slots examined per freed agent (holes included), %,d agents"
            + " per arrival",
        (contactsExamined - atMeasuring[1]) / (double) f, agents);
  }

  @Override
  public void close() {}

  private void becomeIdle(int agent) {
    available[agent] = true;
    idleSeq[agent] = ++idleCounter;
    long skills = agentSkills[agent];
    freed++;
    for (int i = waitingStart; i < waitingEnd; i++) {
      int contact = waiting[i];
      contactsExamined++;
      if (contact >= 0 && (requirementOf[contact] & skills) == requirementOf[contact]) {
        waiting[i] = -1;
        holes++;
        while (waitingStart < waitingEnd && waiting[waitingStart] < 0) {
          waitingStart++;
          holes--;
        }
        offer(contact, agent);
        return;
      }
    }
  }

  private void offer(int contact, int agent) {
    available[agent] = false;
    agentOf[contact] = agent;
    decisions.decided(contact, agent);
  }

  /** Makes room at the end: drops the holes, and doubles the array if it is still half full. */
  private void compact() {
    int j = 0;
    for (int i = waitingStart; i < waitingEnd; i++) {
      if (waiting[i] >= 0) {
        waiting[j++] = waiting[i];
      }
    }
    waitingStart = 0;
    waitingEnd = j;
    holes = 0;
    if (j * 2 > waiting.length) {
      waiting = Arrays.copyOf(waiting, waiting.length * 2);
    }
  }
}
