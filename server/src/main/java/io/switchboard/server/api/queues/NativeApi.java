package io.switchboard.server.api.queues;

import io.helidon.http.HeaderNames;
import io.switchboard.client.AckResult;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.NativeWire;
import io.switchboard.client.wire.NativeWire.AckBatch;
import io.switchboard.client.wire.NativeWire.Extend;
import io.switchboard.client.wire.NativeWire.Purged;
import io.switchboard.client.wire.NativeWire.Queues;
import io.switchboard.client.wire.NativeWire.Receive;
import io.switchboard.client.wire.NativeWire.RedriveTasks;
import io.switchboard.client.wire.NativeWire.Release;
import io.switchboard.client.wire.NativeWire.SendBatch;
import io.switchboard.client.wire.NativeWire.SendMessage;
import io.switchboard.client.wire.NativeWire.StartRedrive;
import io.switchboard.client.wire.NativeWire.UpdateMessage;
import io.switchboard.client.wire.StreamedAnswers;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.SendResult;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The native REST/JSON API ({@code docs/api.md}): each handler reads its request strictly, makes
 * one engine call and writes the answer. Nothing here decides queue semantics.
 */
public final class NativeApi {

  private static final int DEFAULT_BROWSE_LIMIT = 100;

  /**
   * The busiest answers (send batch, receive, browse, batch ack) are written by {@link
   * StreamedAnswers}, byte for byte what {@link Call#json} writes of their {@link NativeWire}
   * records.
   */
  private static final String JSON = "application/json";

  private static final Action SEND = Action.QUEUE_SEND;
  private static final Action RECEIVE = Action.QUEUE_RECEIVE;
  private static final Action BROWSE = Action.QUEUE_BROWSE;
  private static final Action ADMIN = Action.QUEUE_ADMIN;

  private NativeApi() {}

  /** The native queue routes, in the order they are matched. */
  public static List<Route> routes() {
    return List.of(
        Route.declare("GET", "/v1/queues", "listQueues")
            .guard(Guard.any(BROWSE))
            .query("prefix", "limit", "cursor")
            .noBody()
            .to(NativeApi::listQueues),
        Route.declare("POST", "/v1/queues", "createQueue")
            .guard(inBody())
            .body(JsonFields.class)
            .to(NativeApi::createQueue),
        Route.declare("GET", "/v1/queues/{queue}", "getQueue")
            .guard(queue(BROWSE))
            .noBody()
            .to(NativeApi::getQueue),
        Route.declare("PATCH", "/v1/queues/{queue}", "updateQueue")
            .guard(queue(ADMIN))
            .body(JsonFields.class)
            .to(NativeApi::updateQueue),
        Route.declare("DELETE", "/v1/queues/{queue}", "deleteQueue")
            .guard(queue(ADMIN))
            .noBody()
            .to(NativeApi::deleteQueue),
        Route.declare("GET", "/v1/queues/{queue}/stats", "stats")
            .guard(queue(BROWSE))
            .noBody()
            .to(NativeApi::stats),
        Route.declare("POST", "/v1/queues/{queue}/purge", "purge")
            .guard(queue(ADMIN))
            .noBody()
            .to(NativeApi::purge),
        Route.declare("POST", "/v1/queues/{queue}/messages/batch", "sendBatch")
            .guard(queue(SEND))
            .body(SendBatch.class)
            .to(NativeApi::sendBatch),
        Route.declare("POST", "/v1/queues/{queue}/messages", "send")
            .guard(queue(SEND))
            .body(SendMessage.class)
            .to(NativeApi::send),
        Route.declare("GET", "/v1/queues/{queue}/messages", "browse")
            .guard(queue(BROWSE))
            .query("limit", "cursor", "selector", "includeInvisible")
            .noBody()
            .to(NativeApi::browse),
        Route.declare("GET", "/v1/queues/{queue}/messages/{id}", "getMessage")
            .guard(queue(BROWSE))
            .noBody()
            .to(NativeApi::getMessage),
        Route.declare("PATCH", "/v1/queues/{queue}/messages/{id}", "updateMessage")
            .guard(queue(ADMIN))
            .body(UpdateMessage.class)
            .to(NativeApi::updateMessage),
        Route.declare("DELETE", "/v1/queues/{queue}/messages/{id}", "removeMessage")
            .guard(queue(ADMIN))
            .noBody()
            .to(NativeApi::removeMessage),
        Route.declare("POST", "/v1/queues/{queue}/messages/{id}/touch", "touch")
            .guard(queue(ADMIN))
            .noBody()
            .to(NativeApi::touch),
        Route.declare("POST", "/v1/queues/{queue}/messages/{id}/dead-letter", "deadLetterById")
            .guard(queue(ADMIN))
            .noBody()
            .to(NativeApi::deadLetterById),
        Route.declare("POST", "/v1/queues/{queue}/messages/{id}/restore", "restore")
            .guard(queue(ADMIN))
            .noBody()
            .to(NativeApi::restore),
        Route.declare("POST", "/v1/queues/{queue}/receive", "receive")
            .guard(queue(RECEIVE))
            .body(Receive.class)
            .to(NativeApi::receive),
        Route.declare("POST", "/v1/queues/{queue}/acks", "ackBatch")
            .guard(queue(RECEIVE))
            .body(AckBatch.class)
            .to(NativeApi::ackBatch),
        Route.declare("POST", "/v1/queues/{queue}/leases/{receipt}/ack", "ack")
            .guard(queue(RECEIVE))
            .noBody()
            .to(NativeApi::ack),
        Route.declare("POST", "/v1/queues/{queue}/leases/{receipt}/release", "release")
            .guard(queue(RECEIVE))
            .body(Release.class)
            .to(NativeApi::release),
        Route.declare("POST", "/v1/queues/{queue}/leases/{receipt}/extend", "extend")
            .guard(queue(RECEIVE))
            .body(Extend.class)
            .to(NativeApi::extend),
        Route.declare("POST", "/v1/queues/{queue}/leases/{receipt}/fail", "fail")
            .guard(queue(RECEIVE))
            .noBody()
            .to(NativeApi::fail),
        Route.declare("POST", "/v1/queues/{queue}/leases/{receipt}/dead-letter", "deadLetter")
            .guard(queue(RECEIVE))
            .noBody()
            .to(NativeApi::deadLetter),
        Route.declare("POST", "/v1/queues/{queue}/redrives", "startRedrive")
            .guard(queue(ADMIN))
            .body(StartRedrive.class)
            .to(NativeApi::startRedrive),
        Route.declare("GET", "/v1/queues/{queue}/redrives", "listRedrives")
            .guard(queue(BROWSE))
            .noBody()
            .to(NativeApi::listRedrives),
        // a task id names no queue this side of the engine: the key must administer every queue
        Route.declare("POST", "/v1/redrives/{task}/cancel", "cancelRedrive")
            .guard(Guard.everyQueue(ADMIN))
            .noBody()
            .to(NativeApi::cancelRedrive),
        Route.declare("POST", "/v1/noop", "noop")
            .guard(Guard.authenticated())
            .query("answerBytes")
            .discardsBody()
            .withoutEngine()
            .to(NativeApi::noop));
  }

  private static Guard queue(Action action) {
    return Guard.queue(action);
  }

  /** Creating a queue needs {@code queue:admin} on the name the body gives. */
  private static Guard inBody() {
    return Guard.queueInBody(ADMIN, "name");
  }

  // ---- queues ------------------------------------------------------------------------------

  /** The most queues one page of {@code GET /v1/queues} lists, and its size when none is asked. */
  static final int MAX_QUEUE_PAGE = 1000;

  /**
   * A page of queues by name, after the cursor (the last name of the previous page). A key sees the
   * queues it may browse: the engine is read on past the others until the page is full or the
   * queues end, so the cursor is always a name the key may see.
   */
  private static void listQueues(Call c) {
    c.json(
        queuePage(
            c.engine(),
            c.principal(),
            c.query("prefix").orElse(""),
            c.query("cursor").orElse(""),
            c.queryInt("limit").orElse(MAX_QUEUE_PAGE)));
  }

  /**
   * The page {@code GET /v1/queues} answers (and the gRPC API's {@code ListQueues}): at most {@code
   * limit} queues named {@code prefix}..., after {@code after} (empty: from the first), those
   * {@code key} may browse (all, in keyless mode).
   */
  public static Queues queuePage(
      QueueEngine engine, Optional<Principal> key, String prefix, String after, int limit) {
    if (limit < 1 || limit > MAX_QUEUE_PAGE) {
      throw new HttpError(
          400, "INVALID_ARGUMENT", "limit must be 1.." + MAX_QUEUE_PAGE + ", got " + limit);
    }
    List<QueueInfo> page = new ArrayList<>();
    boolean more = false;
    // a key skips the queues it may not see: read on in full pages, not a page of its limit each
    int batch = key.isPresent() ? MAX_QUEUE_PAGE + 1 : limit + 1;
    while (!more) {
      List<QueueInfo> read = engine.listQueues(prefix, after, batch);
      for (QueueInfo q : read) {
        if (key.isPresent() && !key.get().may(Access.queue(BROWSE, q.name()))) {
          continue; // a key sees the queues it may browse
        }
        if (page.size() == limit) {
          more = true;
          break;
        }
        page.add(q);
      }
      if (read.size() < batch) {
        break;
      }
      after = read.get(read.size() - 1).name();
    }
    return Queues.of(page, more ? Optional.of(page.get(page.size() - 1).name()) : Optional.empty());
  }

  private static void createQueue(Call c) {
    JsonFields f = c.body();
    String name = f.requiredString("name");
    QueueConfig config = WireFormat.config(f, QueueConfig.defaults());
    f.finish();
    QueueCreation result = c.engine().ensureQueue(name, config);
    tag(c, result.queue());
    c.json(result.created() ? 201 : 200, NativeWire.QueueView.of(result.queue(), null));
  }

  private static void getQueue(Call c) {
    String name = c.path("queue");
    QueueInfo info = c.engine().queue(name);
    QueueStats stats = c.engine().stats(name);
    tag(c, info);
    c.json(NativeWire.QueueView.of(info, stats));
  }

  /** The configuration's tag as the answer's {@code ETag}, for a later PATCH's {@code If-Match}. */
  private static void tag(Call c, QueueInfo info) {
    c.response().header(HeaderNames.ETAG, WireFormat.configTag(info.config()));
  }

  private static void updateQueue(Call c) {
    JsonFields f = c.body();
    QueueInfo info = updateQueue(c.engine(), c.path("queue"), f, c.header("If-Match"));
    tag(c, info);
    c.json(NativeWire.QueueView.of(info, null));
  }

  /**
   * Applies the configuration fields {@code f} gives to queue {@code name} (PATCH, and the gRPC
   * API's {@code UpdateQueue}); with {@code ifMatch} only to the configuration of that tag.
   */
  public static QueueInfo updateQueue(
      QueueEngine engine, String name, JsonFields f, Optional<String> ifMatch) {
    // The fields given apply to the configuration as it is when the queue's lock is held, so
    // concurrent PATCHes of different fields (and SQS attribute or tag changes) all land. With
    // If-Match they apply only to the configuration the client read (compare-and-set), so a client
    // can change a field from its current value without losing another client's change.
    return engine.updateQueue(
        name,
        current -> {
          String tag = WireFormat.configTag(current);
          if (ifMatch.isPresent()
              && !ifMatch.get().strip().equals("*")
              && !ifMatch.get().strip().equals(tag)) {
            throw new HttpError(
                412,
                "PRECONDITION_FAILED",
                "queue '"
                    + name
                    + "' changed since it was read: If-Match "
                    + ifMatch.get().strip()
                    + ", its configuration is now "
                    + tag
                    + "; read it again and retry");
          }
          QueueConfig next = WireFormat.config(f, current);
          f.finish();
          return next;
        });
  }

  private static void deleteQueue(Call c) {
    c.engine().deleteQueue(c.path("queue"));
    c.noContent();
  }

  private static void stats(Call c) {
    c.json(WireFormat.stats(c.engine().stats(c.path("queue"))));
  }

  private static void purge(Call c) {
    long purged = c.engine().purge(c.path("queue"));
    c.json(new Purged(purged));
  }

  // ---- send, browse, receive ---------------------------------------------------------------

  private static void send(Call c) {
    NewMessage message = c.body(SendMessage.class).toNewMessage();
    SendResult result = c.engine().send(c.path("queue"), message);
    c.json(result.duplicate() ? 200 : 201, result);
  }

  private static void sendBatch(Call c) {
    List<SendMessage> items = SendBatch.read(c.bytes(), "request body").messages();
    if (items == null) {
      throw new QueueException(
          ErrorCode.INVALID_ARGUMENT,
          "field 'messages' is required: an array of 1.." + c.config().maxBatch() + " messages");
    }
    if (items.size() > c.config().maxBatch()) {
      throw new QueueException(
          ErrorCode.BATCH_TOO_LARGE,
          "a batch may hold at most " + c.config().maxBatch() + " messages, got " + items.size());
    }
    List<NewMessage> messages = items.stream().map(SendMessage::toNewMessage).toList();
    List<SendResult> results = c.engine().sendBatch(c.path("queue"), messages);
    c.send(201, JSON, StreamedAnswers.sendResults(results));
  }

  private static void browse(Call c) {
    BrowseRequest request =
        BrowseRequest.first(c.queryInt("limit").orElse(DEFAULT_BROWSE_LIMIT))
            .includeInvisible(c.queryBool("includeInvisible").orElse(false));
    Optional<String> cursor = c.query("cursor");
    if (cursor.isPresent()) {
      request = request.after(cursor.get());
    }
    Optional<String> selector = c.query("selector");
    if (selector.isPresent()) {
      request = request.filter(SelectorFilter.parse(c.selector(selector.get())));
    }
    Page page = c.engine().browse(c.path("queue"), request);
    c.send(200, JSON, StreamedAnswers.messages(page.items(), page.nextCursor()));
  }

  private static void receive(Call c) {
    Receive body = Receive.read(c.bytes(), "request body");
    ReceiveRequest.Builder b = body.toRequest();
    Optional.ofNullable(body.selector()).ifPresent(s -> b.selector(c.selector(s)));
    ReceiveRequest request = b.build();
    if (!c.receiving(c.path("queue"), request.waitTime())) {
      throw new HttpError(503, "TOO_MANY_LONG_POLLS", Call.tooManyLongPolls(c.config()));
    }
    c.send(
        200,
        JSON,
        StreamedAnswers.messages(c.engine().receive(c.path("queue"), request), Optional.empty()));
  }

  // ---- leases ------------------------------------------------------------------------------

  private static void ack(Call c) {
    c.engine().ack(c.path("queue"), c.path("receipt"));
    c.noContent();
  }

  /**
   * Acks up to {@code max-batch} receipts, each on its own (like SQS's DeleteMessageBatch): one bad
   * receipt does not stop the others, and each gets its own result, in request order. Only errors
   * of the request as a whole (bad shape, too many receipts, unknown queue) fail it.
   */
  private static void ackBatch(Call c) {
    int max = c.config().maxBatch();
    List<String> receipts = AckBatch.read(c.bytes(), "request body").receipts();
    if (receipts == null) {
      throw new QueueException(
          ErrorCode.INVALID_ARGUMENT,
          "field 'receipts' is required: an array of 1.." + max + " receipts");
    }
    if (receipts.isEmpty()) {
      throw new QueueException(
          ErrorCode.INVALID_ARGUMENT,
          "field 'receipts' must hold 1.." + max + " receipts, got none");
    }
    if (receipts.size() > max) {
      throw new QueueException(
          ErrorCode.BATCH_TOO_LARGE,
          "a batch may hold at most " + max + " receipts, got " + receipts.size());
    }
    String queue = c.path("queue");
    List<Optional<QueueException>> outcomes = c.engine().ackAll(queue, receipts);
    List<AckResult> results = new ArrayList<>(receipts.size());
    for (int i = 0; i < receipts.size(); i++) {
      String receipt = receipts.get(i);
      results.add(
          outcomes
              .get(i)
              .map(e -> AckResult.failed(receipt, e.code().name(), String.valueOf(e.getMessage())))
              .orElseGet(() -> AckResult.acked(receipt)));
    }
    c.send(200, JSON, StreamedAnswers.ackResults(results));
  }

  private static void release(Call c) {
    Release body = c.body(Release.class);
    c.engine().release(c.path("queue"), c.path("receipt"), body.delay(), body.back());
    c.noContent();
  }

  private static void extend(Call c) {
    Duration visibility = c.body(Extend.class).visibilityTimeout();
    c.json(WireFormat.message(c.engine().extend(c.path("queue"), c.path("receipt"), visibility)));
  }

  private static void fail(Call c) {
    c.engine().fail(c.path("queue"), c.path("receipt"));
    c.noContent();
  }

  private static void deadLetter(Call c) {
    c.engine().deadLetter(c.path("queue"), c.path("receipt"));
    c.noContent();
  }

  // ---- messages by id ----------------------------------------------------------------------

  private static void getMessage(Call c) {
    c.json(WireFormat.message(c.engine().get(c.path("queue"), c.path("id"))));
  }

  private static void updateMessage(Call c) {
    UpdateMessage body = c.body(UpdateMessage.class);
    Optional<Integer> priority = Optional.ofNullable(body.priority());
    var attributes = body.attributeValues();
    if (priority.isEmpty() && attributes.isEmpty()) {
      throw new QueueException(
          ErrorCode.INVALID_ARGUMENT, "an update needs priority, attributes or both; got neither");
    }
    MessageUpdate update = new MessageUpdate(priority, attributes);
    c.json(WireFormat.message(c.engine().update(c.path("queue"), c.path("id"), update)));
  }

  private static void removeMessage(Call c) {
    c.engine().remove(c.path("queue"), c.path("id"));
    c.noContent();
  }

  private static void touch(Call c) {
    c.json(WireFormat.message(c.engine().touch(c.path("queue"), c.path("id"))));
  }

  private static void deadLetterById(Call c) {
    c.engine().deadLetterById(c.path("queue"), c.path("id"));
    c.noContent();
  }

  private static void restore(Call c) {
    c.json(WireFormat.message(c.engine().restore(c.path("queue"), c.path("id"))));
  }

  // ---- diagnostics -------------------------------------------------------------------------

  /**
   * Reads the body (under the same size limit as every route) and answers 204 without touching the
   * engine: the HTTP stack's own cost, which the end-to-end benchmark measures as its ceiling. With
   * {@code ?answerBytes=N} it answers 200 with a JSON body of exactly N bytes instead ({@code
   * {"pad":"xx…"}}, made per request, no JSON library): the benchmark's "sized" ceiling, the HTTP
   * exchange with answers as large as the real ones, still without engine or JSON work.
   */
  private static void noop(Call c) {
    OptionalInt answer = c.queryInt("answerBytes");
    if (answer.isPresent()
        && (answer.getAsInt() < NOOP_MIN_ANSWER || answer.getAsInt() > NOOP_MAX_ANSWER)) {
      throw new QueueException(
          ErrorCode.INVALID_ARGUMENT,
          "answerBytes must be "
              + NOOP_MIN_ANSWER
              + ".."
              + NOOP_MAX_ANSWER
              + " (the size of the answer), got "
              + answer.getAsInt());
    }
    c.discardBody();
    if (answer.isEmpty()) {
      c.noContent();
      return;
    }
    c.send(200, "application/json", padding(answer.getAsInt()));
  }

  /** The smallest sized no-op answer: {@code {"pad":""}}. */
  static final int NOOP_MIN_ANSWER = 10;

  /** The largest sized no-op answer (1 MiB): a bound on what one request makes the server write. */
  static final int NOOP_MAX_ANSWER = 1 << 20;

  /** {@code {"pad":"xx…"}} of exactly {@code bytes} bytes ({@code >= NOOP_MIN_ANSWER}). */
  static byte[] padding(int bytes) {
    byte[] out = new byte[bytes];
    byte[] open = {'{', '"', 'p', 'a', 'd', '"', ':', '"'};
    System.arraycopy(open, 0, out, 0, open.length);
    Arrays.fill(out, open.length, bytes - 2, (byte) 'x');
    out[bytes - 2] = '"';
    out[bytes - 1] = '}';
    return out;
  }

  // ---- redrive -----------------------------------------------------------------------------

  private static void startRedrive(Call c) {
    RedriveRequest request = c.body(StartRedrive.class).toRequest();
    RedriveTask task = c.engine().startRedrive(c.path("queue"), request);
    c.json(201, WireFormat.redriveTask(task));
  }

  private static void listRedrives(Call c) {
    c.json(RedriveTasks.of(c.engine().redriveTasks(c.path("queue"))));
  }

  private static void cancelRedrive(Call c) {
    c.json(WireFormat.redriveTask(c.engine().cancelRedrive(c.path("task"))));
  }
}
