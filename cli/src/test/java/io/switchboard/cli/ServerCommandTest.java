package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.Setting;
import io.switchboard.server.config.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code switchboard server}'s options are the server's settings, read as the server reads them.
 */
class ServerCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void help_listsEverySettingWithItsDescriptionDefaultAndVariable() {
    assertEquals(Main.OK, run("help", "server"));
    // picocli wraps lines anywhere; compare without whitespace
    String help = out.toString(StandardCharsets.UTF_8).replaceAll("\\s+", "");
    for (Setting<?> s : Settings.ALL) {
      if (s.hasFlag()) {
        String described =
            s.flag()
                + (s.isBoolean() ? "[=<" + s.key() + ">]" : "=<" + s.key() + ">")
                + (s.description() + "(default" + s.defaultText() + ";" + s.variable() + ")")
                    .replace("`", "")
                    .replaceAll("\\s+", "");
        assertTrue(help.contains(described), described + " in " + help);
      } else {
        assertTrue(!help.contains(s.flag()), s.flag() + " must have no flag: " + help);
      }
    }
    assertTrue(help.contains("--config"), help);
  }

  @Test
  void flags_areTheTextsGiven_underTheirKeys() {
    ServerCommand command = new ServerCommand();
    new CommandLine(command)
        .parseArgs(
            "--port", "0", "--in-memory", "--routing-lease", "2s", "--config", "sb.properties");
    assertEquals(
        Map.of("config", "sb.properties", "port", "0", "in-memory", "true", "routing-lease", "2s"),
        command.flags());
  }

  @Test
  void badFlagValue_isReadAsTheServerReadsIt_exit2NamingTheFlag() {
    assertEquals(Main.USAGE, run("server", "--port", "eighty"));
    assertEquals(
        "switchboard: CANNOT_START: port must be an integer, got 'eighty' (from --port)",
        err.toString(StandardCharsets.UTF_8).strip());
  }

  @Test
  void postgresPassword_hasNoFlag() {
    assertEquals(Main.USAGE, run("server", "--postgres-password", "hunter2"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("Unknown option"),
        err.toString(StandardCharsets.UTF_8));
  }
}
