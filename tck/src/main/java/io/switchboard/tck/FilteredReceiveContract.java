package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SelectorFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Filtered receive with selectors (seed 000: the agent queue), each test on an indexed and an
 * unindexed queue: the answer must be the same, only the cost differs.
 */
public abstract class FilteredReceiveContract extends EngineContract {

  private static final String SPANISH_MALE = "language = 'es' AND gender = 'M'";

  private String agentQueue(boolean indexed) {
    String name = indexed ? "agents-indexed" : "agents";
    create(name, indexed ? config().indexedAttributes("language", "gender", "skills") : config());
    return name;
  }

  private String agent(String queue, String name, String language, String gender) {
    String id =
        engine
            .send(
                queue,
                NewMessage.builder(name)
                    .attribute("language", language)
                    .attribute("gender", gender)
                    .build())
            .id();
    clock.advanceSeconds(1);
    return id;
  }

  private static ReceiveRequest selecting(String selector) {
    return ReceiveRequest.builder().selector(selector).build();
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void receive_spanishMaleCaller_getsTheEarliestSuchAgent(boolean indexed) {
    String q = agentQueue(indexed);
    agent(q, "ana", "es", "F");
    agent(q, "jean", "fr", "M");
    agent(q, "luis", "es", "M");
    agent(q, "pablo", "es", "M");

    assertEquals(List.of("luis"), bodies(engine.receive(q, selecting(SPANISH_MALE))));
    assertEquals(List.of("pablo"), bodies(engine.receive(q, selecting(SPANISH_MALE))));
    assertEquals(List.of(), engine.receive(q, selecting(SPANISH_MALE)));
    assertEquals(List.of("ana"), bodies(engine.receive(q, ReceiveRequest.one())));
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void receive_lifo_takesTheLatestMatchingAgent(boolean indexed) {
    String q = indexed ? "lifo-indexed" : "lifo";
    create(q, (indexed ? config().indexedAttributes("language") : config()).order(Order.LIFO));
    agent(q, "luis", "es", "M");
    agent(q, "pablo", "es", "M");
    agent(q, "jean", "fr", "M");
    assertEquals(List.of("pablo"), bodies(engine.receive(q, selecting(SPANISH_MALE))));
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void receive_priorityWinsOverAgeAmongMatches(boolean indexed) {
    String q = agentQueue(indexed);
    agent(q, "luis", "es", "M");
    String pablo = agent(q, "pablo", "es", "M");
    engine.update(q, pablo, MessageUpdate.priority(5));
    assertEquals(List.of("pablo", "luis"), bodies(receiveMatching(q, SPANISH_MALE, 10)));
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void receive_multiSkillAgent_isTakenOnceFromEveryView(boolean indexed) {
    String q = agentQueue(indexed);
    engine.send(
        q,
        NewMessage.builder("maria")
            .attribute("skills", io.switchboard.queue.AttributeValue.stringList("billing", "tech"))
            .build());
    List<Message> billing = receiveMatching(q, "skills HAS 'billing'", 1);
    assertEquals(List.of("maria"), bodies(billing));
    assertEquals(List.of(), receiveMatching(q, "skills HAS 'tech'", 1));
    engine.release(q, receipt(billing.get(0)));
    assertEquals(
        List.of("maria"), bodies(receiveMatching(q, "skills HAS ALL ('tech', 'billing')", 1)));
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void browse_withSelector_listsMatchesInOrderWithoutLeasing(boolean indexed) {
    String q = agentQueue(indexed);
    agent(q, "ana", "es", "F");
    agent(q, "luis", "es", "M");
    agent(q, "jean", "fr", "M");
    agent(q, "pablo", "es", "M");
    BrowseRequest request = BrowseRequest.first(1).filter(SelectorFilter.parse(SPANISH_MALE));
    var first = engine.browse(q, request);
    assertEquals(List.of("luis"), bodies(first.items()));
    var second = engine.browse(q, request.after(first.nextCursor().orElseThrow()));
    assertEquals(List.of("pablo"), bodies(second.items()));
    assertEquals(4, engine.stats(q).available());
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void longPoll_withSelector_isWokenOnlyByAMatch_andDoesNotBlockOthers(boolean indexed)
      throws Exception {
    String q = agentQueue(indexed);
    Future<List<Message>> spanish =
        blockedReceive(
            q, ReceiveRequest.builder().selector(SPANISH_MALE).waitTime(seconds(20)).build());
    Future<List<Message>> anyone = blockedReceive(q, waiting(seconds(20)));

    agent(q, "jean", "fr", "M");
    assertEquals(List.of("jean"), bodies(result(anyone)));
    assertFalse(spanish.isDone(), "a non-matching message woke the selective waiter");

    agent(q, "luis", "es", "M");
    assertEquals(List.of("luis"), bodies(result(spanish)));
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void receive_invalidSelector_isRefusedWithItsColumn(boolean indexed) {
    agentQueue(indexed);
    assertError(
        ErrorCode.INVALID_SELECTOR,
        () -> ReceiveRequest.builder().selector("language = "),
        "column 12");
  }

  @ParameterizedTest(name = "indexed={0}")
  @ValueSource(booleans = {false, true})
  void racingFilteredConsumers_neverReceiveTheSameAgent(boolean indexed) throws Exception {
    String q = agentQueue(indexed);
    String[] languages = {"es", "fr", "en"};
    int agents = 600;
    for (int i = 0; i < agents; i++) {
      engine.send(
          q,
          NewMessage.builder("agent-" + i)
              .attribute("language", languages[i % 3])
              .attribute("gender", i % 2 == 0 ? "M" : "F")
              .build());
    }
    Set<String> taken = ConcurrentHashMap.newKeySet();
    List<String> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
    String[] selectors = {
      SPANISH_MALE, "language = 'es'", "gender = 'M'", "language IN ('fr', 'en')", "gender = 'F'"
    };
    ExecutorService pool = Executors.newFixedThreadPool(selectors.length);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String selector : selectors) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  List<Message> got;
                  while (!(got = receiveMatching(q, selector, 3)).isEmpty()) {
                    for (Message m : got) {
                      if (!taken.add(m.id())) {
                        duplicates.add(m.body());
                      }
                      assertTrue(
                          SelectorFilter.parse(selector).test(asView(m), clock.millis()), selector);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(REAL_TIME_LIMIT.toSeconds() * 4, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of(), duplicates);
    assertEquals(agents, taken.size());
    assertEquals(agents, engine.stats(q).inFlight());
  }

  private List<Message> receiveMatching(String queue, String selector, int max) {
    return engine.receive(
        queue, ReceiveRequest.builder().selector(selector).maxMessages(max).build());
  }

  /** A received message seen as a filter sees it. */
  private static io.switchboard.queue.MessageView asView(Message m) {
    return new io.switchboard.queue.MessageView() {
      @Override
      public io.switchboard.queue.@Nullable AttributeValue attributeOrNull(String name) {
        return m.attributes().get(name);
      }

      @Override
      public java.util.Map<String, io.switchboard.queue.AttributeValue> attributes() {
        return m.attributes();
      }

      @Override
      public int priority() {
        return m.priority();
      }

      @Override
      public java.util.Optional<String> groupId() {
        return m.groupId();
      }

      @Override
      public long sentAtMillis() {
        return m.sentAt().toEpochMilli();
      }

      @Override
      public int receiveCount() {
        return m.receiveCount();
      }
    };
  }
}
