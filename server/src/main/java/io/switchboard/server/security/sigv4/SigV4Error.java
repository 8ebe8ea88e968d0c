package io.switchboard.server.security.sigv4;

/**
 * A request SigV4 refuses or cannot read, in AWS's terms: the code ({@code
 * MissingAuthenticationToken}, {@code InvalidClientTokenId}, {@code SignatureDoesNotMatch}, {@code
 * IncompleteSignature}, {@code RequestExpired}, {@code MalformedQueryString}), the HTTP status and
 * the message. Each API answers it in its own shape: the native API as a 401, the SQS endpoint as
 * the SQS error of the same code and status.
 */
public final class SigV4Error extends RuntimeException {

  private final String code;
  private final int status;

  public SigV4Error(String code, int status, String message) {
    super(message);
    this.code = code;
    this.status = status;
  }

  /** The AWS error code, such as {@code SignatureDoesNotMatch}. */
  public String code() {
    return code;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }
}
