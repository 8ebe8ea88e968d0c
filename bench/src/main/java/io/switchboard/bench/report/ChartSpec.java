package io.switchboard.bench.report;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One bar chart drawn from a report's rows: one group of bars per distinct value of {@code
 * category} (in row order), one bar colour per distinct value of {@code series} (or a single series
 * named after {@code value} when {@code series} is null), bar height = {@code value}.
 *
 * @param title the chart's title
 * @param yAxis the y axis label, with its unit
 * @param category the column whose values name the groups along the x axis
 * @param series the column whose values name the bars in a group, or null for one series
 * @param value the numeric column plotted
 * @param logarithmic a logarithmic y axis (for figures orders of magnitude apart)
 */
public record ChartSpec(
    String title,
    String yAxis,
    String category,
    @Nullable String series,
    String value,
    boolean logarithmic) {

  /** A linear chart. */
  public static ChartSpec bars(
      String title, String yAxis, String category, @Nullable String series, String value) {
    return new ChartSpec(title, yAxis, category, series, value, false);
  }

  /** The same chart with a logarithmic y axis. */
  public ChartSpec log() {
    return new ChartSpec(title, yAxis, category, series, value, true);
  }

  List<String> columnsUsed() {
    List<String> out = new ArrayList<>(List.of(category, value));
    if (series != null) {
      out.add(series);
    }
    return out;
  }
}
