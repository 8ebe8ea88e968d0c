package io.switchboard.server.observability;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.opentelemetry.api.OpenTelemetry;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.server.auth.MoveRights;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.ManualClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link TracedEngine}, and the keyed engine of {@code MoveRights.forKey}, hand every {@link
 * QueueEngine} method to the engine behind it, default methods included: a default it does not
 * override would answer for the engine (no system records, no limits, 0 bytes queued) instead of
 * asking it. Each method of the interface, found by reflection so that a method added later is
 * covered without a word here, is called on a traced engine in front of a recording one (an
 * in-memory engine behind a proxy); the recording engine must see a call of the same name. An
 * answer or error of the engine behind is not this test's business; only whether the call reached
 * it.
 */
class TracedEngineForwardingTest {

  /** One value per parameter type of QueueEngine's methods; a new type needs one here. */
  private static final Map<Class<?>, Object> SAMPLES =
      Map.ofEntries(
          Map.entry(String.class, "q"),
          Map.entry(QueueConfig.class, QueueConfig.defaults()),
          Map.entry(UnaryOperator.class, UnaryOperator.identity()),
          Map.entry(NewMessage.class, NewMessage.of("hello")),
          Map.entry(List.class, List.of()),
          Map.entry(
              ReceiveRequest.class,
              new ReceiveRequest(
                  1, Optional.empty(), Optional.of(Duration.ZERO), Optional.empty())),
          Map.entry(Duration.class, Duration.ZERO),
          Map.entry(boolean.class, false),
          Map.entry(int.class, 1),
          Map.entry(MessageUpdate.class, MessageUpdate.priority(1)),
          Map.entry(BrowseRequest.class, BrowseRequest.first(10)),
          Map.entry(RedriveRequest.class, RedriveRequest.toSources()),
          Map.entry(Consumer.class, (Consumer<Object>) event -> {}),
          Map.entry(MoveCheck.class, MoveCheck.NONE));

  static Stream<Method> engineMethods() {
    return Arrays.stream(QueueEngine.class.getMethods())
        .filter(m -> !Modifier.isStatic(m.getModifiers()))
        .sorted((a, b) -> a.toString().compareTo(b.toString()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engineMethods")
  void everyMethod_reachesTheEngineBehind(Method method) throws Exception {
    reachesTheEngineBehind(
        method, "TracedEngine", e -> new TracedEngine(e, OpenTelemetry.noop().getTracer("test")));
  }

  /**
   * The same for the other hand-written decorator, the engine as one key uses it ({@code
   * MoveRights.forKey}): a default it did not override would answer for every keyed request. An
   * admin key, so that no right is refused and each call is only forwarded. {@code close} is the
   * one call it keeps: a request's view does not own the server's engine, so closing it closes
   * nothing.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("engineMethods")
  void everyMethod_reachesTheEngineBehind_throughAKeyedEngine(Method method) throws Exception {
    assumeFalse(method.getName().equals("close"), "a request's view closes nothing, by design");
    reachesTheEngineBehind(
        method,
        "KeyedEngine",
        e ->
            MoveRights.forKey(
                e,
                Principal.admin("AKADMIN", "admin-secret"),
                (needed, message) -> new IllegalStateException(message)));
  }

  private static void reachesTheEngineBehind(
      Method method, String decorator, UnaryOperator<QueueEngine> decorate) throws Exception {
    List<Method> seen = new CopyOnWriteArrayList<>();
    try (QueueEngine behind = QueueEngine.builder().clock(ManualClock.create()).build()) {
      behind.createQueue("q", QueueConfig.defaults());
      QueueEngine recording = recording(behind, seen);
      QueueEngine decorated = decorate.apply(recording);
      seen.clear(); // the constructor's own subscription to the engine's events

      Object[] args =
          Arrays.stream(method.getParameterTypes())
              .map(TracedEngineForwardingTest::sample)
              .toArray();
      Throwable thrown = null;
      try {
        method.invoke(decorated, args);
      } catch (InvocationTargetException e) {
        thrown = e.getCause(); // the engine behind refused: fine, if the call got there
      }
      String why = thrown == null ? "" : " (the call threw " + thrown + ")";
      assertTrue(
          seen.stream().anyMatch(m -> m.getName().equals(method.getName())),
          decorator
              + " does not hand "
              + method
              + " to the engine behind it: it saw "
              + seen.stream().map(Method::getName).toList()
              + why
              + ". Override it in "
              + decorator
              + " and forward it.");
    }
  }

  /** The test would pass vacuously if reflection found nothing to call. */
  @Test
  void theInterfaceHasMethodsToCheck_defaultOnesAmongThem() {
    List<Method> methods = engineMethods().toList();
    assertTrue(methods.size() > 30, "QueueEngine methods found: " + methods.size());
    assertTrue(methods.stream().anyMatch(Method::isDefault), "no default method found");
  }

  /** {@code behind} behind a proxy that notes every method called on it, defaults included. */
  private static QueueEngine recording(QueueEngine behind, List<Method> seen) {
    return (QueueEngine)
        Proxy.newProxyInstance(
            QueueEngine.class.getClassLoader(),
            new Class<?>[] {QueueEngine.class},
            (proxy, m, a) -> {
              seen.add(m);
              try {
                return m.invoke(behind, a);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static Object sample(Class<?> type) {
    Object v = SAMPLES.get(type);
    if (v == null) {
      throw new AssertionError(
          "no sample value of "
              + type.getName()
              + " for a QueueEngine parameter: add one to TracedEngineForwardingTest.SAMPLES");
    }
    return v;
  }
}
