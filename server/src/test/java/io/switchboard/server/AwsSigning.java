package io.switchboard.server;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/** Signs a raw request with the AWS SDK v2's own SigV4 signer, as any AWS tool would. */
public final class AwsSigning {

  /** Headers the JDK's HTTP client sets itself and refuses from callers. */
  private static final Set<String> RESTRICTED = Set.of("host", "content-length");

  private AwsSigning() {}

  /**
   * The headers to send: {@code headers} plus the signature's ({@code Authorization}, {@code
   * X-Amz-Date}, ...), for a request to {@code uri} signed by key {@code keyId} for {@code service}
   * in us-east-1.
   */
  public static Map<String, String> sign(
      String method,
      URI uri,
      byte[] body,
      Map<String, String> headers,
      String keyId,
      String secret,
      String service) {
    SdkHttpRequest.Builder b =
        SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method)).uri(uri);
    headers.forEach(b::putHeader);
    SignedRequest signed =
        AwsV4HttpSigner.create()
            .sign(
                r ->
                    r.identity(AwsCredentialsIdentity.create(keyId, secret))
                        .request(b.build())
                        .payload(ContentStreamProvider.fromByteArray(body))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, service)
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1"));
    Map<String, String> out = new LinkedHashMap<>();
    signed
        .request()
        .headers()
        .forEach(
            (name, values) -> {
              if (!RESTRICTED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                out.put(name, values.get(0));
              }
            });
    return out;
  }
}
