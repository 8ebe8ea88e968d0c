package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.http.ErrorAnswers;
import io.switchboard.server.sqs.SqsApi;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A bug inside a handler answers 500 with a request id and nothing of the exception, whose text may
 * hold secrets, paths or queries; the log line has the same id, with the stack trace. Every native
 * answer carries its request id in {@code X-Request-Id}.
 */
class InternalErrorTest {

  /** What a failing dependency might put in an exception's text. */
  private static final String SECRET = "password=hunter2 at /var/lib/switchboard/secret.db";

  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final List<Logger> loggers =
      List.of(
          (Logger) LoggerFactory.getLogger(ErrorAnswers.class),
          (Logger) LoggerFactory.getLogger(SqsApi.class),
          (Logger) LoggerFactory.getLogger("io.switchboard.server.sqs.SqsEndpoint"));

  @BeforeEach
  void captureLog() {
    log.start();
    loggers.forEach(l -> l.addAppender(log));
  }

  @AfterEach
  void releaseLog() {
    loggers.forEach(l -> l.detachAppender(log));
    log.stop();
  }

  /** An in-memory engine whose listQueues fails with a secret-looking message. */
  private static EngineFactory failingListQueues() {
    return config -> {
      QueueEngine real = EngineFactory.inMemory().open(config);
      return (QueueEngine)
          Proxy.newProxyInstance(
              QueueEngine.class.getClassLoader(),
              new Class<?>[] {QueueEngine.class},
              (proxy, method, args) -> {
                if (method.getName().equals("listQueues")) {
                  throw new IllegalStateException(SECRET);
                }
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    };
  }

  private static ServerConfig config() {
    return ServerConfig.forTests();
  }

  @Test
  void anInternalError_showsTheClientARequestIdAndNoExceptionText_andTheLogHasTheSameId() {
    try (SwitchboardServer server = SwitchboardServer.start(config(), failingListQueues());
        Http http = new Http(server.uri())) {
      Http.Answer answer = http.get("/v1/queues");

      assertEquals(500, answer.status(), answer.toString());
      assertEquals("INTERNAL", answer.code());
      assertFalse(answer.text().contains("hunter2"), answer.text());
      assertFalse(answer.text().contains("IllegalStateException"), answer.text());
      String id = answer.raw().headers().firstValue("X-Request-Id").orElseThrow();
      UUID.fromString(id);
      assertEquals("internal error; request id " + id, answer.json().path("message").asText());

      ILoggingEvent line = lineWith(id);
      assertEquals("ERROR", line.getLevel().toString());
      assertNotNull(line.getThrowableProxy(), "the stack trace is logged");
      assertEquals(SECRET, line.getThrowableProxy().getMessage());
      assertTrue(line.getThrowableProxy().getStackTraceElementProxyArray().length > 0);
    }
  }

  @Test
  void anInternalErrorOverSqs_showsTheRequestIdAndNoExceptionText() {
    try (SwitchboardServer server = SwitchboardServer.start(config(), failingListQueues());
        Http http = new Http(server.uri())) {
      Http.Answer answer =
          http.send(
              "POST",
              "/",
              "{}",
              Map.of(
                  "Content-Type",
                  "application/x-amz-json-1.0",
                  "X-Amz-Target",
                  "AmazonSQS.ListQueues"));

      assertEquals(500, answer.status(), answer.toString());
      assertFalse(answer.text().contains("hunter2"), answer.text());
      assertFalse(answer.text().contains("IllegalStateException"), answer.text());
      String id = answer.raw().headers().firstValue("x-amzn-RequestId").orElseThrow();
      assertEquals(id, answer.raw().headers().firstValue("X-Request-Id").orElseThrow());
      assertEquals("internal error; request id " + id, answer.json().path("message").asText());
      assertNotNull(lineWith(id).getThrowableProxy(), "the stack trace is logged");

      Http.Answer query = http.post("/?Action=ListQueues", null);
      assertEquals(500, query.status(), query.toString());
      assertFalse(query.text().contains("hunter2"), query.text());
      String queryId = query.raw().headers().firstValue("x-amzn-RequestId").orElseThrow();
      assertTrue(query.text().contains("internal error; request id " + queryId), query.text());
      assertNotNull(lineWith(queryId).getThrowableProxy(), "the stack trace is logged");
    }
  }

  @Test
  void everyNativeAnswer_carriesItsOwnRequestId() {
    try (SwitchboardServer server = SwitchboardServer.start(config());
        Http http = new Http(server.uri())) {
      List<Http.Answer> answers =
          List.of(
              http.post("/v1/queues", "{\"name\":\"orders\"}"),
              http.get("/v1/queues/orders"),
              http.get("/v1/queues/missing"),
              http.post("/v1/queues", "{not json"),
              http.get("/no/such/route"),
              http.send("DELETE", "/v1/queues", null),
              http.get("/health"));
      List<String> ids =
          answers.stream()
              .map(
                  a ->
                      a.raw()
                          .headers()
                          .firstValue("X-Request-Id")
                          .orElseThrow(() -> new AssertionError(a.toString())))
              .toList();
      ids.forEach(UUID::fromString);
      assertEquals(ids.size(), ids.stream().distinct().count(), ids.toString());
      assertEquals(
          List.of(201, 200, 404, 400, 404, 405, 200),
          answers.stream().map(Http.Answer::status).toList());
    }
  }

  private ILoggingEvent lineWith(String id) {
    return log.list.stream()
        .filter(
            e ->
                e.getFormattedMessage().contains(id)
                    && e.getKeyValuePairs() != null
                    && e.getKeyValuePairs().stream()
                        .anyMatch(kv -> kv.key.equals("requestId") && id.equals(kv.value)))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no log line with request id " + id + ": " + log.list));
  }
}
