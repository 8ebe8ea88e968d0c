package io.switchboard.server.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.security.Authentication;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * Admits a gRPC call as the HTTP API admits a request (docs/security.md#grpc-credentials): with no
 * access key configured (keyless mode) every call passes; otherwise it needs the metadata {@code
 * authorization: Basic base64(ID:SECRET)}, taken over TLS or from a loopback address only, or, with
 * mutual TLS, a verified client certificate whose CN is a key id. Else the call is closed {@code
 * UNAUTHENTICATED} before its handler runs, with one audit line that names the key id and never the
 * secret. What an admitted call may do is checked per queue ({@link Caller#require}).
 */
final class Credentials implements ServerInterceptor {

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final KeyRing keys;

  Credentials(KeyRing keys) {
    this.keys = keys;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    String callId = UUID.randomUUID().toString();
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    SSLSession tls = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    Caller caller;
    try {
      caller = admit(headers, remote, tls, callId);
    } catch (Refused r) {
      Audit.refused(r.keyId, null, 401, callId, r.reason);
      Metadata trailers = new Metadata();
      trailers.put(Statuses.ERROR_CODE, r.code);
      call.close(Status.UNAUTHENTICATED.withDescription(r.code + ": " + r.reason), trailers);
      return new ServerCall.Listener<>() {};
    }
    Context context = Context.current().withValue(Caller.KEY, caller);
    return Contexts.interceptCall(context, call, headers, next);
  }

  private Caller admit(
      Metadata headers, @Nullable SocketAddress remote, @Nullable SSLSession tls, String callId) {
    if (keys.keyless()) {
      return new Caller(Optional.empty(), address(remote), callId);
    }
    String authorization = headers.get(AUTHORIZATION);
    if (authorization != null) {
      if (!authorization.regionMatches(true, 0, "Basic ", 0, "Basic ".length())) {
        throw new Refused(
            Audit.ANONYMOUS,
            "UNAUTHENTICATED",
            "unsupported authorization scheme; use Basic base64(ID:SECRET) (docs/security.md)");
      }
      Principal p = basic(authorization.substring("Basic ".length()).trim(), remote, tls);
      return new Caller(Optional.of(p), p.keyId(), callId);
    }
    Optional<String> subject = subject(tls);
    if (subject.isPresent()) {
      Principal p = certificate(subject.get());
      return new Caller(Optional.of(p), p.keyId(), callId);
    }
    throw new Refused(
        Audit.ANONYMOUS,
        "UNAUTHENTICATED",
        "credentials are required: metadata 'authorization: Basic base64(ID:SECRET)', or a client"
            + " certificate (mutual TLS) (docs/security.md)");
  }

  private Principal basic(
      String encoded, @Nullable SocketAddress remote, @Nullable SSLSession tls) {
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new Refused(
          Audit.ANONYMOUS, "UNAUTHENTICATED", "Basic credentials must be base64 of ID:SECRET");
    }
    int colon = decoded.indexOf(':');
    if (colon <= 0) {
      throw new Refused(
          Audit.ANONYMOUS, "UNAUTHENTICATED", "Basic credentials must be base64 of ID:SECRET");
    }
    String id = decoded.substring(0, colon);
    if (remote == null || !Authentication.clearCredentialsAllowed(tls != null, remote)) {
      throw new Refused(
          id,
          "INSECURE_CREDENTIALS",
          "Basic credentials are refused over plain gRPC from a non-loopback address: they would"
              + " travel in clear; use TLS");
    }
    Optional<Principal> principal = keys.find(id);
    if (principal.isEmpty() || !principal.get().secretMatches(decoded.substring(colon + 1))) {
      throw new Refused(
          id,
          "UNAUTHENTICATED",
          "unknown access key id or wrong secret for access key " + Audit.clip(id));
    }
    return principal.get();
  }

  private Principal certificate(String subject) {
    Optional<String> cn = Authentication.commonName(subject);
    if (cn.isEmpty()) {
      throw new Refused(
          Audit.ANONYMOUS,
          "UNAUTHENTICATED",
          "the client certificate's subject '" + subject + "' has no CN naming an access key");
    }
    return keys.find(cn.get())
        .orElseThrow(
            () ->
                new Refused(
                    cn.get(),
                    "UNAUTHENTICATED",
                    "the client certificate's CN '"
                        + cn.get()
                        + "' names no access key of this server (docs/security.md)"));
  }

  private static Optional<String> subject(@Nullable SSLSession tls) {
    if (tls == null) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = tls.getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate x509) {
        return Optional.of(x509.getSubjectX500Principal().getName());
      }
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /** The client's host address, what keyless mode counts streams under. */
  private static String address(@Nullable SocketAddress remote) {
    if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress().getHostAddress();
    }
    return String.valueOf(remote);
  }

  /** A call refused before its handler: the key id it named, a stable code, and why. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String keyId;
    final String code;
    final String reason;

    Refused(String keyId, String code, String reason) {
      super(reason, null, false, false);
      this.keyId = keyId;
      this.code = code;
      this.reason = reason;
    }
  }
}
