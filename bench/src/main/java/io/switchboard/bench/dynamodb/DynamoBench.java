package io.switchboard.bench.dynamodb;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.Order;
import io.switchboard.storage.dynamodb.MotoProcess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code bench/run.sh dynamodb}: what a message costs on DynamoDB, in requests and in the capacity
 * units AWS bills on demand ({@link CapacityMeter}), for a send, a receive and an acknowledgement
 * of {@code --body-bytes} (1,024) byte messages: on the store's engine for each pattern (FIFO,
 * priorities, a filtered receive, LIFO), and beside it the seed whose design is that pattern, as
 * the bench implements it ({@link Seed001Priority}, {@link Seed000FilteredFifo}, {@link
 * Seed002Lifo}), on the same moto, the same messages and the same receives.
 *
 * <p>Each case runs on tables of its own: {@code --messages} messages, one at a time ({@code
 * single}: send, receive, ack) or ten ({@code batch}: a batch send, a receive of up to ten, an ack
 * of what it took), either {@code steady} (each message received and acked before the next is sent:
 * the queue about empty) or {@code backlog} (all sent first, then all received). A filtered receive
 * asks for one language and the gender of a message still queued, drawn at random (the same draws
 * on both sides), so each receive has a match. The run checks that every message was taken exactly
 * once. Dollars are the units at the on-demand prices in {@link #WRITE_PRICE} and {@link
 * #READ_PRICE}.
 *
 * <p>Options: {@code --messages N} (20), {@code --body-bytes B} (1024), {@code --body-kind
 * filler|letters|base64|ascii} (filler; {@link Design.Message#body}), {@code --patterns
 * fifo,priority,filtered,lifo}, {@code --shapes steady,backlog}, {@code --modes single,batch},
 * {@code --out DIR}.
 */
public final class DynamoBench {

  static final String ENTRY = "dynamodb";

  /** US$ per million write request units, on-demand, us-east-1 (docs/benchmarks.md says when). */
  static final double WRITE_PRICE = 0.625;

  /** US$ per million read request units, on-demand, us-east-1. */
  static final double READ_PRICE = 0.125;

  static final String[] COLUMNS = {
    "target",
    "pattern",
    "shape",
    "mode",
    "case",
    "messages",
    "requests/msg",
    "WCU/msg",
    "index WCU/msg",
    "RCU/msg",
    "$/M msgs",
    "moto units/msg",
    "lost conditions",
    "bytes kept/msg",
    "busiest key WCU %",
    "requests"
  };

  private DynamoBench() {}

  /** One case: a pattern, a shape and a mode. */
  record Case(String pattern, String shape, String mode) {
    int batch() {
      return mode.equals("batch") ? 10 : 1;
    }

    String label() {
      return pattern + " " + shape + " " + mode;
    }
  }

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int messages = 20;
    int bodyBytes = 1024;
    String bodyKind = "filler";
    List<String> patterns = List.of("fifo", "priority", "filtered", "lifo");
    List<String> shapes = List.of("steady", "backlog");
    List<String> modes = List.of("single", "batch");
    String[] rest = ra.rest();
    for (int i = 0; i < rest.length; i += 2) {
      if (i + 1 >= rest.length) {
        throw new IllegalArgumentException(rest[i] + " needs a value");
      }
      String v = rest[i + 1];
      switch (rest[i]) {
        case "--messages" -> messages = Integer.parseInt(v);
        case "--body-bytes" -> bodyBytes = Integer.parseInt(v);
        case "--body-kind" -> {
          if (!Design.BODY_KINDS.contains(v)) {
            throw new IllegalArgumentException(
                "unknown body kind '" + v + "' (have " + String.join(",", Design.BODY_KINDS) + ")");
          }
          bodyKind = v;
        }
        case "--patterns" ->
            patterns = choose("pattern", v, "fifo", "priority", "filtered", "lifo");
        case "--shapes" -> shapes = choose("shape", v, "steady", "backlog");
        case "--modes" -> modes = choose("mode", v, "single", "batch");
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + rest[i]
                    + " (have --messages, --body-bytes, --body-kind, --patterns, --shapes, --modes,"
                    + " --out)");
      }
    }
    if (messages < 1 || bodyBytes < 64) {
      throw new IllegalArgumentException(
          "--messages must be at least 1 and --body-bytes at least 64, got "
              + messages
              + " and "
              + bodyBytes);
    }
    Report r = run(messages, bodyBytes, bodyKind, patterns, shapes, modes);
    r.write(ra.out(), RunInfo.capture(RunInfo.commandLine(DynamoBench.class, args)), System.out);
  }

  private static List<String> choose(String what, String value, String... allowed) {
    List<String> chosen = Arrays.asList(value.split(","));
    for (String c : chosen) {
      if (!Arrays.asList(allowed).contains(c)) {
        throw new IllegalArgumentException(
            "unknown " + what + " '" + c + "' (have " + String.join(",", allowed) + ")");
      }
    }
    return chosen;
  }

  /** Runs every case on a moto of its own and reports them. */
  static Report run(
      int messages,
      int bodyBytes,
      String bodyKind,
      List<String> patterns,
      List<String> shapes,
      List<String> modes)
      throws Exception {
    Report r =
        Report.create(
                ENTRY,
                "DynamoDB requests and capacity units per message (send + receive + ack), on-demand",
                COLUMNS)
            .note(
                messages
                    + " messages of "
                    + bodyBytes
                    + " bytes ("
                    + bodyKind
                    + ") per case; units as AWS bills them (CapacityMeter), on moto "
                    + "serving one request at a time; $/M msgs at $"
                    + WRITE_PRICE
                    + " per million write and $"
                    + READ_PRICE
                    + " per million read request units (us-east-1, on demand); load average "
                    + RunInfo.loadAverages(Machine.LOCAL))
            .chart(
                ChartSpec.bars(
                    "Dollars per million messages (on-demand capacity units)",
                    "US$ per million messages",
                    "case",
                    "target",
                    "$/M msgs"))
            .chart(
                ChartSpec.bars(
                    "Write units per message", "WCU per message", "case", "target", "WCU/msg"));
    try (MotoProcess moto = MotoProcess.start();
        DynamoDbClient shadow = moto.client()) {
      CapacityMeter meter = new CapacityMeter(shadow, true);
      try (DynamoDbClient metered = moto.client(meter)) {
        int run = 0;
        for (String pattern : patterns) {
          for (String shape : shapes) {
            for (String mode : modes) {
              Case c = new Case(pattern, shape, mode);
              for (String target : targets(pattern)) {
                run++;
                try (Design d = design(target, pattern, metered, shadow, run, bodyBytes)) {
                  Capacity before = meter.snapshot();
                  Map<String, Long> keysBefore = meter.writeUnitsByKey();
                  drive(d, c, messages, bodyKind);
                  Capacity used = meter.snapshot().minus(before);
                  double busiest = busiestShare(keysBefore, meter.writeUnitsByKey());
                  row(r, target, c, messages, used, d.bytesKept(), busiest);
                  System.err.printf(
                      "dynamodb: %s, %s: %d requests%n",
                      target, c.label(), used.total().requests());
                }
              }
            }
          }
        }
      }
    }
    return r;
  }

  /**
   * The busiest partition key's share of the table write units between two counts, in percent: a
   * design whose writes all go to one key is held to that key's 1,000 units a second.
   */
  static double busiestShare(Map<String, Long> before, Map<String, Long> after) {
    long total = 0;
    long busiest = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      long units = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      total += units;
      busiest = Math.max(busiest, units);
    }
    return total == 0 ? 0 : 100.0 * busiest / total;
  }

  private static List<String> targets(String pattern) {
    return switch (pattern) {
      case "priority" -> List.of("switchboard", "seed 001");
      case "filtered" -> List.of("switchboard", "seed 000");
      case "lifo" -> List.of("switchboard", "seed 002");
      default -> List.of("switchboard", SHARDED);
    };
  }

  /** The FIFO queue on {@value #SHARDS} shards: its writes spread over that many keys. */
  static final String SHARDED = "switchboard 4 shards";

  static final int SHARDS = 4;

  private static Design design(
      String target,
      String pattern,
      DynamoDbClient metered,
      DynamoDbClient shadow,
      int run,
      int bodyBytes) {
    return switch (target) {
      case "switchboard", SHARDED ->
          new SwitchboardDesign(
              metered,
              shadow,
              "r" + run + "_",
              pattern.equals("lifo") ? Order.LIFO : Order.FIFO,
              bodyBytes,
              target.equals(SHARDED) ? SHARDS : 1);
      case "seed 001" -> new Seed001Priority(metered, shadow, "seed001_r" + run, bodyBytes);
      case "seed 000" -> new Seed000FilteredFifo(metered, shadow, "seed000_r" + run, bodyBytes);
      case "seed 002" -> new Seed002Lifo(metered, shadow, "seed002_r" + run, bodyBytes);
      default -> throw new IllegalArgumentException(target);
    };
  }

  /** The run's messages: the same for every target of a pattern. */
  static List<Design.Message> messages(String pattern, int count, String bodyKind) {
    Random random = new Random(42);
    List<Design.Message> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String id = String.format("m%06d", i);
      switch (pattern) {
        case "priority" ->
            out.add(new Design.Message(id, random.nextInt(3), "", List.of(), bodyKind));
        case "filtered" -> {
          List<String> languages = new ArrayList<>();
          for (String l : Seed000FilteredFifo.LANGUAGES) {
            if (random.nextBoolean()) {
              languages.add(l);
            }
          }
          if (languages.isEmpty()) {
            languages.add(Seed000FilteredFifo.LANGUAGES.get(random.nextInt(3)));
          }
          out.add(
              new Design.Message(
                  id,
                  0,
                  Seed000FilteredFifo.GENDERS.get(random.nextInt(2)),
                  List.copyOf(languages),
                  bodyKind));
        }
        default -> out.add(new Design.Message(id, 0, "", List.of(), bodyKind));
      }
    }
    return out;
  }

  /**
   * Sends, receives and acks every message of the case through {@code d}.
   *
   * @throws IllegalStateException if a message was taken twice, or a receive found nothing while
   *     messages were queued
   */
  static void drive(Design d, Case c, int count, String bodyKind) {
    List<Design.Message> all = messages(c.pattern(), count, bodyKind);
    Map<String, Design.Message> queued = new LinkedHashMap<>();
    Set<String> taken = new HashSet<>();
    Random wants = new Random(7);
    int batch = c.batch();
    boolean steady = c.shape().equals("steady");
    for (int from = 0; from < all.size(); from += batch) {
      List<Design.Message> chunk = all.subList(from, Math.min(all.size(), from + batch));
      d.send(chunk);
      chunk.forEach(m -> queued.put(m.id(), m));
      if (steady) {
        drain(d, c, queued, taken, wants, batch);
      }
    }
    drain(d, c, queued, taken, wants, batch);
    if (taken.size() != count) {
      throw new IllegalStateException(
          c.label() + ": " + taken.size() + " of " + count + " messages taken");
    }
  }

  private static void drain(
      Design d,
      Case c,
      Map<String, Design.Message> queued,
      Set<String> taken,
      Random wants,
      int batch) {
    while (!queued.isEmpty()) {
      Design.Want want = null;
      if (c.pattern().equals("filtered")) {
        List<Design.Message> left = new ArrayList<>(queued.values());
        Design.Message m = left.get(wants.nextInt(left.size()));
        want = new Design.Want(m.languages().get(wants.nextInt(m.languages().size())), m.gender());
      }
      List<Design.Taken> got = d.receive(want, batch);
      if (got.isEmpty()) {
        throw new IllegalStateException(
            c.label()
                + ": a receive"
                + (want == null ? "" : " of " + want)
                + " found nothing with "
                + queued.size()
                + " messages queued");
      }
      for (Design.Taken t : got) {
        if (!taken.add(t.id()) || queued.remove(t.id()) == null) {
          throw new IllegalStateException(c.label() + ": " + t.id() + " taken twice");
        }
      }
      d.ack(got);
    }
  }

  private static void row(
      Report r,
      String target,
      Case c,
      int messages,
      Capacity used,
      long bytesKept,
      double busiestKeyShare) {
    Capacity.Op t = used.total();
    double n = messages;
    double wcu = t.writes() / n;
    double rcu = t.reads() / n;
    r.row(
        target,
        c.pattern(),
        c.shape(),
        c.mode(),
        c.label(),
        messages,
        t.requests() / n,
        wcu,
        t.indexWrites() / n,
        rcu,
        dollarsPerMillion(wcu, rcu),
        t.motoUnits() / n,
        t.lostConditions(),
        bytesKept / n,
        busiestKeyShare,
        used.requestMix());
  }

  /** US$ per million messages for these units per message, at on-demand prices. */
  static double dollarsPerMillion(double wcuPerMessage, double rcuPerMessage) {
    return wcuPerMessage * WRITE_PRICE + rcuPerMessage * READ_PRICE;
  }
}
