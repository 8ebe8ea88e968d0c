package io.switchboard.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.WireFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/** A raw HTTP helper for API tests: what curl would send, and what came back. */
public final class Http implements AutoCloseable {

  private final URI base;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  public Http(URI base) {
    this.base = base;
  }

  /** A response: status, body text, and the body as JSON when it is JSON. */
  public record Answer(int status, String text, HttpResponse<String> raw) {
    public JsonNode json() {
      return WireFormat.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    public String code() {
      return json().path("code").asText();
    }

    @Override
    public String toString() {
      return status + " " + text;
    }
  }

  public Answer get(String path) {
    return send("GET", path, null);
  }

  public Answer post(String path, String body) {
    return send("POST", path, body);
  }

  public Answer send(String method, String path, String body) {
    return send(
        method, path, body, body == null ? Map.of() : Map.of("Content-Type", "application/json"));
  }

  /** A request with exactly these headers (besides those the client adds). */
  public Answer send(String method, String path, String body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(40))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::header);
    try {
      HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body(), r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
  }
}
