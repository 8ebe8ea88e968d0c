package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regression (the performance round, docs/benchmarks.md): the region and key id a request's {@code
 * Authorization} header names are read on every SQS request (twice), signed or not, verified or
 * not; they were read by a regex split and a {@code String.split}. The scan that replaced them
 * reads the same parts: separated by blanks and commas, the last {@code Credential=} taken, a scope
 * of exactly five parts with a region.
 */
class SigV4CredentialScanTest {

  private static SqsHttpRequest withAuthorization(String authorization) {
    return new SqsHttpRequest(
        "POST", "/", "", Map.of("authorization", List.of(authorization)), new byte[0]);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "AWS4-HMAC-SHA256 Credential=AKID/20261125/eu-west-1/sqs/aws4_request, SignedHeaders=host,"
            + " Signature=ab| eu-west-1| AKID",
        "AWS4-HMAC-SHA256 Credential=AKID/20261125/eu-west-1/sqs/aws4_request,SignedHeaders=host|"
            + " eu-west-1| AKID",
        "AWS4-HMAC-SHA256 Credential=A/1/us-east-1/sqs/x, Credential=B/2/ap-south-1/sqs/y|"
            + " ap-south-1| B",
        "AWS4-HMAC-SHA256 Credential=AKID/20261125//sqs/aws4_request| | AKID",
        "AWS4-HMAC-SHA256 Credential=AKID/20261125/eu-west-1/sqs| | AKID",
        "AWS4-HMAC-SHA256 Credential=AKID/20261125/eu-west-1/sqs/aws4_request/more| | AKID",
        "AWS4-HMAC-SHA256 Credential=AKID| | AKID",
        "AWS4-HMAC-SHA256 Credential=| | ''",
        "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=ab| |",
        "AWS4-HMAC-SHA256 XCredential=AKID/1/eu-west-1/sqs/aws4_request| |",
      })
  void credentialReadByRegex_scanReadsTheSameParts(
      String authorization, String region, String keyId) {
    SqsHttpRequest request = withAuthorization(authorization);
    assertEquals(Optional.ofNullable(region), SigV4Verifier.signedRegion(request));
    assertEquals(Optional.ofNullable(keyId), SigV4Verifier.claimedKeyId(request));
  }
}
