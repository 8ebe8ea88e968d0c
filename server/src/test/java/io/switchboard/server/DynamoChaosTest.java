package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.storage.dynamodb.Moto;
import io.switchboard.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Two servers over one DynamoDB table (moto, one request at a time), each killed with SIGKILL in
 * turn under SQS load on a FIFO queue and started again (docs/deploy.md, "Running many servers over
 * Amazon DynamoDB"): no acknowledged send is lost, and no message of a group is delivered while an
 * earlier one of its group is still in the queue, except behind it in the same receive.
 *
 * <p>The servers run in child JVMs, so a kill is a real one: requests in flight are cut, leases
 * taken by a receive whose answer never came stay until their visibility timeout (2 s) ends, and
 * nothing is written at exit. Producers send each group's messages one after the other, trying the
 * same message (same deduplication id) on the other server until one acknowledges it; consumers
 * receive from either server and delete what they got. The phases end by counts of acknowledged
 * sends, never by time; every wait is bounded.
 */
@ExtendWith(Moto.class)
class DynamoChaosTest {

  private static final String QUEUE = "chaos.fifo";
  private static final int GROUPS = 4;

  /** Acknowledged sends before the first kill, between the kills, and after the last. */
  private static final int PHASE = 20;

  private static final Duration WAIT =
      Duration.ofSeconds(120); // a ceiling: moto under a loaded machine is slow
  private static final Map<String, String> CREDENTIALS =
      Map.of("AWS_ACCESS_KEY_ID", "test", "AWS_SECRET_ACCESS_KEY", "test");

  /** What the consumers saw, in the order they saw it, with every delete they began. */
  private static final class Ledger {
    private final Map<Integer, Integer> acked = new HashMap<>();
    private final Map<Integer, Set<Integer>> deleting = new HashMap<>();
    private final Map<Integer, Set<Integer>> delivered = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private int deliveries;

    synchronized void acked(int group, int seq) {
      acked.merge(group, seq, Math::max);
    }

    synchronized int ackedCount() {
      int n = 0;
      for (int last : acked.values()) {
        n += last + 1;
      }
      return n;
    }

    /**
     * One receive's messages, in its order: each must have every earlier message of its group
     * deleted (a delete begun before this receive returned) or earlier in this same receive.
     */
    synchronized void received(List<int[]> got) {
      Map<Integer, Set<Integer>> before = new HashMap<>();
      for (int[] m : got) {
        int group = m[0];
        int seq = m[1];
        deliveries++;
        Set<Integer> gone = deleting.getOrDefault(group, Set.of());
        Set<Integer> ahead = before.computeIfAbsent(group, g -> new HashSet<>());
        for (int earlier = 0; earlier < seq; earlier++) {
          if (!gone.contains(earlier) && !ahead.contains(earlier)) {
            violations.add(
                "group "
                    + group
                    + ": message "
                    + seq
                    + " delivered while message "
                    + earlier
                    + " was still in the queue (receive "
                    + got.stream().map(x -> x[0] + "/" + x[1]).toList()
                    + ")");
            break;
          }
        }
        ahead.add(seq);
        delivered.computeIfAbsent(group, g -> new TreeSet<>()).add(seq);
      }
    }

    synchronized void deleting(int group, int seq) {
      deleting.computeIfAbsent(group, g -> new HashSet<>()).add(seq);
    }

    /** The acknowledged sends no consumer ever received. */
    synchronized List<String> lost() {
      List<String> lost = new ArrayList<>();
      acked.forEach(
          (group, last) -> {
            for (int seq = 0; seq <= last; seq++) {
              if (!delivered.getOrDefault(group, Set.of()).contains(seq)) {
                lost.add(group + "/" + seq);
              }
            }
          });
      return lost;
    }

    synchronized List<String> violations() {
      return List.copyOf(violations);
    }

    synchronized int deliveries() {
      return deliveries;
    }
  }

  /** The server at one of the two places, replaced after a kill; null while it is down. */
  private static final class Slot {
    private volatile @Nullable Child child;
    private volatile @Nullable SqsClient sqs;

    void serve(Child started) {
      sqs = client(started.uri);
      child = started;
    }

    void kill() throws InterruptedException {
      Child c = child;
      SqsClient s = sqs;
      child = null;
      sqs = null;
      if (c != null) {
        c.kill();
      }
      if (s != null) {
        s.close();
      }
    }

    @Nullable String url() {
      Child c = child;
      return c == null ? null : c.uri + "/000000000000/" + QUEUE;
    }
  }

  private final Slot[] slots = {new Slot(), new Slot()};
  private final AtomicInteger turn = new AtomicInteger();
  private final List<String> serverErrors = new ArrayList<>();
  private final AtomicInteger cut = new AtomicInteger();

  /** Every child started, killed at the end whatever happened. */
  private final List<Process> children = new java.util.concurrent.CopyOnWriteArrayList<>();

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void eachServerKilledUnderSqsLoad_noAcknowledgedSendLost_fifoOrderPerGroupKept()
      throws Exception {
    String table = Moto.prefix() + "switchboard";
    Ledger ledger = new Ledger();
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicBoolean consuming = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    try {
      CompletableFuture<Child> one = Child.starting(table, children);
      CompletableFuture<Child> two = Child.starting(table, children);
      slots[0].serve(one.join());
      slots[1].serve(two.join());
      SqsClient admin = java.util.Objects.requireNonNull(slots[0].sqs);
      admin.createQueue(
          b ->
              b.queueName(QUEUE)
                  .attributes(
                      Map.of(
                          QueueAttributeName.FIFO_QUEUE, "true",
                          QueueAttributeName.VISIBILITY_TIMEOUT, "2")));

      for (int p = 0; p < 2; p++) {
        int first = p;
        threads.add(Thread.ofPlatform().start(() -> produce(first, producing, ledger)));
      }
      for (int c = 0; c < 2; c++) {
        threads.add(Thread.ofPlatform().start(() -> consume(consuming, ledger)));
      }

      for (int victim = 0; victim < 2; victim++) {
        int target = (victim + 1) * PHASE;
        Await.until(() -> ledger.ackedCount() >= target, target + " acknowledged sends", WAIT);
        slots[victim].kill(); // SIGKILL under load: no graceful stop
        CompletableFuture<Child> again = Child.starting(table, children);
        int during = ledger.ackedCount();
        Await.until(
            () -> ledger.ackedCount() >= during + 5,
            "sends acknowledged by the other server while this one is down",
            WAIT);
        slots[victim].serve(again.join());
      }
      Await.until(() -> ledger.ackedCount() >= 3 * PHASE, "the last phase's sends", WAIT);
      producing.set(false);
      for (Thread t : threads.subList(0, 2)) {
        t.join(WAIT.toMillis());
      }

      // everything acknowledged comes out, and the queue ends empty
      Await.until(
          () -> ledger.lost().isEmpty() && empty(), "every acknowledged send delivered", WAIT);
      consuming.set(false);
      for (Thread t : threads) {
        t.join(WAIT.toMillis());
      }

      System.out.println(
          "DynamoChaosTest: "
              + ledger.ackedCount()
              + " sends acknowledged, "
              + ledger.deliveries()
              + " deliveries, "
              + cut.get()
              + " calls cut by the kills");
      assertEquals(List.of(), ledger.lost(), "acknowledged sends never delivered");
      assertEquals(List.of(), ledger.violations(), "FIFO order per group");
      synchronized (serverErrors) {
        assertEquals(List.of(), serverErrors, "answers other than 503 among the server errors");
      }
      assertTrue(empty(), "the queue ends empty");
    } finally {
      producing.set(false);
      consuming.set(false);
      for (Thread t : threads) {
        t.join(WAIT.toMillis());
      }
      for (Slot s : slots) {
        s.kill();
      }
      for (Process p : children) {
        p.destroyForcibly();
      }
    }
  }

  /** Whether the queue holds nothing, as one of the servers says. */
  private boolean empty() {
    return call(
            (sqs, url) -> {
              Map<QueueAttributeName, String> a =
                  sqs.getQueueAttributes(
                          b ->
                              b.queueUrl(url)
                                  .attributeNames(
                                      QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                      QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                                      QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED))
                      .attributes();
              return a.values().stream().allMatch("0"::equals);
            })
        == Boolean.TRUE;
  }

  /**
   * Sends groups {@code first}, {@code first + 2}, ... in turn, each message until a server
   * acknowledges it (the same deduplication id every time, so a send that was stored but whose
   * answer was cut is not stored twice).
   */
  private void produce(int first, AtomicBoolean producing, Ledger ledger) {
    int[] next = new int[GROUPS];
    while (producing.get()) {
      for (int group = first; group < GROUPS; group += 2) {
        int g = group;
        int seq = next[g];
        String body = g + "/" + seq;
        Object sent =
            call(
                (sqs, url) ->
                    sqs.sendMessage(
                        b ->
                            b.queueUrl(url)
                                .messageBody(body)
                                .messageGroupId("g" + g)
                                .messageDeduplicationId("d" + body)));
        if (sent != null) {
          ledger.acked(g, seq);
          next[g]++;
        }
      }
    }
  }

  /** Receives from either server and deletes what it got, noting each delete before it is sent. */
  private void consume(AtomicBoolean consuming, Ledger ledger) {
    while (consuming.get()) {
      String[] from = new String[1];
      List<Message> got =
          call(
              (sqs, url) -> {
                from[0] = url;
                return sqs.receiveMessage(
                        b -> b.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                    .messages();
              });
      if (got == null || got.isEmpty()) {
        continue;
      }
      List<int[]> parsed = new ArrayList<>();
      for (Message m : got) {
        String[] parts = m.body().split("/");
        parsed.add(new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])});
      }
      ledger.received(parsed);
      for (int i = 0; i < got.size(); i++) {
        int[] m = parsed.get(i);
        String handle = got.get(i).receiptHandle();
        ledger.deleting(m[0], m[1]);
        // a receipt is the queue's, not the server's: either server takes it
        call((sqs, url) -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(handle)));
      }
    }
  }

  private interface SqsCall<T> {
    T call(SqsClient sqs, String queueUrl);
  }

  /**
   * One call to one of the servers, taking turns; null when it failed (cut by a kill, or refused):
   * refusals other than 503 are kept as server errors, except a delete's 4xx (its lease ended and
   * the message went to another consumer meanwhile).
   */
  private <T> @Nullable T call(SqsCall<T> call) {
    int i = Math.floorMod(turn.getAndIncrement(), 2);
    Slot slot = slots[i].sqs != null ? slots[i] : slots[1 - i]; // the other while one is down
    SqsClient sqs = slot.sqs;
    String url = slot.url();
    if (sqs == null || url == null) {
      return null;
    }
    try {
      return call.call(sqs, url);
    } catch (SqsException e) {
      if (e.statusCode() >= 500 && e.statusCode() != 503) {
        synchronized (serverErrors) {
          serverErrors.add(e.statusCode() + " " + e.getMessage());
        }
      }
      return null;
    } catch (RuntimeException e) {
      cut.incrementAndGet(); // the connection was cut or refused: the server is down
      return null;
    }
  }

  private static SqsClient client(URI endpoint) {
    return SqsClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("fake", "fake")))
        .overrideConfiguration(
            ClientOverrideConfiguration.builder()
                .apiCallTimeout(Duration.ofSeconds(10))
                .retryStrategy(AwsRetryStrategy.doNotRetry())
                .build())
        .build();
  }

  /** A server in a child JVM over the table, killed with SIGKILL. */
  private static final class Child {
    final Process process;
    final URI uri;
    private final StringBuilder output = new StringBuilder();

    private Child(Process process) throws IOException {
      this.process = process;
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String port = null;
      for (String line; port == null && (line = in.readLine()) != null; ) {
        output.append(line).append('\n');
        if (line.startsWith("PORT ")) {
          port = line.substring(5).strip();
        }
      }
      if (port == null) {
        throw new AssertionError("the server did not start:\n" + output);
      }
      uri = URI.create("http://127.0.0.1:" + port);
      // keep reading, so the child never blocks on a full pipe
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                try {
                  while (in.readLine() != null) {
                    // the server's log: not needed once it serves
                  }
                } catch (IOException gone) {
                  // killed
                }
              });
    }

    /** Starts a server on the table; the future completes once it serves. */
    static CompletableFuture<Child> starting(String table, List<Process> started)
        throws IOException {
      List<String> command =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xmx256m",
              "-XX:TieredStopAtLevel=1",
              "-cp",
              System.getProperty("java.class.path"),
              Main.class.getName(),
              table,
              Moto.endpoint().toString());
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.environment().putAll(CREDENTIALS);
      Process process = pb.start();
      started.add(process);
      return CompletableFuture.supplyAsync(
          () -> {
            try {
              return new Child(process);
            } catch (IOException e) {
              process.destroyForcibly();
              throw new java.io.UncheckedIOException(e);
            }
          });
    }

    void kill() throws InterruptedException {
      process.toHandle().destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** The child: a server on the DynamoDB table {@code args[0]} at {@code args[1]}. */
  public static final class Main {
    public static void main(String[] args) throws Exception {
      SwitchboardServer server =
          SwitchboardServer.start(
              ServerConfig.resolve(
                  Map.of(
                      "port",
                      "0",
                      "dynamodb-table",
                      args[0],
                      "dynamodb-region",
                      "us-east-1",
                      "dynamodb-endpoint",
                      args[1]),
                  Map.of()));
      System.out.println("PORT " + server.uri().getPort());
      System.out.flush();
      Thread.currentThread().join(); // until killed
    }
  }
}
