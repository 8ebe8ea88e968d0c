package io.switchboard.queue;

import io.switchboard.selector.Attributes;
import io.switchboard.selector.Selector;
import io.switchboard.selector.SelectorException;
import io.switchboard.selector.SystemFacts;
import io.switchboard.time.TimeSource;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link MessageFilter} written in the selector language ({@code docs/selectors.md}). Unlike a
 * plain predicate, the engine can look inside it: on a queue with indexed attributes, a filtered
 * receive or browse walks the attribute index instead of the queue.
 *
 * <p>Attributes read as the selector expects: {@code String} values as strings, {@code Number}
 * values as decimals, {@code StringList} values as lists; {@code Binary} values compare with
 * nothing. The reserved names read system facts: {@code sys.priority}, {@code sys.groupId}, {@code
 * sys.receiveCount}, {@code sys.sentAt} (epoch ms) and {@code sys.age} (whole seconds since the
 * send).
 */
public final class SelectorFilter implements MessageFilter {

  private final Selector selector;

  private SelectorFilter(Selector selector) {
    this.selector = selector;
  }

  /**
   * Parses a selector; a bad one is refused with {@link ErrorCode#INVALID_SELECTOR} and a message
   * giving the column and what was expected.
   */
  public static SelectorFilter parse(String text) {
    try {
      return new SelectorFilter(Selector.parse(text));
    } catch (SelectorException e) {
      throw new QueueException(ErrorCode.INVALID_SELECTOR, String.valueOf(e.getMessage()), e);
    }
  }

  public static SelectorFilter of(Selector selector) {
    return new SelectorFilter(Objects.requireNonNull(selector, "selector"));
  }

  public Selector selector() {
    return selector;
  }

  /**
   * Tests at the system clock's time ({@link TimeSource#system()}). The engine never calls this
   * form: it passes its own clock's time to {@link #test(MessageView, long)}, and so should anyone
   * who tests against an engine on another clock.
   */
  @Override
  public boolean test(MessageView message) {
    return test(message, TimeSource.system().millis());
  }

  @Override
  public boolean test(MessageView message, long nowMillis) {
    return selector.matches(new Binding(message, nowMillis));
  }

  @Override
  public String toString() {
    return selector.text();
  }

  private record Binding(MessageView message, long now) implements Attributes {
    @Override
    public @Nullable Object valueOrNull(String name) {
      if (name.startsWith(SystemFacts.PREFIX)) {
        return systemFact(name);
      }
      return switch (message.attributeOrNull(name)) {
        case null -> null;
        case AttributeValue.StringValue s -> s.value();
        case AttributeValue.NumberValue n -> n.decimal();
        case AttributeValue.StringListValue l -> l.value();
        case AttributeValue.BinaryValue b -> b;
      };
    }

    private @Nullable Object systemFact(String name) {
      return switch (name) {
        case SystemFacts.PRIORITY -> message.priority();
        case SystemFacts.GROUP_ID -> message.groupId().orElse(null);
        case SystemFacts.RECEIVE_COUNT -> message.receiveCount();
        case SystemFacts.SENT_AT -> message.sentAtMillis();
        case SystemFacts.AGE -> Math.max(0, now - message.sentAtMillis()) / 1000;
        default -> null;
      };
    }
  }
}
