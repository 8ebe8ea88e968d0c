package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The routing lists come in pages ({@link ListRequest}): the pages together give the whole list in
 * its order, and an entry there from the first page to the last is listed exactly once whatever
 * changes between pages.
 */
class RouterListPagesTest {

  private final ManualClock clock = ManualClock.create();
  private final Router router =
      Router.builder().clock(clock).offerTimeout(Duration.ofSeconds(30)).missLimit(0).build();

  private static <T> List<T> all(Function<ListRequest, ListPage<T>> list, int limit) {
    List<T> out = new ArrayList<>();
    ListRequest request = ListRequest.first(limit);
    while (true) {
      ListPage<T> page = list.apply(request);
      assertTrue(page.items().size() <= limit, "a page holds at most the limit");
      out.addAll(page.items());
      if (page.nextCursor().isEmpty()) {
        return out;
      }
      request = request.after(page.nextCursor().get());
    }
  }

  private void agent(String id, Presence presence) {
    router.createAgent(
        NewAgent.builder(id)
            .attribute("team", id.hashCode() % 2 == 0 ? "red" : "blue")
            .capacity("voice", 3)
            .presence(presence)
            .build());
  }

  @Test
  void agentPages_together_areTheWholeListById() {
    for (int i = 0; i < 250; i++) {
      agent("agent-" + (i * 7919 % 1000), Presence.offline());
    }
    assertEquals(router.agents(), all(p -> router.agents(null, p), 100));
    assertEquals(router.agents(), all(p -> router.agents(null, p), 1));
    assertEquals(router.agents("team = 'red'"), all(p -> router.agents("team = 'red'", p), 9));

    ListPage<Agent> first = router.agents(null, ListRequest.first());
    assertEquals(ListRequest.DEFAULT_LIMIT, first.items().size());
    assertTrue(first.nextCursor().isPresent());
    ListPage<Agent> whole = router.agents(null, ListRequest.first(ListRequest.MAX_LIMIT));
    assertEquals(250, whole.items().size());
    assertEquals(Optional.empty(), whole.nextCursor(), "no cursor after the last page");
  }

  @Test
  void agentPages_changesBetweenPages_neitherSkipNorRepeatTheOthers() {
    for (int i = 0; i < 30; i++) {
      agent(String.format("a%02d", i), Presence.offline());
    }
    ListPage<Agent> first = router.agents(null, ListRequest.first(10));
    router.removeAgent("a03"); // already listed
    router.removeAgent("a15"); // not yet listed
    agent("a00x", Presence.offline()); // before the cursor: not listed in this pass
    agent("a20x", Presence.offline()); // after the cursor: listed
    List<String> ids = new ArrayList<>(first.items().stream().map(Agent::id).toList());
    ids.addAll(
        all(
                p ->
                    router.agents(
                        null, p.cursor().isEmpty() ? p.after(first.nextCursor().get()) : p),
                10)
            .stream()
            .map(Agent::id)
            .toList());
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      if (i != 15) {
        expected.add(String.format("a%02d", i));
      }
      if (i == 20) {
        expected.add("a20x");
      }
    }
    assertEquals(expected, ids);
  }

  @Test
  void waitingPages_together_areTheWholeLineInOrderOfService() {
    for (int i = 0; i < 120; i++) {
      router.createContact(
          NewContact.builder("c" + i, i % 3 == 0 ? "chat" : "voice")
              .priority(i % 4)
              .requirements(i % 5 == 0 ? "team = 'red'" : "team <> 'green'")
              .build());
    }
    List<Contact> line = router.waiting();
    assertEquals(120, line.size());
    assertEquals(line, all(router::waiting, 7));
    assertEquals(line, all(router::waiting, 1));
    assertEquals(line, all(router::waiting, 1000));
  }

  @Test
  void waitingPages_contactsLeavingBetweenPages_theOthersListedOnce() {
    for (int i = 0; i < 40; i++) {
      router.createContact(NewContact.builder("c" + i, "voice").priority(i % 2).build());
    }
    List<Contact> line = router.waiting();
    ListPage<Contact> first = router.waiting(ListRequest.first(10));
    Contact listed = first.items().get(3);
    Contact notYet = line.get(30);
    router.abandon(listed.id());
    router.abandon(notYet.id());
    router.createContact(NewContact.builder("late", "voice").priority(0).build()); // at the end
    List<Contact> rest =
        all(p -> router.waiting(p.cursor().isEmpty() ? p.after(first.nextCursor().get()) : p), 10);
    List<String> ids = new ArrayList<>(first.items().stream().map(Contact::id).toList());
    rest.forEach(c -> ids.add(c.id()));
    List<String> expected = new ArrayList<>(line.stream().map(Contact::id).toList());
    expected.remove(notYet.id());
    expected.add("late");
    assertEquals(expected, ids);
  }

  @Test
  void offerPages_oldestFirst() {
    agent("busy", Presence.available());
    for (int i = 0; i < 3; i++) {
      router.createContact(NewContact.builder("c" + i, "voice").build());
    }
    List<Reservation> pending = router.pendingReservations("busy");
    assertEquals(3, pending.size());
    assertEquals(pending, all(p -> router.pendingReservations("busy", p), 1));
    RoutingException e =
        assertThrows(
            RoutingException.class, () -> router.pendingReservations("ghost", ListRequest.first()));
    assertEquals(RoutingErrorCode.AGENT_NOT_FOUND, e.code());
  }

  @Test
  void listRequest_limitOutOfRange_invalidArgumentNamingTheRange() {
    for (int limit : new int[] {0, -1, 1001}) {
      RoutingException e = assertThrows(RoutingException.class, () -> ListRequest.first(limit));
      assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
      assertEquals("limit must be between 1 and 1000, got " + limit, e.getMessage());
    }
  }

  @Test
  void cursor_garbledOrOfAnotherList_invalidArgument() {
    agent("a1", Presence.offline());
    agent("a2", Presence.offline());
    router.createContact(NewContact.builder("c1", "voice").build());
    router.createContact(NewContact.builder("c2", "voice").build());
    String agentCursor = router.agents(null, ListRequest.first(1)).nextCursor().orElseThrow();
    String contactCursor = router.waiting(ListRequest.first(1)).nextCursor().orElseThrow();
    for (String bad : List.of("%%%", "", contactCursor)) {
      RoutingException e =
          assertThrows(
              RoutingException.class, () -> router.agents(null, ListRequest.first().after(bad)));
      assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().startsWith("cursor must be the nextCursor"), e.getMessage());
      assertTrue(e.getMessage().endsWith("got '" + bad + "'"), e.getMessage());
    }
    for (String bad : List.of(agentCursor, Paging.cursor("contacts", "x/1/voice"))) {
      RoutingException e =
          assertThrows(
              RoutingException.class, () -> router.waiting(ListRequest.first().after(bad)));
      assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    }
    assertFalse(router.agents(null, ListRequest.first().after(agentCursor)).items().isEmpty());
  }
}
