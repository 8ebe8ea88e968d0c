package io.switchboard.server.security;

import io.helidon.webserver.http.ServerRequest;
import io.switchboard.server.auth.Access;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.security.sigv4.SigV4Error;
import io.switchboard.server.security.sigv4.SigV4Verifier;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.Clock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who a native or routing request comes from, and whether it may do what its route does ({@code
 * docs/security.md}). With no access key configured (keyless mode) everything passes, as before.
 * Otherwise every route but the open ones ({@code /health}, {@code /openapi.yaml}, {@code /metrics}
 * with {@code metrics-public}) and the SQS endpoint (which checks in SQS terms) needs:
 *
 * <ul>
 *   <li>credentials: an AWS SigV4 signature (header or presigned, service {@code switchboard} or
 *       {@code sqs}, any region), HTTP Basic {@code ID:SECRET}, which is refused over a connection
 *       that is neither TLS nor from a loopback address, or, with mutual TLS, a verified client
 *       certificate whose CN is a key id; else 401 {@code UNAUTHENTICATED} (or {@code
 *       INSECURE_CREDENTIALS}) with {@code WWW-Authenticate};
 *   <li>a grant of the route's action on its resource ({@link Guard}); else 403 {@code FORBIDDEN}
 *       naming the action and the resource.
 * </ul>
 *
 * Every refusal is one audit line ({@link Audit}), with the key id, never the secret.
 */
public final class Authentication {

  /** The challenges of a 401: both schemes the native API takes. */
  static final String CHALLENGE = "Basic realm=\"switchboard\", AWS4-HMAC-SHA256";

  private static final String SIGV4 = "AWS4-HMAC-SHA256";

  private final KeyRing keys;
  private final SigV4Verifier sigv4;
  private final ForwardedCalls forwarded;

  public Authentication(KeyRing keys, Clock clock) {
    this(keys, clock, new ForwardedCalls(clock));
  }

  /**
   * @param forwarded checks the server-to-server credential of a routing call another server of the
   *     cluster forwarded ({@link ForwardedCalls})
   */
  public Authentication(KeyRing keys, Clock clock, ForwardedCalls forwarded) {
    this.keys = keys;
    this.sigv4 = new SigV4Verifier(keys, Set.of("switchboard", "sqs"), clock);
    this.forwarded = forwarded;
  }

  /**
   * Admits {@code call} or throws the 401 or 403 that refuses it; an admitted call knows its
   * principal ({@link Call#principal()}).
   */
  public void check(Call call) {
    if (keys.keyless() || call.route().isEmpty()) {
      return; // keyless mode; a request no route serves is answered 404 or 405
    }
    Guard guard = call.route().get().guard();
    if (guard instanceof Guard.Open || guard instanceof Guard.Self) {
      return;
    }
    // a forwarded call is judged by its server-to-server credential; otherwise a console
    // session's key, when the request came with its cookie (Console#sessions), or the request's own
    Principal principal =
        ForwardedCalls.claimed(call)
            ? forwarded(call)
            : call.principal().orElseGet(() -> authenticate(call));
    call.principal(principal);
    Optional<Access> access =
        guard == null ? Optional.of(Access.any(Action.ADMIN)) : guard.access(call);
    if (!access.map(principal::may).orElse(true)) {
      Access needed = access.get();
      String message = "access key " + principal.describe() + " lacks " + needed.describe();
      Audit.refused(principal.keyId(), needed, 403, call.requestId(), message);
      throw new HttpError(
          403,
          "FORBIDDEN",
          (needed.action() == Action.ROUTING_AGENT ? refusedAsAgent(principal, needed) : message)
              + " ("
              + needed.action().wireName()
              + " is needed; docs/security.md)");
    }
  }

  /**
   * The refusal of {@code routing:agent}, which never names the agent it was needed as: that may be
   * the owner of the contact or reservation the path names, which the caller must not learn, and
   * the text is the same whether that contact or reservation is another agent's, waiting, or does
   * not exist (the audit line names the agent).
   */
  private static String refusedAsAgent(Principal principal, Access needed) {
    return "access key "
        + principal.describe()
        + " lacks "
        + new Access(needed.action(), needed.resource(), Optional.empty()).describe()
        + " for what the path names: "
        + principal
            .agent()
            .map(a -> "it acts only as agent '" + a + "', on its own offers and contacts")
            .orElse("it acts as no agent");
  }

  /**
   * The principal of a call another server of the cluster admitted and forwarded: the key it names,
   * once the server-to-server HMAC is checked, looked up here (a key revoked is refused here too).
   */
  private Principal forwarded(Call call) {
    Optional<String> keyId = forwarded.verify(call);
    if (keyId.isEmpty()) {
      throw unauthenticated(
          call,
          Audit.ANONYMOUS,
          "the call was forwarded by a server that checked no credentials (it has no access"
              + " keys): give every server of the cluster the same keys (docs/security.md)");
    }
    return keys.find(keyId.get())
        .orElseThrow(
            () ->
                unauthenticated(
                    call,
                    keyId.get(),
                    "the forwarding server admitted the call as access key "
                        + keyId.get()
                        + ", which this server does not have: give every server of the cluster"
                        + " the same configured keys (docs/security.md)"));
  }

  private Principal authenticate(Call call) {
    Optional<String> authorization = call.header("Authorization");
    if (authorization.isPresent()
        && authorization.get().regionMatches(true, 0, "Basic ", 0, "Basic ".length())) {
      return basic(call, authorization.get().substring("Basic ".length()).trim());
    }
    // the query is read only without an Authorization header: a signed header is the usual case
    if (authorization.isEmpty() && !call.request().query().contains("X-Amz-Signature")) {
      Optional<String> subject = call.clientCertificateSubject();
      if (subject.isPresent()) {
        return certificate(call, subject.get());
      }
      throw unauthenticated(
          call,
          Audit.ANONYMOUS,
          "credentials are required: HTTP Basic ID:SECRET or an AWS SigV4 signature"
              + " (docs/security.md)");
    }
    if (authorization.isPresent() && !authorization.get().startsWith(SIGV4 + " ")) {
      throw unauthenticated(
          call,
          Audit.ANONYMOUS,
          "unsupported Authorization scheme; use Basic ID:SECRET or " + SIGV4);
    }
    SqsHttpRequest request = SignedCalls.httpRequest(call);
    try {
      return sigv4.verify(request).orElseThrow(); // keys is not empty: a key or an error
    } catch (SigV4Error e) {
      throw unauthenticated(
          call,
          SigV4Verifier.claimedKeyId(request).orElse(Audit.ANONYMOUS),
          e.code() + ": " + e.getMessage());
    }
  }

  /**
   * The principal a verified client certificate names (mutual TLS, {@code tls-client-ca}): the
   * access key whose id is the subject's common name ({@code CN=AKAGENT7,O=Example} is key {@code
   * AKAGENT7}); its grants apply, its secret is not needed.
   */
  private Principal certificate(Call call, String subject) {
    Optional<String> cn = commonName(subject);
    if (cn.isEmpty()) {
      throw unauthenticated(
          call,
          Audit.ANONYMOUS,
          "the client certificate's subject '" + subject + "' has no CN naming an access key");
    }
    return keys.find(cn.get())
        .orElseThrow(
            () ->
                unauthenticated(
                    call,
                    cn.get(),
                    "the client certificate's CN '"
                        + cn.get()
                        + "' names no access key of this server (docs/security.md)"));
  }

  /** The CN of an RFC 2253 subject, if it has one. */
  public static Optional<String> commonName(String subject) {
    try {
      for (javax.naming.ldap.Rdn rdn : new javax.naming.ldap.LdapName(subject).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return Optional.of(rdn.getValue().toString());
        }
      }
    } catch (javax.naming.InvalidNameException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private Principal basic(Call call, String encoded) {
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw unauthenticated(call, Audit.ANONYMOUS, "Basic credentials must be base64 of ID:SECRET");
    }
    int colon = decoded.indexOf(':');
    if (colon <= 0) {
      throw unauthenticated(call, Audit.ANONYMOUS, "Basic credentials must be base64 of ID:SECRET");
    }
    String id = decoded.substring(0, colon);
    ServerRequest req = call.request();
    if (!clearCredentialsAllowed(req.isSecure(), req.remotePeer().address())) {
      String message =
          "Basic credentials are refused over plain HTTP from a non-loopback address: they would"
              + " travel in clear; use TLS or sign with SigV4";
      Audit.refused(id, null, 401, call.requestId(), message);
      throw new HttpError(
          401, "INSECURE_CREDENTIALS", message, Map.of("WWW-Authenticate", CHALLENGE));
    }
    Optional<Principal> principal = keys.find(id);
    if (principal.isEmpty() || !principal.get().secretMatches(decoded.substring(colon + 1))) {
      throw unauthenticated(
          call, id, "unknown access key id or wrong secret for access key " + Audit.clip(id));
    }
    return principal.get();
  }

  /**
   * The access key id {@code call}'s credentials name, whether or not they are valid (HTTP Basic's
   * id, a SigV4 {@code Credential}'s, header or presigned), or {@link Audit#ANONYMOUS}: for the
   * audit line of a request refused before authentication (a cross-origin request). Reads no body.
   */
  static String claimedKeyId(Call call) {
    Optional<String> authorization = call.header("Authorization");
    if (authorization.isPresent()
        && authorization.get().regionMatches(true, 0, "Basic ", 0, "Basic ".length())) {
      try {
        String decoded =
            new String(
                Base64.getDecoder().decode(authorization.get().substring("Basic ".length()).trim()),
                StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        return colon > 0 ? decoded.substring(0, colon) : Audit.ANONYMOUS;
      } catch (IllegalArgumentException e) {
        return Audit.ANONYMOUS;
      }
    }
    var request = call.request();
    SqsHttpRequest head =
        new SqsHttpRequest(
            request.prologue().method().text(),
            request.path().rawPath(),
            request.query().rawValue(),
            new SignedCalls.HeaderView(request.headers()),
            new byte[0]);
    return SigV4Verifier.claimedKeyId(head).orElse(Audit.ANONYMOUS);
  }

  /**
   * True when credentials in clear (Basic) may be taken: over TLS, or from a loopback address (the
   * client is on this machine: nothing travels over a network).
   */
  public static boolean clearCredentialsAllowed(boolean secure, SocketAddress peer) {
    if (secure) {
      return true;
    }
    if (peer instanceof InetSocketAddress inet) {
      InetAddress address = inet.getAddress();
      return address != null && address.isLoopbackAddress();
    }
    return false;
  }

  private static HttpError unauthenticated(Call call, String keyId, String message) {
    Audit.refused(keyId, null, 401, call.requestId(), message);
    return new HttpError(401, "UNAUTHENTICATED", message, Map.of("WWW-Authenticate", CHALLENGE));
  }
}
