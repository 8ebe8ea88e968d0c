package io.switchboard.cli;

import io.switchboard.storage.rocksdb.StoreDoctor;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard store verify|salvage}: checks a stopped server's data directory, and copies
 * what is readable in a damaged one to a new directory. Neither changes the data directory.
 */
@Command(
    name = "store",
    description = "Check or salvage a data directory (the server need not run; stop it first).",
    subcommands = {StoreCommand.Verify.class, StoreCommand.Salvage.class})
final class StoreCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "verify",
      description = {
        "Read everything in the data directory with its checksums (table files, write-ahead logs,",
        "every record) and report OK or each damage found. Changes nothing.",
        "Exit code 0 when the store is whole, 7 when it is damaged."
      })
  static final class Verify implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--data-dir", required = true, description = "the data directory to check")
    Path dataDir;

    @Override
    public Integer call() {
      return print(spec, StoreDoctor.verify(dataDir));
    }
  }

  @Command(
      name = "salvage",
      description = {
        "Copy every readable record of the data directory to a new store in --to, and list",
        "exactly what could not be read (table file, key range, queue and message serials,",
        "log records). The data directory is not changed; start the server with --data-dir on",
        "the new directory. Exit code 0 when nothing was lost, 7 when something was."
      })
  static final class Salvage implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--data-dir", required = true, description = "the damaged data directory")
    Path dataDir;

    @Option(names = "--to", required = true, description = "a new (or empty) directory")
    Path to;

    @Override
    public Integer call() {
      return print(spec, StoreDoctor.salvage(dataDir, to));
    }
  }

  private static int print(CommandSpec spec, StoreDoctor.Report report) {
    PrintWriter out = spec.commandLine().getOut();
    report.lines().forEach(out::println);
    out.flush();
    return report.damaged() ? Main.DAMAGED : Main.OK;
  }
}
