package io.switchboard.server.config;

/**
 * The server cannot start as configured: a bad flag, variable or config-file entry, or a mode that
 * does not exist yet. The message says what was wrong and what is allowed.
 */
public final class StartupException extends RuntimeException {

  public StartupException(String message) {
    super(message);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
