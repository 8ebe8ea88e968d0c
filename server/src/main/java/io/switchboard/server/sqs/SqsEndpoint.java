package io.switchboard.server.sqs;

import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.MoveRights;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.SqsAccount;
import io.switchboard.server.security.sigv4.SigV4Error;
import io.switchboard.server.security.sigv4.SigV4Verifier;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.Clock;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQS endpoint: checks the signature ({@link SigV4Verifier}, when access keys are configured)
 * and that the signing key may do what the request asks on the queue it names ({@link
 * SqsAction#access}, refused with {@code AccessDenied}), and serves the request in the protocol it
 * speaks. A request with {@code X-Amz-Target} is the AWS JSON 1.0 protocol ({@link SqsApi}); any
 * other is the query protocol: {@code Action=...} and the action's members as form parameters, in a
 * {@code application/x-www-form-urlencoded} body, the query string, or both, answered in XML. A
 * query request posted to a queue URL's path ({@code /<account>/<queue>} or {@code
 * /queue/<region>/<account>/<queue>}, as SDK v1 and the AWS CLI do) names that queue without a
 * {@code QueueUrl}.
 *
 * <p>A server makes one endpoint when its engine opens and serves every SQS request with it: the
 * endpoint is thread-safe, and holds what outlives a request, the SQS state ({@link SqsState}), the
 * signature verifier with its cache of signing keys ({@link SigV4Verifier}) and the queue policies
 * it enforces, each read at most once a second ({@link QueuePolicies}).
 *
 * <p>A request is in the region it is signed for (whether or not signatures are verified); an
 * unsigned one in the region its queue path or its host ({@code sqs.eu-west-1.localhost}) names, or
 * else the default region ({@link SqsAccount}). Queues of one region are not seen from another
 * ({@link QueueAddress}).
 */
public final class SqsEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(SqsEndpoint.class);
  private static final String VERSION = "2012-11-05";

  /**
   * The selector extension as a request header, for clients that can add headers (SDK v2's override
   * configuration, a boto3 {@code before-send} hook); the value is the selector as is.
   */
  public static final String SELECTOR_HEADER = "x-switchboard-selector";

  /** The X-Ray trace header a send stores as {@code AWSTraceHeader} unless the body names one. */
  static final String TRACE_HEADER = "x-amzn-trace-id";

  /** The header every answer carries its request id in (a UUID per request). */
  public static final String REQUEST_ID_HEADER = "x-amzn-RequestId";

  private final QueueEngine engine;
  private final SigV4Verifier verifier;
  private final SqsAccount account;
  private final SqsState state;
  private final QueuePolicies policies;
  private final Clock clock;

  /** The actions a key granted {@code admin} may do whatever a queue's policy denies. */
  private static final Set<String> MANAGE_POLICY =
      Set.of("GetQueueAttributes", "SetQueueAttributes", "AddPermission", "RemovePermission");

  /** The actions that may change, create or delete a queue's policy ({@link QueuePolicies}). */
  private static final Set<String> CHANGE_POLICY =
      Set.of(
          "CreateQueue", "SetQueueAttributes", "AddPermission", "RemovePermission", "DeleteQueue");

  private SqsEndpoint(QueueEngine engine, KeyRing keys, SqsAccount account, Clock clock) {
    this.engine = engine;
    this.verifier = new SigV4Verifier(keys, clock);
    this.account = account;
    this.state = new SqsState(engine, keys);
    this.policies = new QueuePolicies(engine, clock);
    this.clock = clock;
  }

  /**
   * Where a request came from, for the conditions of queue policies ({@link PolicyCondition}): the
   * client's address (empty when not known) and whether the connection is TLS.
   */
  public record Origin(Optional<InetAddress> source, boolean secure) {

    /** A request whose origin the caller does not know: no address, not over TLS. */
    public static final Origin UNKNOWN = new Origin(Optional.empty(), false);
  }

  /**
   * An endpoint over {@code engine}, as {@code account}, whose requests are signed by {@code keys}
   * (none: nothing is checked); {@code clock} judges the age of signatures and of the queue
   * policies it keeps ({@link QueuePolicies}).
   */
  public static SqsEndpoint create(
      QueueEngine engine, KeyRing keys, SqsAccount account, Clock clock) {
    return new SqsEndpoint(engine, keys, account, clock);
  }

  /**
   * True if {@code rawPath} is a queue URL's path ({@code /<12-digit account>/<name>} or {@code
   * /queue/<region>/<12-digit account>/<name>}).
   */
  public static boolean isQueuePath(String rawPath) {
    return QueueAddress.queuePath(rawPath).matches();
  }

  /**
   * Serves one request.
   *
   * @param baseUrl scheme, host and port the caller reached us at, e.g. {@code
   *     http://localhost:8080}
   * @param requestId the request's id (a UUID), which the answer carries and any log line names
   */
  public SqsApi.Answer handle(SqsHttpRequest request, String baseUrl, String requestId) {
    return handle(request, baseUrl, requestId, action(request, baseUrl));
  }

  /**
   * Serves one request whose action the caller read already ({@link #action}), so that access
   * control does not read it again; {@code action} must have been read from this request at this
   * {@code baseUrl} (its protocol and queue address are used as read: {@link SqsAction.Read}).
   */
  public SqsApi.Answer handle(
      SqsHttpRequest request, String baseUrl, String requestId, SqsAction action) {
    return handle(
        request,
        baseUrl,
        requestId,
        action,
        admit(request, baseUrl, requestId, action, Origin.UNKNOWN));
  }

  /**
   * Serves one request that {@link #admit} judged already: its refusal if it was refused, else the
   * action as the admitted principal.
   */
  public SqsApi.Answer handle(
      SqsHttpRequest request,
      String baseUrl,
      String requestId,
      SqsAction action,
      Admission admission) {
    return withRequestId(
        admission.refusal != null
            ? admission.refusal
            : serve(request, baseUrl, requestId, action, admission),
        requestId);
  }

  /**
   * What the access check made of a request ({@link #admit}): refused (with the answer that says
   * so), or admitted as a principal (none in keyless mode) in a region.
   */
  public static final class Admission {
    private final Optional<Principal> principal;
    private final @Nullable QueueAddress address;
    private final SqsApi.@Nullable Answer refusal;

    private Admission(
        Optional<Principal> principal,
        @Nullable QueueAddress address,
        SqsApi.@Nullable Answer refusal) {
      this.principal = principal;
      this.address = address;
      this.refusal = refusal;
    }

    /** True if the request is refused: bad or missing signature, or an action it may not do. */
    public boolean refused() {
      return refusal != null;
    }
  }

  /**
   * Checks {@code request}'s signature and that its key may do {@code action} on the queue it
   * names, before anything is spent on it: a server that limits long polls judges a {@code
   * ReceiveMessage} here first, so an unauthenticated caller is refused as such and neither learns
   * of nor takes a long-poll place. Every refusal is one audit line.
   */
  public Admission admit(
      SqsHttpRequest request, String baseUrl, String requestId, SqsAction action, Origin origin) {
    boolean json = action.read().json;
    try {
      Optional<Principal> principal;
      try {
        principal = readSignature(() -> verifier.verify(request));
      } catch (SqsError e) {
        Audit.refused(
            readSignature(() -> SigV4Verifier.claimedKeyId(request)).orElse(Audit.ANONYMOUS),
            action.access().orElse(null),
            e.status(),
            requestId,
            e.code() + ": " + e.getMessage());
        throw e;
      }
      // the address the read-ahead made of this request, else made here (and refused if it fails)
      QueueAddress read = action.read().address;
      QueueAddress address =
          read != null ? read : new QueueAddress(baseUrl, region(request, baseUrl), account);
      authorize(
          principal, action, address, requestId, () -> facts(request, origin, principal, address));
      return new Admission(principal, address, null);
    } catch (SqsError e) {
      return new Admission(
          Optional.empty(), null, json ? SqsApi.error(e) : queryError(request, e, requestId));
    }
  }

  /**
   * {@code step}, with a request SigV4 refuses or cannot read answered as the SQS error of the same
   * code and status ({@link SqsError#of(SigV4Error)}).
   */
  private static <T> T readSignature(Supplier<T> step) {
    try {
      return step.get();
    } catch (SigV4Error e) {
      throw SqsError.of(e);
    }
  }

  /**
   * Refuses {@code request} with {@code RequestThrottled}, in its protocol's error shape, without
   * serving it: the server is over a limit ({@code max-long-polls}); SDKs retry with backoff.
   */
  public SqsApi.Answer throttled(SqsHttpRequest request, String message, String requestId) {
    SqsError e = SqsError.throttled(message);
    return withRequestId(
        json(request) ? SqsApi.error(e) : queryError(request, e, requestId), requestId);
  }

  /**
   * Every answer, both protocols, errors included, carries its request id in {@code
   * x-amzn-RequestId}, which SDKs report as the response metadata's request id; the XML body
   * carries it too ({@link QueryXml}).
   */
  private static SqsApi.Answer withRequestId(SqsApi.Answer answer, String requestId) {
    Map<String, String> had = answer.headers();
    if (requestId.equals(had.get(REQUEST_ID_HEADER))) {
      return answer; // made with it already (a JSON-protocol success)
    }
    Map<String, String> headers;
    if (had.size() == 1 && !had.containsKey(REQUEST_ID_HEADER)) {
      // every answer but a few carries one header, its Content-Type: no map copied twice for it
      Map.Entry<String, String> only = had.entrySet().iterator().next();
      headers = Map.of(only.getKey(), only.getValue(), REQUEST_ID_HEADER, requestId);
    } else {
      Map<String, String> all = new LinkedHashMap<>(had);
      all.put(REQUEST_ID_HEADER, requestId);
      headers = Map.copyOf(all);
    }
    return new SqsApi.Answer(answer.status(), headers, answer.body());
  }

  private SqsApi.Answer serve(
      SqsHttpRequest request,
      String baseUrl,
      String requestId,
      SqsAction action,
      Admission admission) {
    boolean json = action.read().json;
    QueueAddress address = Objects.requireNonNull(admission.address, "an admitted request has one");
    Optional<Principal> principal = admission.principal;
    // what would move messages into a second queue checks the key may send there (MoveRights)
    QueueEngine engine =
        principal.isPresent()
            ? MoveRights.forKey(
                this.engine,
                principal.get(),
                (needed, message) -> moveRefused(principal.get(), needed, message, requestId))
            : this.engine;
    SqsApi.Answer answer;
    try {
      answer =
          json
              ? SqsApi.handle(
                  engine,
                  request.header("x-amz-target"),
                  request.body(),
                  request.header(SELECTOR_HEADER),
                  request.header(TRACE_HEADER),
                  address,
                  action.read(),
                  state,
                  requestId)
              : query(engine, request, baseUrl, address, requestId);
    } finally {
      // served or refused, this server's next request reads the queue's policy afresh
      if (action.name().filter(CHANGE_POLICY::contains).isPresent()) {
        action.queue().ifPresent(policies::changed);
      }
    }
    auditPermissionChange(request, action, principal, answer, requestId);
    return answer;
  }

  /**
   * One audit line for a queue policy changed: an AddPermission or RemovePermission served, or a
   * CreateQueue or SetQueueAttributes served whose request names the {@code Policy} attribute.
   */
  private static void auditPermissionChange(
      SqsHttpRequest request,
      SqsAction action,
      Optional<Principal> principal,
      SqsApi.Answer answer,
      String requestId) {
    if (answer.status() != 200 || action.name().isEmpty()) {
      return;
    }
    String name = action.name().get();
    boolean change =
        switch (name) {
          case "AddPermission", "RemovePermission" -> true;
          case "CreateQueue", "SetQueueAttributes" -> namesPolicy(request);
          default -> false;
        };
    if (change) {
      Audit.permissionChanged(
          principal.map(Principal::keyId).orElse(Audit.ANONYMOUS),
          name,
          action.queue().orElse(""),
          requestId);
    }
  }

  /** Whether the request sets the {@code Policy} attribute (JSON member or query attribute). */
  public static boolean namesPolicy(SqsHttpRequest request) {
    String body = new String(request.body(), java.nio.charset.StandardCharsets.UTF_8);
    String text = body + "&" + request.rawQuery();
    return text.contains("\"Policy\"") || POLICY_ATTRIBUTE.matcher(text).find();
  }

  private static final java.util.regex.Pattern POLICY_ATTRIBUTE =
      java.util.regex.Pattern.compile("(^|&)Attribute\\.\\d+\\.Name=Policy(&|$)");

  /**
   * What {@code request} tells a policy's conditions: its origin, the time now, the caller's ARN
   * ({@code arn:aws:iam::<account>:user/<key name, else id>}; none in keyless mode), its user
   * agent.
   */
  /** Never read: a request to a queue without a policy evaluates no condition. */
  private static final PolicyCondition.Facts NO_POLICY_READS_THESE =
      new PolicyCondition.Facts(Map.of());

  private PolicyCondition.Facts facts(
      SqsHttpRequest request, Origin origin, Optional<Principal> principal, QueueAddress address) {
    return PolicyCondition.Facts.of(
        origin.source().map(InetAddress::getHostAddress),
        origin.secure(),
        Instant.ofEpochMilli(clock.millis()),
        principal.map(
            p ->
                "arn:aws:iam::"
                    + p.accountOr(address.accountId())
                    + ":user/"
                    + p.name().orElse(p.keyId())),
        principal.map(p -> p.accountOr(address.accountId())).orElse(address.accountId()),
        request.header("user-agent"));
  }

  /**
   * Refuses with {@code AccessDenied} (403) a request that the policy of the queue it names denies
   * ({@link QueuePolicy}), or whose key lacks the access its action needs on that queue ({@link
   * SqsAction#access}) and is not allowed it by the policy. {@code principal} is empty in keyless
   * mode: only a policy's {@code Deny} of {@code *} or the account applies. A key granted {@code
   * admin} on the queue (or, keyless, anyone) may always read and change the policy ({@link
   * #MANAGE_POLICY}), so that no policy locks the server's administrators out.
   */
  private void authorize(
      Optional<Principal> principal,
      SqsAction action,
      QueueAddress address,
      String requestId,
      Supplier<PolicyCondition.Facts> conditions) {
    Optional<Access> access = action.access();
    if (access.isEmpty()) {
      return; // an action not served is refused by the protocol with its own error
    }
    String name = action.name().orElseThrow();
    Optional<QueuePolicy> policy = action.queue().flatMap(q -> policies.policy(q, address));
    // what the request tells a policy's conditions, read only when the queue has a policy
    PolicyCondition.Facts facts = policy.isPresent() ? conditions.get() : NO_POLICY_READS_THESE;
    QueuePolicy.Decision decision =
        policy.map(p -> p.decide(principal, name, facts)).orElse(QueuePolicy.Decision.NONE);
    if (decision == QueuePolicy.Decision.DENY
        && !(MANAGE_POLICY.contains(name)
            && principal
                .map(
                    p -> p.may(new Access(Action.ADMIN, access.get().resource(), Optional.empty())))
                .orElse(true))) {
      String sid = policy.flatMap(p -> p.denyingSid(principal, name, facts)).orElse("");
      refuse(
          principal,
          access.get(),
          requestId,
          "Access to the resource is denied: the policy of queue '"
              + action.queue().orElseThrow()
              + "' denies "
              + principal.map(p -> "access key " + p.describe()).orElse("anonymous callers")
              + " sqs:"
              + name
              + (sid.isEmpty() ? "" : " (statement " + sid + ")")
              + ".");
    }
    if (principal.isEmpty()
        || principal.get().may(access.get())
        || decision == QueuePolicy.Decision.ALLOW) {
      return;
    }
    refuse(
        principal,
        access.get(),
        requestId,
        "Access to the resource is denied: access key "
            + principal.get().describe()
            + " lacks "
            + access.get().describe()
            + (action.queue().isPresent()
                ? ", and the queue's policy does not allow it sqs:" + name
                : "")
            + ".");
  }

  /**
   * A request refused because it would move messages into, or name, a queue its key may not send to
   * ({@link MoveRights}): one audit line, and {@code AccessDenied} as SQS answers a missing
   * permission.
   */
  private static SqsError moveRefused(
      Principal principal, Access needed, String message, String requestId) {
    Audit.refused(principal.keyId(), needed, 403, requestId, message);
    return SqsError.of(
        "AccessDenied", "AccessDenied", 403, "Access to the resource is denied: " + message);
  }

  private static void refuse(
      Optional<Principal> principal, Access access, String requestId, String message) {
    Audit.refused(
        principal.map(Principal::keyId).orElse(Audit.ANONYMOUS), access, 403, requestId, message);
    throw SqsError.of("AccessDenied", "AccessDenied", 403, message);
  }

  /**
   * What {@code request} asks for, read ahead of {@link #handle} for the server around the endpoint
   * (metrics, long polls); see {@link SqsAction}.
   */
  public SqsAction action(SqsHttpRequest request, String baseUrl) {
    QueueAddress address;
    try {
      address = new QueueAddress(baseUrl, region(request, baseUrl), account);
    } catch (SqsError e) {
      address = null; // handle() refuses it
    }
    return SqsAction.of(request, address, baseUrl);
  }

  /**
   * The region a request is in: the one it is signed for; unsigned, the one its queue path or its
   * host names, or else the default region.
   */
  private String region(SqsHttpRequest request, String baseUrl) {
    Optional<String> signed = readSignature(() -> SigV4Verifier.signedRegion(request));
    if (signed.isPresent()) {
      if (!SqsAccount.validRegion(signed.get())) {
        throw SqsError.auth(
            "SignatureDoesNotMatch",
            403,
            "Credential should be scoped to a valid region (lower-case letters, digits and single"
                + " dashes, at most "
                + SqsAccount.MAX_REGION_LENGTH
                + " characters, such as us-east-1), not '"
                + signed.get()
                + "'.");
      }
      return signed.get();
    }
    Matcher path = QueueAddress.queuePath(request.rawPath());
    if (path.matches() && path.group(1) != null && SqsAccount.validRegion(path.group(1))) {
      return path.group(1);
    }
    return QueueAddress.baseUrlRegion(baseUrl).orElse(account.defaultRegion());
  }

  /**
   * The JSON protocol: an {@code X-Amz-Target}, an {@code application/x-amz-json} body, or a body
   * that is a JSON object (a form never starts with a brace), so that a JSON client that forgot the
   * target hears {@code InvalidAction} in the shape it reads.
   */
  static boolean json(SqsHttpRequest request) {
    if (request.header("x-amz-target").isPresent()
        || request.header("content-type").orElse("").contains("amz-json")) {
      return true;
    }
    for (byte b : request.body()) {
      if (!Character.isWhitespace(b)) {
        return b == '{';
      }
    }
    return false;
  }

  /**
   * A query-protocol request's parameters: the query string's, then the form body's (the query
   * string's win).
   *
   * @throws SqsError {@code MalformedQueryString} if a parameter cannot be decoded
   */
  static Map<String, String> parameters(SqsHttpRequest request) {
    Map<String, String> parameters = new LinkedHashMap<>(QueryForm.parse(request.rawQuery()));
    if (request.body().length > 0) {
      QueryForm.parse(new String(request.body(), StandardCharsets.UTF_8))
          .forEach(parameters::putIfAbsent);
    }
    return parameters;
  }

  /** The query actions a queue URL's path does not take ({@code InvalidAction}, as SQS). */
  private static final Set<String> NOT_AT_A_QUEUE_URL = Set.of("ListQueues", "CreateQueue");

  private SqsApi.Answer query(
      QueueEngine engine,
      SqsHttpRequest request,
      String baseUrl,
      QueueAddress address,
      String requestId) {
    Map<String, String> parameters;
    try {
      parameters = parameters(request);
    } catch (SqsError e) {
      return queryError(request, e, requestId);
    }
    String action = parameters.get("Action");
    try {
      if (action == null || action.isEmpty()) {
        // as SQS: in XML whatever the Accept header asks for
        return xmlError(
            SqsError.of(
                "UnknownOperationException",
                "UnknownOperationException",
                404,
                "The request names no operation: send the parameter Action (the SQS action, such"
                    + " as SendMessage)."),
            requestId);
      }
      String version = parameters.get("Version");
      if (version != null && !version.equals(VERSION)) {
        throw SqsError.sender(
            "NoSuchVersion",
            "Version must be " + VERSION + " (the only SQS API version served), got " + version);
      }
      Matcher queuePath = QueueAddress.queuePath(request.rawPath());
      if (queuePath.matches() && NOT_AT_A_QUEUE_URL.contains(action)) {
        // as SQS: a queue URL takes the actions on that queue, not the service's
        throw SqsErrorText.INVALID_ACTION.error(action);
      }
      var tree = QueryForm.tree(action, parameters);
      if (!tree.has("QueueUrl") && queuePath.matches()) {
        tree.put("QueueUrl", baseUrl + request.rawPath());
      }
      SqsRequest parsed = SqsRequest.of(tree, address, state);
      Optional<String> selector = request.header(SELECTOR_HEADER);
      if (selector.isPresent() && SqsOperation.has(action, SqsOperation.Flag.LONG_POLL)) {
        parsed.addSelector(selector.get());
      }
      request.header(TRACE_HEADER).ifPresent(parsed::traceHeader);
      var result = SqsApi.run(engine, action, parsed);
      return acceptsJson(request)
          ? jsonAnswer(200, QueryXml.jsonResponse(action, result, requestId))
          : xml(200, QueryXml.response(action, result, requestId));
    } catch (SqsError e) {
      return queryError(request, e, requestId);
    } catch (QueueException e) {
      return queryError(request, SqsError.of(e), requestId);
    } catch (RuntimeException e) {
      LOG.atError()
          .addKeyValue("action", action)
          .addKeyValue("requestId", requestId)
          .setCause(e)
          .log("sqs query request failed, request id " + requestId);
      return queryError(request, SqsError.internal(SqsApi.internalMessage(requestId)), requestId);
    }
  }

  /**
   * Whether a query-protocol request asks for JSON ({@code Accept: application/json}), which SQS
   * answers with the query answer's tree as JSON ({@link QueryXml#jsonResponse}).
   */
  private static boolean acceptsJson(SqsHttpRequest request) {
    return request.header("accept").orElse("").contains("application/json");
  }

  /** A query-protocol error, in XML or, when the request accepts it, JSON. */
  private static SqsApi.Answer queryError(SqsHttpRequest request, SqsError e, String requestId) {
    return acceptsJson(request)
        ? jsonAnswer(e.status(), QueryXml.jsonError(e, requestId))
        : xmlError(e, requestId);
  }

  private static SqsApi.Answer jsonAnswer(int status, byte[] body) {
    return new SqsApi.Answer(status, Map.of("Content-Type", "application/json"), body);
  }

  /**
   * A refusal decided around the endpoint, in the SQS error shape of {@code request}'s protocol,
   * with the request id.
   *
   * @param code the SQS error code, such as {@code AccessDenied}
   */
  public static SqsApi.Answer refusal(
      SqsHttpRequest request, String code, int status, String message, String requestId) {
    SqsError e = SqsError.auth(code, status, message);
    return withRequestId(
        json(request) ? SqsApi.error(e) : queryError(request, e, requestId), requestId);
  }

  private static SqsApi.Answer xmlError(SqsError e, String requestId) {
    return xml(e.status(), QueryXml.error(e, requestId));
  }

  private static SqsApi.Answer xml(int status, String body) {
    return new SqsApi.Answer(
        status, Map.of("Content-Type", "text/xml"), body.getBytes(StandardCharsets.UTF_8));
  }
}
