package io.switchboard.routing.spi;

import io.switchboard.routing.Presence;
import java.util.Map;

/**
 * An agent as stored. Its load, wrap-up count and pending offers are not stored: recovery derives
 * them from the contacts and reservations that name the agent.
 *
 * @param serial creation order, the last tie-break of every strategy
 * @param idleSince clock millis when the agent last became idle
 * @param idleSeq breaks ties of {@code idleSince}
 * @param misses consecutive offers missed
 */
public record StoredAgent(
    String id,
    long serial,
    Map<String, Object> attributes,
    Map<String, Integer> capacity,
    Presence presence,
    long idleSince,
    long idleSeq,
    int misses) {}
