package io.switchboard.server.sqs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test CA made inside a test with Bouncy Castle: it issues server certificates (for {@code
 * localhost} and {@code 127.0.0.1}) and client certificates, writes them as PEM files, and builds
 * the {@link SSLContext} a client trusts it with (and presents a client certificate with).
 */
public final class TestPki {

  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  /** A key pair and its certificate, issued by {@code issuer} (itself for a CA). */
  public record Issued(KeyPair keys, X509Certificate cert) {
    public PrivateKey key() {
      return keys.getPrivate();
    }
  }

  private TestPki() {}

  /** A self-signed CA. */
  public static Issued ca(String cn) {
    KeyPair keys = rsa();
    return new Issued(keys, sign(new X500Name("CN=" + cn), keys, keys, "CN=" + cn, Use.CA));
  }

  /** A server certificate for {@code localhost} and {@code 127.0.0.1}. */
  public static Issued server(Issued ca, String cn) {
    KeyPair keys = rsa();
    return new Issued(keys, sign(issuer(ca), ca.keys(), keys, "CN=" + cn, Use.SERVER));
  }

  /** A client certificate with subject {@code subject}, such as {@code CN=agent-7,O=Example}. */
  public static Issued client(Issued ca, String subject) {
    KeyPair keys = rsa();
    return new Issued(keys, sign(issuer(ca), ca.keys(), keys, subject, Use.CLIENT));
  }

  private enum Use {
    CA,
    SERVER,
    CLIENT
  }

  private static X500Name issuer(Issued ca) {
    return X500Name.getInstance(ca.cert().getSubjectX500Principal().getEncoded());
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509Certificate sign(
      X500Name issuer, KeyPair issuerKeys, KeyPair subjectKeys, String subject, Use use) {
    Instant now = Instant.now();
    try {
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              issuer,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(Duration.ofDays(2))),
              // as RFC 2253 reads it, so the certificate's subject prints as written
              X500Name.getInstance(new X500Principal(subject).getEncoded()),
              subjectKeys.getPublic());
      switch (use) {
        case CA -> {
          b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
          b.addExtension(
              Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        }
        case SERVER -> {
          b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
          b.addExtension(
              Extension.subjectAlternativeName,
              false,
              new GeneralNames(
                  new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                  }));
          b.addExtension(
              Extension.extendedKeyUsage,
              false,
              new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        }
        case CLIENT -> {
          b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
          b.addExtension(
              Extension.extendedKeyUsage,
              false,
              new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
        }
      }
      var signer = new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- PEM

  public static String pem(X509Certificate... chain) {
    StringBuilder b = new StringBuilder();
    for (X509Certificate c : chain) {
      try {
        b.append(pem("CERTIFICATE", c.getEncoded()));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
    return b.toString();
  }

  /** The key as PKCS#8 ({@code BEGIN PRIVATE KEY}). */
  public static String pkcs8(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** An RSA key as PKCS#1 ({@code BEGIN RSA PRIVATE KEY}), as older tools write it. */
  public static String pkcs1(PrivateKey key) {
    try {
      byte[] rsa =
          PrivateKeyInfo.getInstance(key.getEncoded())
              .parsePrivateKey()
              .toASN1Primitive()
              .getEncoded();
      return pem("RSA PRIVATE KEY", rsa);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  public static Path write(Path file, String text) {
    try {
      return Files.writeString(file, text, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- client side

  /** Trusts {@code cas}, and presents {@code client} when it is not null. */
  public static SSLContext context(Issued client, X509Certificate... cas) {
    try {
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(
          client == null ? null : keyManagers(client).getKeyManagers(),
          trustManagers(cas).getTrustManagers(),
          null);
      return ssl;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  public static TrustManagerFactory trustManagers(X509Certificate... cas) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      for (int i = 0; i < cas.length; i++) {
        store.setCertificateEntry("ca" + i, cas[i]);
      }
      TrustManagerFactory f =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init(store);
      return f;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public static KeyManagerFactory keyManagers(Issued client) {
    try {
      char[] password = "test".toCharArray();
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("client", client.key(), password, new X509Certificate[] {client.cert()});
      KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      f.init(store, password);
      return f;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
