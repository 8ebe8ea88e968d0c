package io.switchboard.server.api.push;

import io.switchboard.client.PushWire;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.server.auth.Action;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.Route;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The push-subscription routes ({@code docs/api.md}, "Push subscriptions"), under {@code
 * /v1/queues/{queue}/subscriptions}. Reading one (list, get, stats) needs {@code queue:browse} on
 * the queue; creating, changing, pausing, resuming, rotating the secret of and deleting one are
 * queue configuration, {@code queue:admin} (docs/security.md, "Push subscriptions").
 */
public final class PushApi {

  private final Supplier<@Nullable PushDelivery> push;

  /**
   * @param push the server's push delivery, once its engine is open
   */
  public PushApi(Supplier<@Nullable PushDelivery> push) {
    this.push = push;
  }

  private PushDelivery push() {
    PushDelivery p = push.get();
    if (p == null) {
      throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
    }
    return p;
  }

  public List<Route> routes() {
    Guard browse = Guard.queue(Action.QUEUE_BROWSE);
    Guard admin = Guard.queue(Action.QUEUE_ADMIN);
    return List.of(
        Route.declare("GET", "/v1/queues/{queue}/subscriptions", "listSubscriptions")
            .guard(browse)
            .noBody()
            .to(this::list),
        Route.declare("POST", "/v1/queues/{queue}/subscriptions", "createSubscription")
            .guard(admin)
            .body(PushWire.Subscription.class)
            .to(this::create),
        Route.declare("GET", "/v1/queues/{queue}/subscriptions/{subscription}", "getSubscription")
            .guard(browse)
            .noBody()
            .to(this::get),
        Route.declare(
                "PUT", "/v1/queues/{queue}/subscriptions/{subscription}", "updateSubscription")
            .guard(admin)
            .body(PushWire.Subscription.class)
            .to(this::update),
        Route.declare(
                "DELETE", "/v1/queues/{queue}/subscriptions/{subscription}", "deleteSubscription")
            .guard(admin)
            .noBody()
            .to(this::delete),
        Route.declare(
                "POST",
                "/v1/queues/{queue}/subscriptions/{subscription}/pause",
                "pauseSubscription")
            .guard(admin)
            .noBody()
            .to(c -> c.json(push().paused(c.path("queue"), c.path("subscription"), true))),
        Route.declare(
                "POST",
                "/v1/queues/{queue}/subscriptions/{subscription}/resume",
                "resumeSubscription")
            .guard(admin)
            .noBody()
            .to(c -> c.json(push().paused(c.path("queue"), c.path("subscription"), false))),
        Route.declare(
                "POST",
                "/v1/queues/{queue}/subscriptions/{subscription}/rotate-secret",
                "rotateSubscriptionSecret")
            .guard(admin)
            .noBody()
            .to(c -> c.json(push().rotate(c.path("queue"), c.path("subscription")))),
        Route.declare(
                "GET", "/v1/queues/{queue}/subscriptions/{subscription}/stats", "subscriptionStats")
            .guard(browse)
            .noBody()
            .to(c -> c.json(push().stats(c.path("queue"), c.path("subscription")))));
  }

  private void list(Call c) {
    c.json(new PushWire.SubscriptionList(push().list(c.path("queue"))));
  }

  private void create(Call c) {
    String queue = c.path("queue");
    PushWire.Subscription body = c.body(PushWire.Subscription.class);
    c.json(201, push().create(queue, body, c.config().maxSelectorLength()));
  }

  private void get(Call c) {
    c.json(push().get(c.path("queue"), c.path("subscription")));
  }

  private void update(Call c) {
    String queue = c.path("queue");
    PushWire.Subscription body = c.body(PushWire.Subscription.class);
    c.json(push().update(queue, c.path("subscription"), body, c.config().maxSelectorLength()));
  }

  private void delete(Call c) {
    push().delete(c.path("queue"), c.path("subscription"));
    c.noContent();
  }
}
