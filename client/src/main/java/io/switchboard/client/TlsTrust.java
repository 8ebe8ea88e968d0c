package io.switchboard.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** TLS trust for a client: the certificates of a private CA, from a PEM file. */
public final class TlsTrust {

  private TlsTrust() {}

  /**
   * An {@link SSLContext} that trusts the certificates in {@code pem} (one or more {@code BEGIN
   * CERTIFICATE} blocks: a private CA, or a server's self-signed certificate) and nothing else, as
   * {@code curl --cacert} does.
   *
   * @throws IllegalArgumentException when the file is missing or holds no certificate
   * @throws UncheckedIOException when it cannot be read
   */
  public static SSLContext trusting(Path pem) {
    if (!Files.isRegularFile(pem)) {
      throw new IllegalArgumentException("CA certificate file " + pem + " does not exist");
    }
    Collection<? extends Certificate> certificates;
    try (InputStream in = Files.newInputStream(pem)) {
      certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CA certificate file " + pem + ": " + e, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "CA certificate file " + pem + " is not PEM X.509 certificates: " + e.getMessage(), e);
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(
          "CA certificate file " + pem + " holds no certificate (expected PEM BEGIN CERTIFICATE)");
    }
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : certificates) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a TLS context from " + pem + ": " + e, e);
    }
  }
}
