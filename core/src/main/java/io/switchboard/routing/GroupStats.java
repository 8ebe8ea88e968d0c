package io.switchboard.routing;

import java.util.Optional;

/**
 * Live figures of one requirement group: the contacts of one channel with the same normalized
 * requirements. A contact counts in the group of its current requirements (after escalation).
 *
 * @param channel the channel
 * @param requirements the normalized requirement selector, or empty for any agent
 * @param contacts the figures
 */
public record GroupStats(String channel, Optional<String> requirements, ContactStats contacts) {}
