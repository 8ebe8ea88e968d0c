package io.switchboard.dist;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The container image's health check: exits 0 when the server in the same container answers {@code
 * GET /health} with 200, else 1 (printing why). The image has no shell, curl or wget, and OCI
 * images carry no {@code HEALTHCHECK}: an orchestrator runs this command (the image's label {@code
 * io.switchboard.healthcheck}; docs/deploy.md, "Run the image").
 *
 * <p>The URL is the argument, else {@code http://127.0.0.1:$SWITCHBOARD_PORT/health} ({@code https}
 * when {@code SWITCHBOARD_TLS_CERT} is set: the certificate is not checked, since the check only
 * ever talks to its own container's loopback). JDK only, so that it starts fast.
 */
public final class HealthCheck {

  private HealthCheck() {}

  public static void main(String[] args) {
    URI url = args.length > 0 ? URI.create(args[0]) : defaultUrl(System.getenv());
    int code;
    try {
      code = status(url);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      System.err.println("unhealthy: " + url + ": " + e);
      System.exit(1);
      return;
    }
    if (code != 200) {
      System.err.println("unhealthy: " + url + " answered " + code);
      System.exit(1);
    }
  }

  /** Where the server of this container listens, from the same variables the server reads. */
  static URI defaultUrl(Map<String, String> env) {
    String port = env.getOrDefault("SWITCHBOARD_PORT", "8080").strip();
    String tls = env.getOrDefault("SWITCHBOARD_TLS_CERT", "");
    return URI.create(
        (tls.isBlank() ? "http" : "https")
            + "://127.0.0.1:"
            + (port.isEmpty() ? "8080" : port)
            + "/health");
  }

  static int status(URI url) throws IOException, GeneralSecurityException {
    HttpURLConnection c = (HttpURLConnection) url.toURL().openConnection();
    if (c instanceof HttpsURLConnection https) {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new TrustManager[] {new TrustAnything()}, null);
      https.setSSLSocketFactory(tls.getSocketFactory());
      https.setHostnameVerifier((host, session) -> true);
    }
    c.setConnectTimeout(2_000);
    c.setReadTimeout(5_000);
    try {
      int code = c.getResponseCode();
      InputStream body = code < 400 ? c.getInputStream() : c.getErrorStream();
      if (body != null) {
        body.close();
      }
      return code;
    } finally {
      c.disconnect();
    }
  }

  /** Loopback only (above): the server's own certificate need not chain to anything. */
  private static final class TrustAnything implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
