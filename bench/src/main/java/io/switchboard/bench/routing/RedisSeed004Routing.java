package io.switchboard.bench.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.params.ZParams;
import redis.clients.jedis.resps.Tuple;

/**
 * Seed 004's ACD on a real Redis server, step for step, one command per call as the seed's code
 * awaits them (no pipelining, no scripts beyond the lock release the seed's lock library uses):
 *
 * <ul>
 *   <li>a contact is a record {@code contact:<n>} with its skills and state, and a member of one
 *       sorted set {@code queue} scored by its enqueue time in ms (FIFO);
 *   <li>an agent is a record {@code agent:<n>} with skills and state; while available it is a
 *       member of one sorted set per skill, {@code {availAgentsSkill}:<skill>}, scored by the time
 *       it became available;
 *   <li>{@code set_agent_state} takes the agent's lock (the seed's Redlock: {@code SET key token NX
 *       PX}, released by the compare-and-delete script), checks the agent exists and is not already
 *       in that state, reads its skills, and for each skill adds it to (or removes it from) the
 *       skill's set and writes the state;
 *   <li>the dispatcher loop pops the oldest contact ({@code ZPOPMIN}; the seed's {@code BZPOPMIN}
 *       only differs when the queue is empty, which it never is here), reads its skills, {@code
 *       ZINTER}s the availability sets of those skills (members in order of summed score, so
 *       longest available first), and tries each agent in that order with {@code
 *       set_agent_state(unavailable)}; the first that succeeds gets the contact (state and agent
 *       set in one command, the seed's {@code json().mset}). If none, it checks the contact was not
 *       completed meanwhile and puts it back with its score plus 1,000 ms.
 * </ul>
 *
 * <p>Departures from the seed, each in Redis's favour or neutral: records are hashes ({@code
 * HGET}/{@code HSET}) because the Debian server has no JSON module (one command either way); times
 * come from the simulation's virtual clock; the seed's {@code sleep(uniform(0, 2))} after a miss is
 * left out; and the loop, which in the seed spins whether or not anybody is free, runs only while
 * an agent is available, and stops after the assignment the event made possible, or after one
 * fruitless pass over the whole queue. A completed contact's agent is known to the client (no
 * read).
 */
final class RedisSeed004Routing implements RoutingTarget {

  private static final String QUEUE = "queue";
  private static final String AVAILABLE = "1";
  private static final String UNAVAILABLE = "0";
  private static final String QUEUED = "queued";
  private static final String ASSIGNED = "assigned";
  private static final String COMPLETE = "complete";
  private static final long LOCK_TIMEOUT_MILLIS = 10_000;

  /** redis-py's {@code Lock.release} script. */
  private static final String RELEASE =
      "local token = redis.call('get', KEYS[1]) "
          + "if not token or token ~= ARGV[1] then return 0 end "
          + "redis.call('del', KEYS[1]) return 1";

  private final Jedis redis;
  private final Decisions decisions;
  private final String releaseSha;
  private final int[] agentOf;
  private long now = 1_700_000_000_000L;
  private long lockTokens;
  private int available;
  private int queued;
  private long commands;
  private long iterations;
  private long assignments;
  private long fullPasses;
  private long @Nullable [] atMeasuring;

  RedisSeed004Routing(String host, int port, int maxContacts, Decisions decisions) {
    this.redis = new Jedis(host, port, 60_000);
    this.decisions = decisions;
    this.agentOf = new int[maxContacts];
    redis.flushAll();
    this.releaseSha = redis.scriptLoad(RELEASE);
  }

  // ---- the seed's operations -------------------------------------------------------------

  @Override
  public void addAgent(int agent, long skills) {
    createAgent(agent, skillKeys(skills));
    available(agent);
  }

  /** The seed's {@code create_agent}: the record, not available, under the agent's lock. */
  void createAgent(int agent, List<String> skillKeys) {
    String key = agentKey(agent);
    String lock = key + ":lock";
    String token = lock();
    if (!lockFor(lock, token)) {
      throw new IllegalStateException("create_agent: " + key + " is locked");
    }
    try {
      commands++;
      if (redis.exists(key)) {
        throw new IllegalStateException("create_agent: " + key + " exists already");
      }
      commands++;
      redis.hset(
          key, Map.of("id", key, "skills", String.join(",", skillKeys), "state", UNAVAILABLE));
    } finally {
      release(lock, token);
    }
  }

  /** The seed's {@code set_agent_state(available)}: in the availability set of every skill. */
  void available(int agent) {
    String key = agentKey(agent);
    if (!setAgentState(key, AVAILABLE)) {
      throw new IllegalStateException("set_agent_state: " + key + " refused");
    }
  }

  @Override
  public void arrive(int contact, long requirement) {
    createContact(contact, requirement);
    dispatch();
  }

  /** The seed's {@code create_contact}: the record, then the queue entry scored by now. */
  private void createContact(int contact, long requirement) {
    createContact(contact, skillKeys(requirement));
  }

  /** The seed's {@code create_contact} of a contact needing every skill of {@code skillKeys}. */
  void createContact(int contact, List<String> skillKeys) {
    String key = contactKey(contact);
    commands += 2;
    redis.hset(key, Map.of("skills", String.join(",", skillKeys), "state", QUEUED, "agent", ""));
    redis.zadd(QUEUE, now, key);
    queued++;
  }

  /**
   * Creates every contact (as the seed's {@code create_contact}), then runs the dispatcher loop as
   * the seed does at start-up until no agent is available or a whole pass assigned nothing.
   */
  @Override
  public void load(long[] requirements) {
    for (int c = 0; c < requirements.length; c++) {
      createContact(c, requirements[c]);
      now++;
    }
    startDispatcher();
  }

  /**
   * The seed's dispatcher loop at start-up: runs until no agent is available or a whole pass over
   * the queue assigned nothing.
   */
  void startDispatcher() {
    long fruitless = 0;
    while (available > 0 && fruitless < queued) {
      fruitless = dispatchOnce() ? 0 : fruitless + 1;
    }
  }

  /** The server's {@code used_memory} ({@code INFO memory}), in bytes. */
  long usedMemory() {
    String info = redis.info("memory");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("no used_memory in INFO memory: " + info);
  }

  @Override
  public void complete(int contact) {
    commands++;
    redis.hset(contactKey(contact), "state", COMPLETE);
    if (!setAgentState(agentKey(agentOf[contact]), AVAILABLE)) {
      throw new IllegalStateException("set_agent_state: agent:" + agentOf[contact] + " refused");
    }
    dispatch();
  }

  @Override
  public void accept(int contact) {}

  @Override
  public void advanceMillis(long millis) {
    now += millis;
  }

  /** Runs the dispatcher loop while an agent is free, until one assignment or one idle pass. */
  void dispatch() {
    long fruitless = 0;
    while (available > 0 && queued > 0) {
      if (fruitless >= queued) {
        fullPasses++;
        return;
      }
      if (dispatchOnce()) {
        return;
      }
      fruitless++;
    }
  }

  /** One turn of the seed's dispatcher loop; whether it assigned the contact it popped. */
  private boolean dispatchOnce() {
    iterations++;
    commands += 3;
    Tuple popped = redis.zpopmin(QUEUE);
    queued--;
    String contactKey = popped.getElement();
    String[] skills = redis.hget(contactKey, "skills").split(",");
    List<String> agents = redis.zinter(new ZParams(), skills);
    for (String agent : agents) {
      if (setAgentState(agent, UNAVAILABLE)) {
        commands++;
        redis.hset(contactKey, Map.of("agent", agent, "state", ASSIGNED));
        int contact = number(contactKey);
        int agentNumber = number(agent);
        agentOf[contact] = agentNumber;
        assignments++;
        decisions.decided(contact, agentNumber);
        return true;
      }
    }
    commands++;
    if (!COMPLETE.equals(redis.hget(contactKey, "state"))) {
      commands++;
      redis.zadd(QUEUE, popped.getScore() + 1_000, contactKey);
      queued++;
    }
    return false;
  }

  /** The seed's {@code set_agent_state}: whether the state was changed. */
  private boolean setAgentState(String agentKey, String state) {
    String lock = agentKey + ":lock";
    String token = lock();
    if (!lockFor(lock, token)) {
      return false;
    }
    try {
      commands += 2;
      if (!redis.exists(agentKey) || state.equals(redis.hget(agentKey, "state"))) {
        return false;
      }
      commands++;
      String[] skills = redis.hget(agentKey, "skills").split(",");
      for (String skill : skills) {
        commands += 2;
        if (state.equals(AVAILABLE)) {
          redis.zadd(skill, now, agentKey);
        } else {
          redis.zrem(skill, agentKey);
        }
        redis.hset(agentKey, "state", state);
      }
      available += state.equals(AVAILABLE) ? 1 : -1;
      return true;
    } finally {
      release(lock, token);
    }
  }

  private String lock() {
    return Long.toString(++lockTokens);
  }

  private boolean lockFor(String lock, String token) {
    commands++;
    return redis.set(lock, token, SetParams.setParams().nx().px(LOCK_TIMEOUT_MILLIS)) != null;
  }

  /** redis-py: {@code if lock.locked(): lock.release()}, a GET and the release script. */
  private void release(String lock, String token) {
    commands++;
    if (redis.get(lock) != null) {
      commands++;
      redis.evalsha(releaseSha, 1, lock, token);
    }
  }

  // ---- names -----------------------------------------------------------------------------

  private static String agentKey(int agent) {
    return "agent:" + agent;
  }

  private static String contactKey(int contact) {
    return "contact:" + contact;
  }

  private static int number(String key) {
    return Integer.parseInt(key, key.indexOf(':') + 1, key.length(), 10);
  }

  private static List<String> skillKeys(long mask) {
    return skillKeys(CallCenter.names(mask));
  }

  /** The availability-set keys of skills named {@code names}. */
  static List<String> skillKeys(List<String> names) {
    List<String> keys = new ArrayList<>(names.size());
    for (String name : names) {
      keys.add("{availAgentsSkill}:" + name);
    }
    return keys;
  }

  @Override
  public void measuring() {
    atMeasuring = new long[] {iterations, commands, fullPasses, assignments};
  }

  /** Counters since {@link #measuring()} (or since the start): iterations, commands, passes. */
  @Override
  public String notes() {
    long[] from = atMeasuring == null ? new long[4] : atMeasuring;
    long decided = Math.max(1, assignments - from[3]);
    return String.format(
        "measured cycles: %,d dispatcher iterations (%.1f per decision), %,d Redis commands"
            + " (%.1f per decision), %,d fruitless full passes",
        iterations - from[0],
        (iterations - from[0]) / (double) decided,
        commands - from[1],
        (commands - from[1]) / (double) decided,
        fullPasses - from[2]);
  }

  @Override
  public void close() {
    redis.close();
  }
}
