package io.switchboard.queue.spi;

import io.switchboard.queue.MessageEvent;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The listeners an engine tells its {@link MessageEvent}s to ({@link
 * io.switchboard.queue.QueueEngine#onMessageEvent}). Telling costs nothing while nobody listens:
 * the event is built only when someone does. A listener that throws is skipped; the engine goes on.
 */
public final class MessageEventListeners {

  private static final System.Logger LOG = System.getLogger(MessageEventListeners.class.getName());

  private final List<Consumer<? super MessageEvent>> listeners = new CopyOnWriteArrayList<>();

  public void add(Consumer<? super MessageEvent> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Whether anyone listens: the caller may skip building an event. */
  public boolean listening() {
    return !listeners.isEmpty();
  }

  /** Tells every listener the event {@code event} makes, if anyone listens. */
  public void tell(Supplier<? extends MessageEvent> event) {
    if (listeners.isEmpty()) {
      return;
    }
    MessageEvent e = event.get();
    for (Consumer<? super MessageEvent> listener : listeners) {
      try {
        listener.accept(e);
      } catch (RuntimeException failed) {
        LOG.log(System.Logger.Level.WARNING, "a message event listener failed", failed);
      }
    }
  }

  /** Tells every listener each of {@code events}. */
  public void tellAll(List<? extends MessageEvent> events) {
    for (MessageEvent e : events) {
      tell(() -> e);
    }
  }
}
