package io.switchboard.server.security;

import io.helidon.http.Header;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.switchboard.server.http.Call;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A call as SigV4 reads it ({@link SqsHttpRequest}): the native API's authentication and the SQS
 * endpoint both verify signatures over it.
 */
public final class SignedCalls {

  private SignedCalls() {}

  /**
   * The call as the SQS endpoint and SigV4 see it: as it came, every header, the body. The headers
   * are a view of Helidon's, not a copy: a request reads a handful of them (the signed ones, the
   * protocol's), and copying every header into a lower-cased map was most of what SigV4
   * verification allocated (docs/benchmarks.md, "Cost of authentication").
   */
  public static SqsHttpRequest httpRequest(Call call) {
    var request = call.request();
    return new SqsHttpRequest(
        request.prologue().method().text(),
        request.path().rawPath(),
        request.query().rawValue(),
        new HeaderView(request.headers()),
        call.bytes());
  }

  /**
   * Helidon's request headers as the map {@link SqsHttpRequest} takes (lower-case names to every
   * value): a look-up by name asks Helidon (whose names are case-insensitive); only iterating the
   * whole map copies it, once.
   */
  public static final class HeaderView extends AbstractMap<String, List<String>> {

    private final io.helidon.http.Headers headers;
    private @Nullable Set<Map.Entry<String, List<String>>> entries;

    public HeaderView(io.helidon.http.Headers headers) {
      this.headers = headers;
    }

    /**
     * The names SigV4 and the SQS protocols look up on every request, made once: {@link
     * HeaderNames#create} lower-cases and allocates a name each time, and the look-up then hashes
     * that new string (docs/benchmarks.md, "Cost of authentication").
     */
    private static final Map<String, HeaderName> KNOWN =
        known(
            "authorization",
            "host",
            "x-amz-date",
            "x-amz-content-sha256",
            "x-amz-target",
            "x-amz-security-token",
            "x-amz-user-agent",
            "amz-sdk-invocation-id",
            "amz-sdk-request",
            "content-type",
            "content-length",
            "content-encoding",
            "accept",
            "date",
            "user-agent",
            "x-amzn-trace-id",
            "x-switchboard-selector");

    private static Map<String, HeaderName> known(String... names) {
      Map<String, HeaderName> known = new java.util.HashMap<>();
      for (String name : names) {
        known.put(name, HeaderNames.createFromLowercase(name));
      }
      return Map.copyOf(known);
    }

    /** The Helidon name of {@code name} (any case: Helidon's look-up ignores it). */
    static HeaderName name(String name) {
      HeaderName known = KNOWN.get(name);
      return known != null ? known : HeaderNames.create(name);
    }

    @Override
    public @Nullable List<String> get(@Nullable Object name) {
      return name instanceof String s ? headers.all(name(s), () -> null) : null;
    }

    @Override
    public boolean containsKey(Object name) {
      return name instanceof String s && headers.contains(name(s));
    }

    @Override
    public Set<Map.Entry<String, List<String>>> entrySet() {
      if (entries == null) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        for (Header h : headers) {
          copy.computeIfAbsent(h.name().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
              .addAll(h.allValues());
        }
        entries = Collections.unmodifiableMap(copy).entrySet();
      }
      return entries;
    }
  }
}
