package io.switchboard.cli;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.server.init.InitFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code switchboard export}: the server's queues, workspaces, agents and access keys (without
 * secrets) as the YAML {@code switchboard server --init FILE} reads ({@code docs/deploy.md},
 * "Declare your setup").
 */
@Command(
    name = "export",
    description =
        "Write the server's queues, workspaces, agents and access keys (never a secret) as the YAML"
            + " that server --init reads.")
final class ExportCommand extends QueuesCommand.ClientCommand {

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "write to FILE (replaced in one step) instead of standard output")
  @Nullable Path output;

  @Override
  void run(SwitchboardClient client) {
    String yaml = InitFile.export(client);
    if (output == null) {
      out().print(yaml);
      out().flush();
      return;
    }
    try {
      Path dir = output.toAbsolutePath().getParent();
      Path tmp = Files.createTempFile(dir, ".export-", ".yaml");
      Files.writeString(tmp, yaml, StandardCharsets.UTF_8);
      Files.move(tmp, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot write " + output + ": " + e, e);
    }
  }
}
