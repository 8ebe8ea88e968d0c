package io.switchboard.cli;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Setting;
import io.switchboard.server.config.Settings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard server}: runs the server in the foreground until SIGTERM or Ctrl-C, then stops
 * gracefully and exits with 0 (1 if the stop failed; see {@link GracefulStop}). The shutdown hook
 * stops it on any other exit of the JVM. Flags beat {@code SWITCHBOARD_*} variables, which beat the
 * config file. Its options are the server's settings ({@link Settings}): one {@code --key} option
 * each, added by {@link SettingOptions}, taken as text and read by {@link ServerConfig#resolve}, so
 * a flag is read and checked exactly as its variable and config-file key are.
 */
@Command(
    name = "server",
    modelTransformer = ServerCommand.SettingOptions.class,
    description = {
      "Run the Switchboard server in the foreground (stop with Ctrl-C or SIGTERM).",
      "Each flag can also be set by a SWITCHBOARD_* variable (e.g. SWITCHBOARD_PORT) or a",
      "config file of key=value lines (--config); flags win over variables, variables over the file."
    })
final class ServerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--config", description = "config file (Java properties: port=8080, ...)")
  @Nullable String config;

  /** Adds an option for every setting that has a flag, described from its declaration. */
  static final class SettingOptions implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      for (Setting<?> setting : Settings.ALL) {
        if (!setting.hasFlag()) {
          continue;
        }
        OptionSpec.Builder option =
            OptionSpec.builder(setting.flag())
                .type(String.class)
                .paramLabel("<" + setting.key() + ">")
                .description(help(setting));
        if (setting.isBoolean()) {
          option.arity("0..1").fallbackValue("true");
        }
        command.addOption(option.build());
      }
      return command;
    }

    /** The description and default, as plain text (picocli would read % and ${...}). */
    private static String help(Setting<?> setting) {
      String text =
          setting.description()
              + " (default "
              + setting.defaultText()
              + "; "
              + setting.variable()
              + ")";
      return text.replace("`", "").replace("%", "%%").replace("${", "$${");
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig resolved = ServerConfig.resolve(flags(), System.getenv());
    SwitchboardServer server = SwitchboardServer.start(resolved);
    CountDownLatch stopped = new CountDownLatch(1);
    GracefulStop.install(server::stop); // exits 0 after a clean stop, 1 after a failed one
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.stop();
                  stopped.countDown();
                },
                "switchboard-shutdown"));
    spec.commandLine()
        .getOut()
        .println(
            "Switchboard is listening on "
                + server.uri()
                + (resolved.postgres().isPresent()
                    ? " (queues in PostgreSQL at " + resolved.postgres().get().displayUrl() + ")"
                    : resolved.inMemory() ? " (in memory: queues are lost when it stops)" : "")
                + "; stop with Ctrl-C");
    spec.commandLine().getOut().flush();
    stopped.await();
    return Main.OK;
  }

  Map<String, String> flags() {
    Map<String, String> flags = new LinkedHashMap<>();
    if (config != null) {
      flags.put("config", config);
    }
    for (Setting<?> setting : Settings.ALL) {
      OptionSpec option = setting.hasFlag() ? spec.findOption(setting.flag()) : null;
      if (option != null && option.getValue() != null) {
        flags.put(setting.key(), option.getValue());
      }
    }
    return flags;
  }
}
