package io.switchboard.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard completion}: prints the bash completion script for every command and option
 * (picocli's {@link AutoComplete} writes it from the commands themselves, so it never drifts). zsh
 * runs it after {@code autoload -U +X bashcompinit && bashcompinit}.
 */
@Command(
    name = "completion",
    description =
        "Print the shell completion script (bash; zsh after 'autoload -U +X bashcompinit &&"
            + " bashcompinit'). Load it with: source <(switchboard completion)")
final class CompletionCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    spec.commandLine().getOut().print(AutoComplete.bash("switchboard", root));
    spec.commandLine().getOut().flush();
    return Main.OK;
  }
}
