package io.switchboard.routing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent to create.
 *
 * @param id {@code [A-Za-z0-9_.:@-]}, 1..128 characters
 * @param attributes what requirements select on: strings, finite numbers, booleans, and lists of
 *     strings (skills, languages); at most 64, names {@code [A-Za-z_][A-Za-z0-9_.-]*} not starting
 *     with {@code sys.}
 * @param capacity contacts the agent handles at once per channel, 0..100 each (e.g. voice 1, chat
 *     3); a channel not listed has capacity 0
 * @param presence initial presence; default offline
 * @param activity the initial activity's name when it is not the presence's ({@link Activity})
 */
public record NewAgent(
    String id,
    Map<String, Object> attributes,
    Map<String, Integer> capacity,
    Presence presence,
    Optional<String> activity) {

  /** An agent whose activity is its presence. */
  public NewAgent(
      String id, Map<String, Object> attributes, Map<String, Integer> capacity, Presence presence) {
    this(id, attributes, capacity, presence, Optional.empty());
  }

  public NewAgent {
    Objects.requireNonNull(id, "id");
    attributes = Checks.copyAttributes(attributes);
    capacity = Map.copyOf(Objects.requireNonNull(capacity, "capacity"));
    Objects.requireNonNull(presence, "presence");
    Objects.requireNonNull(activity, "activity");
  }

  /** This agent starting in {@code activity} (its presence follows from the activity). */
  public NewAgent in(Activity activity) {
    return new NewAgent(
        id, attributes, capacity, activity.presence(), Optional.of(activity.name()));
  }

  public static Builder builder(String id) {
    return new Builder(id);
  }

  /** Builds a {@link NewAgent}. */
  public static final class Builder {
    private final String id;
    private final Map<String, Object> attributes = new LinkedHashMap<>();
    private final Map<String, Integer> capacity = new LinkedHashMap<>();
    private Presence presence = Presence.offline();

    private Builder(String id) {
      this.id = Objects.requireNonNull(id, "id");
    }

    public Builder attribute(String name, Object value) {
      attributes.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder attributes(Map<String, ?> values) {
      values.forEach(this::attribute);
      return this;
    }

    public Builder capacity(String channel, int contacts) {
      capacity.put(Objects.requireNonNull(channel, "channel"), contacts);
      return this;
    }

    public Builder presence(Presence presence) {
      this.presence = Objects.requireNonNull(presence, "presence");
      return this;
    }

    public NewAgent build() {
      return new NewAgent(id, attributes, capacity, presence);
    }
  }
}
