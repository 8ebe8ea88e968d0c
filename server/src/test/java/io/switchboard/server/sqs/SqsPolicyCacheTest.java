package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.config.SqsAccount;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.ManualClock;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (docs/security.md): the SQS policy check read the queue once more per request before
 * the action read it again (one more transaction per request on PostgreSQL). Policies are now kept
 * per endpoint ({@link QueuePolicies}): a change served by this server applies at once, one made
 * elsewhere (two endpoints over one engine stand for two servers of a cluster) within {@link
 * QueuePolicies#REFRESH_MILLIS} on the endpoint's clock, moved here by hand. Keyless endpoints: a
 * policy's {@code Deny} of {@code *} applies to every caller.
 */
class SqsPolicyCacheTest {

  private static final String BASE = "http://127.0.0.1:9324";
  private static final String URL = BASE + "/000000000000/";
  private static final String DENY_SENDS =
      "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Sid\":\"no-sends\",\"Effect\":\"Deny\","
          + "\"Principal\":\"*\",\"Action\":\"sqs:SendMessage\",\"Resource\":\"*\"}]}";

  private final ManualClock clock = ManualClock.at(Instant.parse("2026-11-26T05:00:00Z"));
  private final AtomicInteger queueReads = new AtomicInteger();
  private final AtomicBoolean storeDown = new AtomicBoolean();
  private final QueueEngine shared = QueueEngine.inMemory();
  private final QueueEngine engine = counting(shared);
  private final SqsEndpoint here = endpoint();
  private final SqsEndpoint elsewhere = endpoint();

  @AfterEach
  void close() {
    shared.close();
  }

  private SqsEndpoint endpoint() {
    return SqsEndpoint.create(engine, new MemoryKeyRing(), SqsAccount.DEFAULT, clock);
  }

  /**
   * {@code delegate}, counting its {@code queue(name)} calls, failing them while the store is down.
   */
  private QueueEngine counting(QueueEngine delegate) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getName().equals("queue") && method.getParameterCount() == 1) {
            queueReads.incrementAndGet();
            if (storeDown.get()) {
              throw new QueueException(ErrorCode.UNAVAILABLE, "the store is unavailable");
            }
          }
          try {
            return method.invoke(delegate, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (QueueEngine)
        Proxy.newProxyInstance(
            QueueEngine.class.getClassLoader(), new Class<?>[] {QueueEngine.class}, handler);
  }

  private static SqsHttpRequest json(String action, String body) {
    return new SqsHttpRequest(
        "POST",
        "/",
        "",
        Map.of(
            "x-amz-target", List.of("AmazonSQS." + action),
            "content-type", List.of("application/x-amz-json-1.0")),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static SqsApi.Answer call(SqsEndpoint endpoint, String action, String body) {
    return endpoint.handle(json(action, body), BASE, "r-" + action);
  }

  private static String text(SqsApi.Answer answer) {
    return new String(answer.body(), StandardCharsets.UTF_8);
  }

  private static void create(SqsEndpoint endpoint, String queue, String policy) {
    String attributes = policy == null ? "" : ",\"Attributes\":{\"Policy\":" + quoted(policy) + "}";
    SqsApi.Answer answer =
        call(endpoint, "CreateQueue", "{\"QueueName\":\"" + queue + "\"" + attributes + "}");
    assertEquals(200, answer.status(), text(answer));
  }

  private static void setPolicy(SqsEndpoint endpoint, String queue, String policy) {
    SqsApi.Answer answer =
        call(
            endpoint,
            "SetQueueAttributes",
            "{\"QueueUrl\":\""
                + URL
                + queue
                + "\",\"Attributes\":{\"Policy\":"
                + quoted(policy)
                + "}}");
    assertEquals(200, answer.status(), text(answer));
  }

  private static void delete(SqsEndpoint endpoint, String queue) {
    SqsApi.Answer answer = call(endpoint, "DeleteQueue", "{\"QueueUrl\":\"" + URL + queue + "\"}");
    assertEquals(200, answer.status(), text(answer));
  }

  private static SqsApi.Answer send(SqsEndpoint endpoint, String queue) {
    return call(
        endpoint, "SendMessage", "{\"QueueUrl\":\"" + URL + queue + "\",\"MessageBody\":\"m\"}");
  }

  private static void assertSent(SqsApi.Answer answer) {
    assertEquals(200, answer.status(), text(answer));
  }

  private static void assertDenied(SqsApi.Answer answer) {
    assertEquals(403, answer.status(), text(answer));
    assertTrue(text(answer).contains("AccessDenied"), text(answer));
    assertTrue(text(answer).contains("no-sends"), "names the denying statement: " + text(answer));
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  @Test
  void denyAddedOnThisServer_appliesAtOnce() {
    create(here, "q", null);
    assertSent(send(here, "q")); // "no policy" is now kept
    setPolicy(here, "q", DENY_SENDS);
    assertDenied(send(here, "q")); // the clock has not moved

    setPolicy(here, "q", "");
    assertSent(send(here, "q"));
  }

  @Test
  void addPermissionAndRemovePermissionOnThisServer_applyAtOnce() {
    create(here, "q", DENY_SENDS);
    assertDenied(send(here, "q"));
    SqsApi.Answer added =
        call(
            here,
            "AddPermission",
            "{\"QueueUrl\":\""
                + URL
                + "q\",\"Label\":\"reads\",\"AWSAccountIds\":[\"000000000000\"],"
                + "\"Actions\":[\"ReceiveMessage\"]}");
    assertEquals(200, added.status(), text(added));
    String policy =
        text(
            call(
                here,
                "GetQueueAttributes",
                "{\"QueueUrl\":\"" + URL + "q\",\"AttributeNames\":[\"Policy\"]}"));
    assertTrue(policy.contains("reads"), policy);
    assertDenied(send(here, "q"));
  }

  @Test
  void denyAddedOnAnotherServer_appliesWithinTheBound() {
    create(here, "q", null);
    assertSent(send(here, "q"));
    setPolicy(elsewhere, "q", DENY_SENDS);

    // this server read "no policy" just now and may go on with it for less than the bound ...
    clock.advanceMillis(QueuePolicies.REFRESH_MILLIS - 1);
    assertSent(send(here, "q"));
    // ... but not longer
    clock.advanceMillis(1);
    assertDenied(send(here, "q"));
    assertDenied(send(elsewhere, "q"));
  }

  @Test
  void queueDeletedAndCreatedAgainElsewhere_neverKeepsTheOldPolicyBeyondTheBound() {
    create(here, "q", DENY_SENDS);
    assertDenied(send(here, "q"));
    delete(elsewhere, "q");
    create(elsewhere, "q", null);
    clock.advanceMillis(QueuePolicies.REFRESH_MILLIS);
    assertSent(send(here, "q")); // the old Deny is gone with the old queue

    delete(elsewhere, "q");
    create(elsewhere, "q", DENY_SENDS);
    clock.advanceMillis(QueuePolicies.REFRESH_MILLIS);
    assertDenied(send(here, "q")); // and "no policy" is not kept for the new one either
  }

  @Test
  void queueDeletedAndCreatedAgainOnThisServer_newPolicyAppliesAtOnce() {
    create(here, "q", null);
    assertSent(send(here, "q"));
    delete(here, "q");
    create(here, "q", DENY_SENDS);
    assertDenied(send(here, "q"));

    delete(here, "q");
    create(here, "q", null);
    assertSent(send(here, "q"));
  }

  @Test
  void plainSendMessage_doesNotReadTheQueueConfigTwice() {
    create(here, "q", null);
    queueReads.set(0);
    assertSent(send(here, "q"));
    assertTrue(queueReads.get() <= 1, "first send after creation: " + queueReads.get());

    queueReads.set(0);
    for (int i = 0; i < 10; i++) {
      assertSent(send(here, "q"));
    }
    assertEquals(0, queueReads.get(), "the policy kept: the action's own read is the only one");

    clock.advanceMillis(QueuePolicies.REFRESH_MILLIS);
    queueReads.set(0);
    assertSent(send(here, "q"));
    assertSent(send(here, "q"));
    assertEquals(1, queueReads.get(), "read again once the bound has passed, then kept");
  }

  @Test
  void policyReadFailed_requestRefusedNotServedUnchecked() {
    create(here, "q", DENY_SENDS);
    storeDown.set(true);
    SqsApi.Answer answer = send(here, "q");
    assertEquals(503, answer.status(), text(answer));
    assertTrue(text(answer).contains("ServiceUnavailable"), text(answer));
    storeDown.set(false);
    assertEquals(
        0,
        shared.stats(new QueueAddress(BASE, "us-east-1", SqsAccount.DEFAULT).lookup("q")).depth());
    assertDenied(send(here, "q"));
  }

  @Test
  void keptPolicies_areBounded() {
    QueuePolicies policies = new QueuePolicies(engine, clock);
    QueueAddress address = new QueueAddress(BASE, "us-east-1", SqsAccount.DEFAULT);
    for (int i = 0; i <= QueuePolicies.MAX_QUEUES; i++) {
      shared.createQueue("bounded-" + i, QueueConfig.defaults());
      assertTrue(policies.policy("bounded-" + i, address).isEmpty());
      assertTrue(policies.size() <= QueuePolicies.MAX_QUEUES, "kept: " + policies.size());
    }
    assertTrue(policies.size() >= 1);
  }
}
