package io.switchboard.bench.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.jspecify.annotations.Nullable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/** Draws a report's {@link ChartSpec}s with XChart, stacked in one PNG with the run's details. */
final class Charts {

  static final int WIDTH = 900;
  static final int HEIGHT = 450;
  private static final int FOOTER = 40;

  private Charts() {}

  static void write(Report report, List<ChartSpec> specs, Path png, RunInfo info)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<BufferedImage> images = new ArrayList<>();
    for (ChartSpec spec : specs) {
      // A chart of a column with nothing to plot (a ratio against a system left out of the run,
      // a figure the machine could not measure) is left out; the table says why.
      if (hasValues(report, spec)) {
        images.add(BitmapEncoder.getBufferedImage(chart(report, spec)));
      }
    }
    BufferedImage all =
        new BufferedImage(WIDTH, HEIGHT * images.size() + FOOTER, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = all.createGraphics();
    try {
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, all.getWidth(), all.getHeight());
      for (int i = 0; i < images.size(); i++) {
        g.drawImage(images.get(i), 0, i * HEIGHT, null);
      }
      g.setColor(Color.DARK_GRAY);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      Map<String, String> v = info.values();
      String line1 =
          "commit "
              + v.get("commit")
              + " · "
              + v.get("date")
              + " · "
              + v.get("jdk")
              + " · "
              + v.get("cpus")
              + " CPUs ("
              + v.get("cpu")
              + ") · load "
              + v.get("load_average")
              + (v.containsKey("load_average_end") ? " → " + v.get("load_average_end") : "");
      int y = HEIGHT * images.size() + 16;
      g.drawString(line1, 8, y);
      g.drawString(clip(v.get("command"), 150), 8, y + 16);
    } finally {
      g.dispose();
    }
    if (!ImageIO.write(all, "png", png.toFile())) {
      throw new IOException("no PNG writer available for " + png);
    }
  }

  private static String clip(@Nullable String s, int max) {
    return s == null || s.length() <= max ? String.valueOf(s) : s.substring(0, max - 1) + "…";
  }

  private static boolean hasValues(Report report, ChartSpec spec) {
    int val = report.column(spec.value());
    for (Object[] row : report.rows()) {
      if (row[val] instanceof Number n && !Double.isNaN(n.doubleValue())) {
        return true;
      }
    }
    return false;
  }

  static CategoryChart chart(Report report, ChartSpec spec) {
    int cat = report.column(spec.category());
    int val = report.column(spec.value());
    int ser = spec.series() == null ? -1 : report.column(spec.series());
    Set<String> categories = new LinkedHashSet<>();
    Map<String, Map<String, Double>> series = new LinkedHashMap<>();
    for (Object[] row : report.rows()) {
      if (!(row[val] instanceof Number n) || Double.isNaN(n.doubleValue())) {
        continue;
      }
      String c = Report.display(row[cat]);
      String s = ser < 0 ? spec.value() : Report.display(row[ser]);
      categories.add(c);
      series.computeIfAbsent(s, k -> new LinkedHashMap<>()).put(c, n.doubleValue());
    }
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(spec.title())
            .xAxisTitle(spec.category())
            .yAxisTitle(spec.yAxis())
            .build();
    Styler.LegendPosition legend = Styler.LegendPosition.OutsideS;
    chart.getStyler().setLegendPosition(legend);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setOverlapped(false);
    List<String> xs = List.copyOf(categories);
    if (xs.isEmpty()) {
      throw new IllegalStateException(
          "chart \"" + spec.title() + "\" of " + report.entry() + " has no numeric value to plot");
    }
    if (spec.logarithmic()) {
      // bars grow from the axis minimum, which XChart puts at 0 unless told: a decade below
      double min =
          series.values().stream()
              .flatMap(m -> m.values().stream())
              .filter(d -> d > 0)
              .min(Double::compare)
              .orElse(1.0);
      chart.getStyler().setYAxisLogarithmic(true);
      chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
    }
    for (Map.Entry<String, Map<String, Double>> e : series.entrySet()) {
      List<Double> ys = new ArrayList<>(xs.size());
      for (String x : xs) {
        // null: no bar for this category (XChart skips it)
        ys.add(e.getValue().get(x));
      }
      chart.addSeries(e.getKey(), xs, ys);
    }
    return chart;
  }
}
