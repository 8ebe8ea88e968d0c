package io.switchboard.server.http;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;
import io.switchboard.client.wire.WireFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

/**
 * Answers a connection whose first request line is not HTTP/1.1 ({@code GARBAGE}, {@code GET /},
 * {@code GET / HTTP/1.0}, a bare line feed, a line longer than the server reads) with the API's
 * error shape, then closes it. Helidon picks a connection's protocol from its first line and
 * closes, without a word, one that no protocol claims; its HTTP/1.1 connection answers only the
 * requests whose first line already looks like HTTP/1.1. This selector comes first (Helidon asks
 * custom selectors before the protocols') and claims only the lines HTTP/1.1 would refuse.
 */
public final class UnreadableRequests implements ServerConnectionSelector {

  private static final String HTTP_11 = " HTTP/1.1\r";

  private final int maxRequestLine;

  /**
   * @param maxRequestLine the longest request line the HTTP/1.1 connection reads
   */
  public UnreadableRequests(int maxRequestLine) {
    this.maxRequestLine = maxRequestLine;
  }

  @Override
  public int bytesToIdentifyConnection() {
    return 0;
  }

  @Override
  public Support supports(BufferData data) {
    int lf = data.indexOf((byte) '\n');
    if (lf == -1) {
      // the line is still arriving: HTTP/1.1 takes it, and answers it once read, unless too long
      return data.available() > maxRequestLine ? Support.SUPPORTED : Support.UNKNOWN;
    }
    String line = data.readString(lf, StandardCharsets.ISO_8859_1);
    if (line.endsWith(HTTP_11) || line.startsWith("PRI * HTTP/2")) {
      return Support.UNSUPPORTED; // HTTP/1.1's (or HTTP/2 with prior knowledge, where served)
    }
    return Support.SUPPORTED;
  }

  @Override
  public Set<String> supportedApplicationProtocols() {
    return Set.of();
  }

  @Override
  public ServerConnection connection(ConnectionContext ctx) {
    return new Refusal(ctx, maxRequestLine);
  }

  /** The answer to one unreadable first line; the connection is closed after it. */
  private static final class Refusal implements ServerConnection {
    private final ConnectionContext ctx;
    private final int maxRequestLine;

    Refusal(ConnectionContext ctx, int maxRequestLine) {
      this.ctx = ctx;
      this.maxRequestLine = maxRequestLine;
    }

    @Override
    public void handle(Limit limit) {
      BufferData seen = ctx.dataReader().getBuffer(ctx.dataReader().available());
      int lf = seen.indexOf((byte) '\n');
      String line = lf == -1 ? "" : seen.readString(lf, StandardCharsets.ISO_8859_1);
      int status;
      String code;
      String message;
      if (lf == -1) {
        status = 414;
        code = "URI_TOO_LONG";
        message =
            "the request line is longer than the server reads ("
                + maxRequestLine
                + " bytes); nothing was done";
      } else if (line.endsWith(" HTTP/1.0\r") || line.endsWith(" HTTP/1.0")) {
        status = 505;
        code = "HTTP_VERSION_NOT_SUPPORTED";
        message = "only HTTP/1.1 is served, this request is HTTP/1.0; nothing was done";
      } else {
        status = 400;
        code = "BAD_REQUEST";
        message = "the request line is not METHOD PATH HTTP/1.1 ended by CRLF; nothing was done";
      }
      byte[] body = WireFormat.bytes(WireFormat.object().put("code", code).put("message", message));
      String head =
          "HTTP/1.1 "
              + status
              + " "
              + reason(status)
              + "\r\nContent-Type: application/json\r\nContent-Length: "
              + body.length
              + "\r\n"
              + Call.REQUEST_ID_HEADER
              + ": "
              + RequestIds.next()
              + "\r\nConnection: close\r\n\r\n";
      BufferData answer = BufferData.growing(head.length() + body.length);
      answer.write(head.getBytes(StandardCharsets.US_ASCII));
      answer.write(body);
      ctx.dataWriter().writeNow(answer);
    }

    private static String reason(int status) {
      return switch (status) {
        case 414 -> "URI Too Long";
        case 505 -> "HTTP Version Not Supported";
        default -> "Bad Request";
      };
    }

    @Override
    public Duration idleTime() {
      return Duration.ZERO;
    }

    @Override
    public void close(boolean interrupt) {
      // the handler closes the socket once handle returns
    }
  }
}
