package io.switchboard.routing;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What an agent is doing, in a workspace's own terms (Available, Lunch, Training, Offline): an
 * agent is in exactly one activity, and only an {@code available} one takes work. The router keeps
 * an agent's presence from its activity: an available activity is {@link Presence#available()}, the
 * activity named {@code offline} is {@link Presence#offline()}, any other is {@link
 * Presence#away(String) away} with the activity's name as the reason.
 *
 * @param name {@code [A-Za-z0-9_-]}, 1..64 characters, unique in its workspace ignoring case
 * @param available whether an agent in it is offered work
 */
public record Activity(String name, boolean available) {

  /** The activities of a workspace that defines none: the three presence values. */
  public static final List<Activity> DEFAULTS =
      List.of(
          new Activity("available", true),
          new Activity("away", false),
          new Activity("offline", false));

  public Activity {
    Checks.channel("activity name", Objects.requireNonNull(name, "activity name"));
  }

  /** The presence of an agent in this activity. */
  public Presence presence() {
    if (available) {
      return Presence.available();
    }
    return name.equalsIgnoreCase("offline") ? Presence.offline() : Presence.away(name);
  }

  /** The activity name of a presence that was set as such: its kind, lower case. */
  static String label(Presence presence) {
    return presence.kind().name().toLowerCase(Locale.ROOT);
  }
}
