package io.switchboard.server.config;

import java.util.regex.Pattern;

/**
 * Hides the passwords a URL may carry before it is echoed in a message, a log line or {@code
 * toString}: the user info's password ({@code scheme://user:secret@host}) and any {@code password=}
 * parameter ({@code ?user=u&password=secret}, as JDBC URLs allow).
 */
final class Redact {

  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password=)[^&;#]*");

  /** {@code //user:secret@} → {@code //user:***@}; the user stays, it helps find the login. */
  private static final Pattern USER_INFO_PASSWORD = Pattern.compile("(//[^/?#@:]*:)[^/?#@]*@");

  private Redact() {}

  /** The text with every URL password replaced by {@code ***}; other text unchanged. */
  static String url(String text) {
    String masked = PASSWORD_PARAMETER.matcher(text).replaceAll("$1***");
    return USER_INFO_PASSWORD.matcher(masked).replaceAll("$1***@");
  }
}
