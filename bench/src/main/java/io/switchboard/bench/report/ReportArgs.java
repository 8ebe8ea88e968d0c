package io.switchboard.bench.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --out DIR} option every entry point accepts, split from its own arguments.
 *
 * @param out where the CSV and PNG go
 * @param rest the remaining arguments, in order
 */
public record ReportArgs(Path out, String[] rest) {

  /** Default output directory of an entry: {@code bench/results/<entry>} under the working dir. */
  public static Path defaultOut(String entry) {
    return Path.of("bench", "results", entry);
  }

  /** Takes {@code --out DIR} (or {@code --out=DIR}) out of {@code args}. */
  public static ReportArgs parse(String entry, String[] args) {
    Path out = defaultOut(entry);
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--out")) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--out needs a directory");
        }
        out = Path.of(args[++i]);
      } else if (a.startsWith("--out=")) {
        out = Path.of(a.substring("--out=".length()));
      } else {
        rest.add(a);
      }
    }
    return new ReportArgs(out, rest.toArray(String[]::new));
  }
}
