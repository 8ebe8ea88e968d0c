package io.switchboard.server.api.push;

import io.switchboard.client.PushWire;
import io.switchboard.client.wire.Json;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.routing.CallbackSecret;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push subscriptions kept as system records, one JSON document ({@link PushWire.Subscription},
 * secret and header values included) under {@code push/<queue>/<name>}: in the engine's store, so
 * they survive restarts on RocksDB and PostgreSQL and every server sharing a store reads them
 * (docs/decisions.md, "Push subscriptions are system records"). The secret is kept as given: it is
 * an HMAC key.
 */
final class PushStore {

  private static final Logger LOG = LoggerFactory.getLogger(PushStore.class);

  static final String PREFIX = "push/";

  private final SystemRecords records;

  PushStore(SystemRecords records) {
    this.records = records;
  }

  private static String key(String queue, String name) {
    return PREFIX + queue + "/" + name;
  }

  void put(PushSpec spec) {
    records.put(key(spec.queue(), spec.name()), Json.bytes(spec.wire(true, true)));
  }

  /** Stores {@code spec} unless its name is taken; whether it was stored. */
  boolean create(PushSpec spec) {
    byte[] mine = Json.bytes(spec.wire(true, true));
    byte[] now = records.putIfAbsent(key(spec.queue(), spec.name()), mine);
    return java.util.Arrays.equals(mine, now);
  }

  Optional<PushSpec> get(String queue, String name) {
    return records.get(key(queue, name)).flatMap(b -> decode(queue, b));
  }

  boolean delete(String queue, String name) {
    return records.delete(key(queue, name));
  }

  /** The queue's subscriptions, by name. */
  List<PushSpec> list(String queue) {
    return decodeAll(records.list(PREFIX + queue + "/"));
  }

  /** Every subscription of every queue, by queue and name. */
  List<PushSpec> all() {
    return decodeAll(records.list(PREFIX));
  }

  private static List<PushSpec> decodeAll(Map<String, byte[]> found) {
    List<PushSpec> out = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : found.entrySet()) {
      String rest = e.getKey().substring(PREFIX.length());
      int slash = rest.indexOf('/');
      if (slash > 0) {
        decode(rest.substring(0, slash), e.getValue()).ifPresent(out::add);
      }
    }
    return out;
  }

  private static Optional<PushSpec> decode(String queue, byte[] bytes) {
    try {
      PushWire.Subscription w =
          Json.strict(bytes, "push subscription", PushWire.Subscription.class);
      return Optional.of(
          PushSpec.of(
              queue,
              w,
              Integer.MAX_VALUE, // checked against the server's limit when it was stored
              w.createdAt() == null ? "" : w.createdAt(),
              new CallbackSecret(java.util.Objects.requireNonNull(w.secret(), "secret"))));
    } catch (RuntimeException e) {
      LOG.atError()
          .addKeyValue("queue", queue)
          .log("a stored push subscription cannot be read, so it does not run: " + e.getMessage());
      return Optional.empty();
    }
  }
}
