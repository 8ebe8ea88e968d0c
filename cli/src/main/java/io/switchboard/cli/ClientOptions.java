package io.switchboard.cli;

import io.switchboard.client.AuthScheme;
import io.switchboard.client.Credentials;
import io.switchboard.client.SwitchboardClient;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * Options every client command shares: where the server is, the credentials and TLS trust to reach
 * it with, and people or scripts.
 *
 * <p>Credentials, first found wins: {@code --access-key} with {@code --secret-key}; {@code
 * SWITCHBOARD_ACCESS_KEY} with {@code SWITCHBOARD_SECRET_KEY}; {@code --profile NAME} (or {@code
 * SWITCHBOARD_PROFILE}) from {@code ~/.switchboard/credentials} (or {@code
 * SWITCHBOARD_CREDENTIALS_FILE}); else none (a keyless server on loopback). The secret is never
 * printed.
 */
final class ClientOptions {

  @Option(
      names = "--server",
      paramLabel = "URL",
      description = "server URL (default $SWITCHBOARD_SERVER or http://127.0.0.1:8080)")
  @Nullable String server;

  @Option(names = "--json", description = "print JSON (the API's own) instead of tables")
  boolean json;

  @Option(
      names = "--access-key",
      paramLabel = "ID",
      description = "access key id (default $SWITCHBOARD_ACCESS_KEY); needs --secret-key")
  @Nullable String accessKey;

  @Option(
      names = "--secret-key",
      paramLabel = "SECRET",
      description =
          "secret of the access key (default $SWITCHBOARD_SECRET_KEY; prefer the variable or a"
              + " profile: a flag shows in the process list)")
  @Nullable String secretKey;

  @Option(
      names = "--profile",
      paramLabel = "NAME",
      description =
          "credentials profile from ~/.switchboard/credentials (default $SWITCHBOARD_PROFILE)")
  @Nullable String profile;

  @Option(
      names = "--auth",
      paramLabel = "SCHEME",
      description = "sigv4 (default) or basic (only over https or to a loopback server)")
  @Nullable String auth;

  @Option(
      names = "--ca-cert",
      paramLabel = "PEM",
      description =
          "trust the CA certificate(s) in this PEM file for https (default $SWITCHBOARD_CA_CERT)")
  @Nullable Path caCert;

  SwitchboardClient client() {
    return client(System.getenv());
  }

  SwitchboardClient client(Map<String, String> env) {
    String url = server;
    if (url == null) {
      url = env.getOrDefault("SWITCHBOARD_SERVER", "http://127.0.0.1:8080");
    }
    SwitchboardClient.Builder b = SwitchboardClient.builder().baseUri(URI.create(url));
    credentials(env).ifPresent(c -> b.credentials(c).authScheme(scheme(auth)));
    Path ca =
        caCert != null
            ? caCert
            : Optional.ofNullable(env.get("SWITCHBOARD_CA_CERT")).map(Path::of).orElse(null);
    if (ca != null) {
      b.trustedCertificates(ca);
    }
    return b.build();
  }

  /** The credentials these options and {@code env} name, if any (see the class comment). */
  Optional<Credentials> credentials(Map<String, String> env) {
    if (accessKey != null || secretKey != null) {
      if (accessKey == null || secretKey == null) {
        throw new IllegalArgumentException(
            "--access-key and --secret-key go together; got only "
                + (accessKey == null ? "--secret-key" : "--access-key"));
      }
      return Optional.of(Credentials.of(accessKey, secretKey));
    }
    String envId = env.get("SWITCHBOARD_ACCESS_KEY");
    String envSecret = env.get("SWITCHBOARD_SECRET_KEY");
    if (envId != null || envSecret != null) {
      if (envId == null || envSecret == null) {
        throw new IllegalArgumentException(
            "SWITCHBOARD_ACCESS_KEY and SWITCHBOARD_SECRET_KEY go together; only "
                + (envId == null ? "SWITCHBOARD_SECRET_KEY" : "SWITCHBOARD_ACCESS_KEY")
                + " is set");
      }
      return Optional.of(Credentials.of(envId, envSecret));
    }
    String name = profile != null ? profile : env.get("SWITCHBOARD_PROFILE");
    if (name != null) {
      String file = env.get("SWITCHBOARD_CREDENTIALS_FILE");
      return Optional.of(
          Credentials.fromProfile(
              file != null ? Path.of(file) : Credentials.defaultProfileFile(), name));
    }
    return Optional.empty();
  }

  static AuthScheme scheme(@Nullable String text) {
    if (text == null) {
      return AuthScheme.SIGV4;
    }
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "sigv4" -> AuthScheme.SIGV4;
      case "basic" -> AuthScheme.BASIC;
      default ->
          throw new IllegalArgumentException("--auth must be sigv4 or basic, got '" + text + "'");
    };
  }
}
