package io.switchboard.client;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.Executor;

/**
 * An access key as gRPC metadata: {@code authorization: Basic base64(ID:SECRET)}, the form the
 * server's gRPC API takes (docs/security.md#grpc-credentials).
 */
final class BasicCallCredentials extends CallCredentials {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String value;

  BasicCallCredentials(Credentials credentials) {
    this.value =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(
                    (credentials.accessKeyId() + ":" + credentials.secretKey())
                        .getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, value);
    applier.apply(headers);
  }

  @Override
  public String toString() {
    return "BasicCallCredentials[secret hidden]";
  }
}
