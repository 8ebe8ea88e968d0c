package io.switchboard.queue.spi;

import java.util.UUID;

/**
 * Message ids: a UUID whose high half is the engine's id prefix (fixed when its store is first
 * created) and whose low half is the message's serial. An id names one message for the life of the
 * store; an id of another store, or no id at all, names none.
 *
 * @param prefix the high half of every id this engine issues
 */
public record MessageIds(long prefix) {

  /** The id of the message with this serial. */
  public String id(long serial) {
    return new UUID(prefix, serial).toString();
  }

  /** The serial an id carries, or 0 when the id was not issued with this prefix. */
  public long serial(String id) {
    if (id == null || id.length() != 36) {
      return 0;
    }
    try {
      UUID uuid = UUID.fromString(id);
      return uuid.getMostSignificantBits() == prefix ? uuid.getLeastSignificantBits() : 0;
    } catch (IllegalArgumentException e) {
      return 0;
    }
  }
}
