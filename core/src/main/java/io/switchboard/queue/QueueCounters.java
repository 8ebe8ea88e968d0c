package io.switchboard.queue;

/** Monotonic per-queue totals, written under the queue's lock. */
final class QueueCounters {
  long sent;
  long duplicates;
  long received;
  long acked;
  long released;
  long failed;
  long expired;
  long shed;
  long deadLettered;
  long removed;
  long keyLimited;

  QueueStats.Counters snapshot() {
    return new QueueStats.Counters(
        sent,
        duplicates,
        received,
        acked,
        released,
        failed,
        expired,
        shed,
        deadLettered,
        removed,
        keyLimited);
  }
}
