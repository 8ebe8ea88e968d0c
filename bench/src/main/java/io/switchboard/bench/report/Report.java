package io.switchboard.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The figures of one benchmark run: a table of rows, printed as Markdown, written as CSV (with the
 * {@link RunInfo} as {@code #} comment lines above the header) and drawn as a PNG chart.
 *
 * <p>Cells are strings or numbers; numbers are written to the CSV in full precision and printed
 * rounded. A figure the machine could not give (process CPU time, load average: see {@link
 * Machine}) is a {@link #notMeasured} cell: {@code n/a} in the table, an empty CSV field, and a
 * {@code # note: not measured: <column>: <why>} line saying so. Every entry point in {@code bench}
 * ends with {@link #write}, so each run leaves {@code <out>/<entry>.csv} and {@code
 * <out>/<entry>.png}, {@code <out>} being {@code bench/results/<entry>} unless {@code --out} was
 * given (see {@link ReportArgs}).
 */
public final class Report {

  private final String entry;
  private final String title;
  private final List<String> columns;
  private final List<Object[]> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final List<ChartSpec> charts = new ArrayList<>();

  private Report(String entry, String title, List<String> columns) {
    this.entry = entry;
    this.title = title;
    this.columns = List.copyOf(columns);
  }

  /**
   * A new, empty report.
   *
   * @param entry the entry point's short name: file names and the default output directory
   * @param title the table's and chart's title
   * @param columns column names, as in the CSV header
   */
  public static Report create(String entry, String title, String... columns) {
    if (!entry.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException(
          "entry names are lower-case letters, digits and '-', got \"" + entry + "\"");
    }
    if (columns.length == 0) {
      throw new IllegalArgumentException("a report needs at least one column");
    }
    return new Report(entry, title, Arrays.asList(columns));
  }

  /**
   * A cell for a figure this machine could not measure, and why (e.g. "no per-process CPU time for
   * the PostgreSQL server on this machine"): {@code n/a} in the table, empty in the CSV, and noted
   * under both.
   */
  public record NotMeasured(String why) {
    public NotMeasured {
      if (why == null || why.isBlank()) {
        throw new IllegalArgumentException("say why a figure was not measured");
      }
    }

    @Override
    public String toString() {
      return NOT_MEASURED;
    }
  }

  /** How a {@link NotMeasured} cell reads in the table. */
  public static final String NOT_MEASURED = "n/a";

  /** A {@link NotMeasured} cell. */
  public static NotMeasured notMeasured(String why) {
    return new NotMeasured(why);
  }

  /**
   * {@code value} as a cell if it was measured (present), else {@link #notMeasured}{@code (why)}.
   */
  public static Object measured(OptionalDouble value, String why) {
    return value.isPresent() ? (Object) value.getAsDouble() : notMeasured(why);
  }

  /**
   * {@code value} as a cell if it was measured (present), else {@link #notMeasured}{@code (why)}.
   */
  public static Object measured(Optional<String> value, String why) {
    return value.isPresent() ? (Object) value.get() : notMeasured(why);
  }

  /**
   * Adds a row; one cell per column, each a {@link String}, a {@link Number} or a {@link
   * NotMeasured}.
   */
  public Report row(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException(
          "a row of "
              + entry
              + " has "
              + columns.size()
              + " cells ("
              + String.join(", ", columns)
              + "), got "
              + cells.length);
    }
    for (Object c : cells) {
      if (!(c instanceof String) && !(c instanceof Number) && !(c instanceof NotMeasured)) {
        throw new IllegalArgumentException(
            "cells are strings, numbers or Report.notMeasured(why), got " + c);
      }
    }
    rows.add(cells.clone());
    return this;
  }

  /**
   * The notes: those given with {@link #note}, then one {@code not measured: <column>: <why>} per
   * column and reason of the {@link NotMeasured} cells.
   */
  public List<String> notes() {
    List<String> all = new ArrayList<>(notes);
    Set<String> unmeasured = new LinkedHashSet<>();
    for (Object[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        if (r[i] instanceof NotMeasured n) {
          unmeasured.add("not measured: " + columns.get(i) + ": " + n.why());
        }
      }
    }
    all.addAll(unmeasured);
    return all;
  }

  /** A line printed under the table and written as a {@code # note:} line of the CSV. */
  public Report note(String text) {
    notes.add(text);
    return this;
  }

  /** Adds a chart (a report may have several; they are stacked in one PNG). */
  public Report chart(ChartSpec spec) {
    for (String c : spec.columnsUsed()) {
      column(c);
    }
    charts.add(spec);
    return this;
  }

  public String entry() {
    return entry;
  }

  public List<String> columns() {
    return columns;
  }

  public List<Object[]> rows() {
    return rows.stream().map(Object[]::clone).toList();
  }

  int column(String name) {
    int i = columns.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException(
          "no column \"" + name + "\" in " + entry + "; columns are " + columns);
    }
    return i;
  }

  /**
   * Prints the run information and the table to {@code out}, and writes {@code <entry>.csv} and (if
   * a chart was asked for) {@code <entry>.png} into {@code dir}, creating it.
   *
   * @return the files written
   */
  public List<Path> write(Path dir, RunInfo info, PrintStream out) throws IOException {
    out.println();
    out.println("## " + title);
    out.print(info.describe("  "));
    out.print(markdown());
    for (String n : notes()) {
      out.println("note: " + n);
    }
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    Path csv = dir.resolve(entry + ".csv");
    Files.writeString(csv, csv(info), StandardCharsets.UTF_8);
    written.add(csv);
    if (!charts.isEmpty()) {
      Path png = dir.resolve(entry + ".png");
      Charts.write(this, charts, png, info);
      written.add(png);
    }
    for (Path p : written) {
      out.println("wrote " + p);
    }
    out.flush();
    return written;
  }

  String title() {
    return title;
  }

  /** The table in Markdown, numbers rounded for reading. */
  public String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("| ").append(String.join(" | ", columns)).append(" |\n|");
    for (int i = 0; i < columns.size(); i++) {
      b.append("---|");
    }
    b.append('\n');
    for (Object[] r : rows) {
      b.append('|');
      for (Object c : r) {
        b.append(' ').append(display(c)).append(" |");
      }
      b.append('\n');
    }
    return b.toString();
  }

  /** The CSV: {@code # key: value} lines, the header, one line per row (RFC 4180 quoting). */
  public String csv(RunInfo info) {
    StringBuilder b = new StringBuilder();
    b.append("# ").append(title).append('\n');
    b.append(info.describe("# "));
    for (String n : notes()) {
      b.append("# note: ").append(n).append('\n');
    }
    b.append(String.join(",", columns.stream().map(Report::quote).toList())).append('\n');
    for (Object[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append(
            switch (r[i]) {
              case Number n -> exact(n);
              case NotMeasured n -> "";
              default -> quote((String) r[i]);
            });
      }
      b.append('\n');
    }
    return b.toString();
  }

  /** A cell as the table shows it: numbers rounded for reading, {@link NotMeasured} as n/a. */
  public static String display(Object c) {
    if (c instanceof Double || c instanceof Float) {
      double d = ((Number) c).doubleValue();
      if (Double.isNaN(d)) {
        return "-";
      }
      double abs = Math.abs(d);
      if (abs >= 100) {
        return String.format(Locale.ROOT, "%,.0f", d);
      }
      if (abs >= 1) {
        return String.format(Locale.ROOT, "%.2f", d);
      }
      return String.format(Locale.ROOT, "%.3g", d);
    }
    if (c instanceof Number n) {
      return String.format(Locale.ROOT, "%,d", n.longValue());
    }
    return Objects.toString(c);
  }

  private static String exact(Number n) {
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      return Double.isNaN(d) ? "" : Double.toString(d);
    }
    return n.toString();
  }

  private static String quote(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}
