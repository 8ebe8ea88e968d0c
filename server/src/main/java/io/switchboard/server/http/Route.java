package io.switchboard.server.http;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One route of the server, declared once where its handler is: method, literal path pattern ({@code
 * {name}} matches one segment), the operation name that metrics and the OpenAPI document use, what
 * it needs of the caller ({@link Guard}), the body it takes ({@link Body}), the query parameters it
 * allows ({@link Query}), and its handler. {@code engineBound} routes need a ready engine and are
 * refused while the server starts or stops ({@link RequestFilters#gate}). The {@link RouteTable}
 * matches a request to its route, for the filters and for the server's one handler, which serves it
 * with {@link #serve}: the declared query parameters and body are checked, then the handler runs.
 *
 * <p>Declare a route with {@link #declare}, its path written out in full (so that a search for the
 * path finds its handler), e.g.
 *
 * <pre>{@code
 * Route.declare("GET", "/v1/queues/{queue}/messages", "browse")
 *     .guard(Guard.queue(Action.QUEUE_BROWSE))
 *     .query("limit", "cursor", "selector", "includeInvisible")
 *     .noBody()
 *     .to(NativeApi::browse)
 * }</pre>
 *
 * <p>{@code guard} is what the route needs of the caller when access keys are configured; null
 * means undeclared, which the server treats as {@code admin} and the access matrix test refuses.
 */
public record Route(
    String method,
    String pattern,
    String operation,
    boolean engineBound,
    Endpoint endpoint,
    @Nullable Guard guard,
    Body body,
    Query query) {

  /**
   * A route whose guard is undeclared (it needs {@code admin}), whose body and query the handler
   * reads as it likes.
   */
  Route(String method, String pattern, String operation, boolean engineBound, Endpoint endpoint) {
    this(method, pattern, operation, engineBound, endpoint, null, Body.UNCHECKED, Query.UNCHECKED);
  }

  /** Starts the declaration of {@code method pattern}, named {@code operation}. */
  public static Builder declare(String method, String pattern, String operation) {
    return new Builder(method, pattern, operation);
  }

  /** Checks the query parameters and the body as declared, then runs the handler. */
  public void serve(Call call) {
    query.check(call);
    body.check(call);
    endpoint.handle(call);
  }

  /** The same route served by {@code other} (which wraps this route's endpoint, say). */
  public Route withEndpoint(Endpoint other) {
    return new Route(method, pattern, operation, engineBound, other, guard, body, query);
  }

  /** What a route does with a call. */
  @FunctionalInterface
  public interface Endpoint {
    void handle(Call call);
  }

  /** The body a route takes. */
  public sealed interface Body {

    /** No body: anything but nothing or {@code {}} is refused ({@code UNKNOWN_FIELD}). */
    Body NONE = new None();

    /** A body, if sent, is not read (a {@code GET} that answers a document, say). */
    Body IGNORED = new Ignored();

    /**
     * A body, if sent, is read within the size limit and dropped by the handler, at the point it
     * says (an event stream, the no-op).
     */
    Body DISCARDED = new Discarded();

    /** The handler reads the body as it likes (the SQS endpoint, whose protocols differ). */
    Body UNCHECKED = new Unchecked();

    /** A JSON body the handler reads as {@code type}: a wire record, or {@code JsonFields}. */
    static Body json(Class<?> type) {
      return new Json(type);
    }

    /** Refuses what this kind of body does not allow; the handler reads the rest. */
    default void check(Call call) {}

    /** No body. */
    record None() implements Body {
      @Override
      public void check(Call call) {
        call.noBody();
      }
    }

    /** A body that is not read. */
    record Ignored() implements Body {}

    /** A body the handler reads and drops. */
    record Discarded() implements Body {}

    /** A body the handler reads in a shape of its own. */
    record Unchecked() implements Body {}

    /** A JSON body of {@code type}, read strictly by the handler. */
    record Json(Class<?> type) implements Body {}
  }

  /**
   * The query parameters a route allows; any other is refused with {@code UNKNOWN_FIELD}, naming
   * those allowed. {@link #UNCHECKED} leaves them to the handler (the SQS endpoint's query
   * protocol).
   */
  public record Query(List<String> allowed, boolean checked) {

    /** No query parameter is allowed. */
    public static final Query NONE = new Query(List.of(), true);

    /** The handler reads the query as it likes. */
    public static final Query UNCHECKED = new Query(List.of(), false);

    public Query {
      allowed = List.copyOf(allowed);
    }

    public static Query of(String... allowed) {
      return allowed.length == 0 ? NONE : new Query(List.of(allowed), true);
    }

    void check(Call call) {
      if (checked) {
        call.queryOnly(allowed.toArray(String[]::new));
      }
    }
  }

  /**
   * A route being declared: engine-bound, with no query parameter, until told otherwise; its guard
   * and its body must be said.
   */
  public static final class Builder {
    private final String method;
    private final String pattern;
    private final String operation;
    private boolean engineBound = true;
    private @Nullable Guard guard;
    private @Nullable Body body;
    private Query query = Query.NONE;

    private Builder(String method, String pattern, String operation) {
      this.method = method;
      this.pattern = pattern;
      this.operation = operation;
    }

    /** What the route needs of the caller. */
    public Builder guard(Guard guard) {
      this.guard = guard;
      return this;
    }

    /** The query parameters the route allows (none unless said). */
    public Builder query(String... allowed) {
      this.query = Query.of(allowed);
      return this;
    }

    /** The route reads its query itself. */
    public Builder anyQuery() {
      this.query = Query.UNCHECKED;
      return this;
    }

    /** The route takes no body. */
    public Builder noBody() {
      this.body = Body.NONE;
      return this;
    }

    /** The route takes a JSON body, which its handler reads as {@code type}. */
    public Builder body(Class<?> type) {
      this.body = Body.json(type);
      return this;
    }

    /** The route does not read a body. */
    public Builder ignoresBody() {
      this.body = Body.IGNORED;
      return this;
    }

    /** The route's handler reads a body, if sent, and drops it. */
    public Builder discardsBody() {
      this.body = Body.DISCARDED;
      return this;
    }

    /** The route reads its body itself, in a shape of its own. */
    public Builder anyBody() {
      this.body = Body.UNCHECKED;
      return this;
    }

    /** The route serves without the engine (and is not held back while it opens or closes). */
    public Builder withoutEngine() {
      this.engineBound = false;
      return this;
    }

    /** The route, served by {@code endpoint}. */
    public Route to(Endpoint endpoint) {
      Objects.requireNonNull(guard, () -> method + " " + pattern + " declares no guard");
      Body b = Objects.requireNonNull(body, () -> method + " " + pattern + " declares no body");
      return new Route(method, pattern, operation, engineBound, endpoint, guard, b, query);
    }
  }
}
