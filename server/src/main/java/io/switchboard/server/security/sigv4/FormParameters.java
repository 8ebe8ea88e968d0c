package io.switchboard.server.security.sigv4;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code name=value} pairs of a query string or a form body, decoded as SigV4's canonical query
 * and the SQS query protocol both read them: {@code +} is a space, a malformed escape is {@code
 * MalformedQueryString}.
 */
public final class FormParameters {

  private FormParameters() {}

  /** Form parameters, in the order they came, each name with its first value. */
  public static Map<String, String> parse(String form) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String[] pair : pairs(form)) {
      out.putIfAbsent(pair[0], pair[1]);
    }
    return out;
  }

  /** Every {@code name=value} pair of a form or query string, decoded, repeats included. */
  public static List<String[]> pairs(String form) {
    List<String[]> out = new ArrayList<>();
    if (form == null || form.isEmpty()) {
      return out;
    }
    for (String pair : form.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      out.add(new String[] {name, eq < 0 ? "" : decode(pair.substring(eq + 1))});
    }
    return out;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new SigV4Error("MalformedQueryString", 400, "cannot decode form parameter '" + s + "'");
    }
  }
}
