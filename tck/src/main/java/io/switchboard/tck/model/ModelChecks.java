package io.switchboard.tck.model;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueStats;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Comparisons between engine answers and model expectations, with readable differences. */
final class ModelChecks {

  private ModelChecks() {}

  static void check(boolean ok, String what, Object expected, Object actual) {
    if (!ok) {
      throw new AssertionError(what + ": expected " + expected + " but engine says " + actual);
    }
  }

  /** Every queue: stats, then all its messages (visible or not) in delivery order. */
  static void compareQueues(QueueEngine engine, ReferenceQueueModel model) {
    compareQueues(engine, model, model.queueNames());
  }

  /** The queues named: stats, then all their messages (visible or not) in delivery order. */
  static void compareQueues(QueueEngine engine, ReferenceQueueModel model, List<String> queues) {
    for (String q : queues) {
      QueueStats got = engine.stats(q);
      ReferenceQueueModel.Stats want = model.stats(q);
      String where = "stats of " + q;
      check(
          got.available() == want.available(),
          where + " available",
          want.available(),
          got.available());
      check(got.delayed() == want.delayed(), where + " delayed", want.delayed(), got.delayed());
      check(
          got.inFlight() == want.inFlight(), where + " inFlight", want.inFlight(), got.inFlight());
      check(
          List.copyOf(got.byPriority().entrySet())
              .equals(List.copyOf(want.byPriority().entrySet())),
          where + " byPriority (highest first)",
          want.byPriority(),
          got.byPriority());
      check(
          got.counters().equals(want.counters()),
          where + " counters",
          want.counters(),
          got.counters());
      check(
          got.oldestAge().equals(want.oldestAge()),
          where + " oldestAge",
          want.oldestAge(),
          got.oldestAge());
      check(got.waitingReceivers() == 0, where + " waitingReceivers", 0, got.waitingReceivers());
    }
    for (String q : queues) {
      Page got =
          engine.browse(q, BrowseRequest.first(BrowseRequest.MAX_LIMIT).includeInvisible(true));
      ReferenceQueueModel.BrowsePage want =
          model.browse(q, BrowseRequest.MAX_LIMIT, Optional.empty(), null, true);
      sameList("contents of " + q, want.items(), got.items());
    }
  }

  static void sameList(String what, List<ModelView> want, List<Message> got) {
    if (want.size() != got.size() || !sameIds(want, got)) {
      throw new AssertionError(
          what + ": expected " + describe(want) + " but engine says " + describeMessages(got));
    }
    for (int i = 0; i < want.size(); i++) {
      sameMessage(what + " [" + i + "]", want.get(i), got.get(i));
    }
  }

  private static boolean sameIds(List<ModelView> want, List<Message> got) {
    for (int i = 0; i < want.size(); i++) {
      if (!Objects.equals(want.get(i).id(), got.get(i).id())) {
        return false;
      }
    }
    return true;
  }

  static void sameMessage(String what, ModelView want, Message got) {
    List<String> diffs = new ArrayList<>();
    diff(diffs, "id", want.id(), got.id());
    diff(diffs, "body", want.body(), got.body());
    diff(diffs, "attributes", want.attributes(), got.attributes());
    diff(diffs, "priority", want.priority(), got.priority());
    diff(diffs, "groupId", want.groupId(), got.groupId());
    diff(diffs, "deduplicationId", want.deduplicationId(), got.deduplicationId());
    diff(diffs, "state", want.state(), got.state());
    diff(diffs, "sentAt", want.sentAt(), got.sentAt().toEpochMilli());
    diff(
        diffs,
        "firstReceivedAt",
        want.firstReceivedAt(),
        got.firstReceivedAt().map(Instant::toEpochMilli));
    diff(diffs, "receiveCount", want.receiveCount(), got.receiveCount());
    diff(diffs, "visibleAt", want.visibleAt(), got.visibleAt().map(Instant::toEpochMilli));
    diff(diffs, "expiresAt", want.expiresAt(), got.expiresAt().toEpochMilli());
    diff(diffs, "deadLetterSource", want.deadLetterSource(), got.deadLetterSource());
    if (!diffs.isEmpty()) {
      throw new AssertionError(what + " message '" + want.body() + "' differs: " + diffs);
    }
  }

  private static void diff(List<String> diffs, String field, Object want, Object got) {
    if (!Objects.equals(want, got)) {
      diffs.add(field + " expected " + want + " but engine says " + got);
    }
  }

  private static String describe(List<ModelView> views) {
    List<String> out = new ArrayList<>();
    for (ModelView v : views) {
      out.add(v.body() + "/" + v.state().wireName() + "/p" + v.priority());
    }
    return out.toString();
  }

  private static String describeMessages(List<Message> messages) {
    List<String> out = new ArrayList<>();
    for (Message m : messages) {
      out.add(m.body() + "/" + m.state().wireName() + "/p" + m.priority());
    }
    return out.toString();
  }
}
