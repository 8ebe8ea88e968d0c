package io.switchboard.server.security;

import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.time.Scheduler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener's TLS from PEM files ({@code tls-cert}, {@code tls-key}, optionally {@code
 * tls-client-ca} for mutual TLS), read with Helidon's PEM support, and reloaded when the files
 * change: every {@code tls-reload-check} the scheduler asks whether a file's modification time or
 * size changed, and if so the new files are read and handed to the listener ({@code
 * WebServer.reloadTls}), which uses them for new connections. Files that cannot be read, or a key
 * that does not match the certificate (one file replaced, the other not yet), are logged and the
 * old ones kept; the next check tries again.
 */
public final class TlsFiles implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TlsFiles.class);

  private final Path cert;
  private final Path key;
  private final Optional<Path> clientCa;
  private @Nullable List<Stamp> loaded;
  private Scheduler.@Nullable Repeating watch;

  private TlsFiles(Path cert, Path key, Optional<Path> clientCa) {
    this.cert = cert;
    this.key = key;
    this.clientCa = clientCa;
  }

  /**
   * The TLS files the configuration names, or none for plain HTTP.
   *
   * @throws StartupException when only one of {@code tls-cert} and {@code tls-key} is set, or
   *     {@code tls-client-ca} without them
   */
  public static Optional<TlsFiles> of(ServerConfig config) {
    Optional<Path> cert = config.find(Settings.TLS_CERT);
    Optional<Path> key = config.find(Settings.TLS_KEY);
    Optional<Path> ca = config.find(Settings.TLS_CLIENT_CA);
    if (cert.isEmpty() && key.isEmpty()) {
      if (ca.isPresent()) {
        throw new StartupException(
            "tls-client-ca needs tls-cert and tls-key: client certificates are asked for over TLS"
                + " only");
      }
      return Optional.empty();
    }
    if (cert.isEmpty() || key.isEmpty()) {
      throw new StartupException(
          "tls-cert and tls-key go together: got only "
              + (cert.isPresent() ? "tls-cert " + cert.get() : "tls-key " + key.get()));
    }
    return Optional.of(new TlsFiles(cert.get(), key.get(), ca));
  }

  /** Whether clients must present a certificate. */
  public boolean mutual() {
    return clientCa.isPresent();
  }

  /**
   * Reads the files into a listener's TLS.
   *
   * @throws StartupException naming the file and what is wrong with it
   */
  public synchronized Tls load() {
    List<Stamp> stamps = stamps();
    Tls tls = read();
    loaded = stamps;
    return tls;
  }

  /**
   * Checks the files every {@code interval} on {@code scheduler}, and hands changed ones to {@code
   * reload}.
   */
  public synchronized void watch(Scheduler scheduler, Duration interval, Consumer<Tls> reload) {
    Objects.requireNonNull(reload, "reload");
    watch = scheduler.every("switchboard-tls-reload", interval, () -> check(reload));
  }

  /** One check: reloads if any file changed since the last load that succeeded. */
  synchronized void check(Consumer<Tls> reload) {
    List<Stamp> now;
    try {
      now = stamps();
    } catch (StartupException e) {
      LOG.atWarn().addKeyValue("problem", e.getMessage()).log("TLS files not reloaded");
      return;
    }
    if (now.equals(loaded)) {
      return;
    }
    Tls tls;
    try {
      tls = read();
    } catch (StartupException e) {
      // perhaps half-way through a rotation: the next check tries again
      LOG.atWarn().addKeyValue("problem", e.getMessage()).log("TLS files not reloaded");
      return;
    }
    reload.accept(tls);
    loaded = now;
    LOG.atInfo().addKeyValue("cert", cert).log("TLS files reloaded");
  }

  @Override
  public synchronized void close() {
    if (watch != null) {
      watch.close();
    }
  }

  private record Stamp(Path file, long modified, long size) {}

  private List<Stamp> stamps() {
    List<Path> files = new ArrayList<>(List.of(cert, key));
    clientCa.ifPresent(files::add);
    List<Stamp> out = new ArrayList<>();
    for (Path f : files) {
      try {
        out.add(new Stamp(f, Files.getLastModifiedTime(f).toMillis(), Files.size(f)));
      } catch (IOException e) {
        throw new StartupException("cannot read TLS file " + f + ": " + e, e);
      }
    }
    return out;
  }

  private Tls read() {
    Keys keys;
    try {
      keys =
          Keys.builder()
              .pem(pem -> pem.key(resource("tls-key", key)).certChain(resource("tls-cert", cert)))
              .build();
    } catch (StartupException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StartupException(
          "cannot read tls-cert "
              + cert
              + " and tls-key "
              + key
              + " (PEM: a certificate chain, and a PKCS#8 or PKCS#1 RSA key without passphrase): "
              + e.getMessage(),
          e);
    }
    PrivateKey privateKey =
        keys.privateKey()
            .orElseThrow(() -> new StartupException("tls-key " + key + " holds no private key"));
    List<X509Certificate> chain = keys.certChain();
    if (chain.isEmpty()) {
      throw new StartupException("tls-cert " + cert + " holds no certificate");
    }
    if (!matches(privateKey, chain.get(0).getPublicKey())) {
      throw new StartupException(
          "tls-key " + key + " is not the key of the first certificate in tls-cert " + cert);
    }
    var tls =
        Tls.builder()
            .privateKey(privateKey)
            .privateKeyCertChain(chain)
            .endpointIdentificationAlgorithm(Tls.ENDPOINT_IDENTIFICATION_NONE);
    if (clientCa.isPresent()) {
      List<X509Certificate> cas;
      try {
        cas =
            Keys.builder()
                .pem(pem -> pem.certificates(resource("tls-client-ca", clientCa.get())))
                .build()
                .certs();
      } catch (StartupException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new StartupException(
            "cannot read tls-client-ca "
                + clientCa.get()
                + " (PEM certificates): "
                + e.getMessage(),
            e);
      }
      if (cas.isEmpty()) {
        throw new StartupException("tls-client-ca " + clientCa.get() + " holds no certificate");
      }
      tls.trust(cas).clientAuth(TlsClientAuth.REQUIRED);
    }
    return tls.build();
  }

  private static Resource resource(String setting, Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN")) {
        throw new StartupException(setting + " " + file + " is not a PEM file (no -----BEGIN)");
      }
      return Resource.create(file.toString(), bytes);
    } catch (IOException e) {
      throw new StartupException("cannot read " + setting + " " + file + ": " + e, e);
    }
  }

  /** Whether the private key signs what the certificate's public key verifies. */
  private static boolean matches(PrivateKey privateKey, PublicKey publicKey) {
    String algorithm =
        switch (privateKey.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "EdDSA", "Ed25519" -> "Ed25519";
          default -> null;
        };
    if (algorithm == null) {
      return true; // not checked: the handshake will tell
    }
    try {
      byte[] probe = "switchboard".getBytes(StandardCharsets.US_ASCII);
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(privateKey);
      sign.update(probe);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(publicKey);
      verify.update(probe);
      return verify.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
