package io.switchboard.client;

import io.switchboard.queue.QueueEngine;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.tck.MemoryJournal;
import io.switchboard.tck.QueueEngineContract;
import io.switchboard.time.ManualClock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The whole engine contract through the wire: every engine the suite asks for is a {@link
 * SwitchboardClient} connected over a real HTTP port (ephemeral, loopback) to an in-process server
 * whose engine runs on the test's {@link ManualClock} and writes to a {@link MemoryJournal}, so the
 * restart scenarios run too (a restart stops that server and starts another on the same journal).
 *
 * <p>The contracts that cannot run through the client are listed in {@link #EXCLUDED}, each with
 * the reason; the same list is in {@code client/README.md}.
 */
@ExtendWith(ClientContractTest.Exclusions.class)
class ClientContractTest extends QueueEngineContract {

  // GrpcClientContractTest runs the same contract through the client's gRPC transport

  /** Contract test ("Nested class.method") that the client cannot pass, and why. */
  static final Map<String, String> EXCLUDED =
      Map.of(
          "Receive.receive_filterOnPriority_seesSystemFacts",
          "a Java predicate has no selector text to send: the client refuses it with"
              + " IllegalArgumentException before sending (SwitchboardClientTest"
              + " .lambdaReceiveFilter_refusedBeforeSending_namingWhatIsAllowed); the selector form runs in FilteredReceive",
          "Lease.extend_upTo12HoursAfterReceive_allowedAndBeyond_refused",
          "extends by 10 h 59 min plus 1 ms: the wire carries whole seconds, so the client refuses"
              + " the value itself (IllegalArgumentException, SwitchboardClientTest"
              + " .subSecondDuration_refusedBeforeSending) instead of the server answering"
              + " INVALID_ARGUMENT",
          "MessageEvents.*",
          "message events are told to listeners inside the server's process: a remote engine"
              + " cannot hear them and ignores the listener (QueueEngine.onMessageEvent); the"
              + " server's tracing, their user, is tested in TracingTest",
          "AnyLeaseExtend.*",
          "QueueEngine.extendAnyLease is the SQS endpoint's ChangeMessageVisibility, which acts"
              + " through an earlier receipt; the native API keeps extend's rule and has no such"
              + " call, so the client answers it as extend (SqsBatchAndHandleTest covers it)",
          "MoveChecks.*",
          "a remote engine's redrive tasks and dead-letter moves run in its server, which checks"
              + " each move against the key that started the task or set the target (MoveRights,"
              + " DestinationRightsTest); the client ignores QueueEngine.checkMoves");

  private record Served(
      SwitchboardServer server, MemoryJournal journal, ManualClock clock, int max) {}

  private final Map<QueueEngine, Served> served = new IdentityHashMap<>();
  private final List<SwitchboardServer> servers = new ArrayList<>();

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return newEngine(clock, 10_000);
  }

  @Override
  protected QueueEngine newEngine(ManualClock clock, int maxQueues) {
    return serve(new MemoryJournal(), clock, maxQueues);
  }

  @Override
  protected QueueEngine restart(QueueEngine engine) {
    Served s;
    synchronized (served) {
      s = served.remove(engine);
    }
    engine.close();
    s.server().stop();
    return serve(s.journal(), s.clock(), s.max());
  }

  private QueueEngine serve(MemoryJournal journal, ManualClock clock, int maxQueues) {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of(
                "port", "0",
                "in-memory", "true",
                "max-queues", Integer.toString(maxQueues),
                "max-batch", "1000",
                "shutdown-grace-seconds", "1"),
            Map.of());
    SwitchboardServer server =
        SwitchboardServer.start(
            served(config),
            c -> QueueEngine.builder().clock(clock).maxQueues(maxQueues).journal(journal).build());
    SwitchboardClient client = connect(server);
    synchronized (served) {
      served.put(client, new Served(server, journal, clock, maxQueues));
      servers.add(server);
    }
    return client;
  }

  /** The configuration of each server the contract runs against. */
  ServerConfig served(ServerConfig config) {
    return config;
  }

  /** A client of {@code server}, what the contract runs through. */
  SwitchboardClient connect(SwitchboardServer server) {
    return SwitchboardClient.create(server.uri());
  }

  /** Runs after the contract has closed its clients (nested {@code @AfterEach} first). */
  @AfterEach
  void stopServers() {
    synchronized (served) {
      servers.forEach(SwitchboardServer::stop);
      servers.clear();
      served.clear();
    }
  }

  /** Disables the {@link #EXCLUDED} contract tests, giving the reason in the report. */
  static final class Exclusions implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (context.getTestMethod().isEmpty()) {
        return ConditionEvaluationResult.enabled("not a test method");
      }
      String key =
          context.getRequiredTestClass().getSimpleName()
              + "."
              + context.getRequiredTestMethod().getName();
      Map<String, String> excluded = excluded(context);
      String reason =
          excluded.getOrDefault(
              key, excluded.get(context.getRequiredTestClass().getSimpleName() + ".*"));
      return reason == null
          ? ConditionEvaluationResult.enabled("runs through the client")
          : ConditionEvaluationResult.disabled("not through the client: " + reason);
    }

    /** The exclusions of the top-level test class the contract runs in. */
    private static Map<String, String> excluded(ExtensionContext context) {
      Class<?> top = context.getRequiredTestClass();
      for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
        if (c.getTestClass().isPresent()) {
          top = c.getTestClass().get();
        }
      }
      return top == GrpcClientContractTest.class ? GrpcClientContractTest.EXCLUDED : EXCLUDED;
    }
  }
}
