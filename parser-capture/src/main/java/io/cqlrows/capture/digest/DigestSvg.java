package io.cqlrows.capture.digest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws the response times of a {@link DigestReport} as a standalone SVG 1.1 image: a title, then
 * one panel per statement (the first ones with times, in the report's order, which is by total
 * time), each with the statement's text and figures, a histogram of its response times and marks at
 * its p50 and p99. Every histogram has the same logarithmic time axis, from the smallest bucket to
 * the largest of the statements drawn, so the panels compare at a glance.
 *
 * <p>Everything placed is computed from the report. The statement texts and the file name come from
 * captured traffic: they are escaped, and characters that XML 1.0 does not allow become U+FFFD, so
 * no text can end an element, add one or make the document ill-formed.
 */
final class DigestSvg {
  static final String SVG_NS = "http://www.w3.org/2000/svg";

  /** The image's width. */
  static final int WIDTH = 960;

  /** Where the time axis starts and ends, left to right. */
  static final int PLOT_LEFT = 40;

  static final int PLOT_RIGHT = WIDTH - 40;

  /** Height of the tallest bar of a panel. */
  static final int BAR_HEIGHT = 80;

  /** Code points of a statement's text shown in its label, ellipsis included. */
  static final int LABEL_CHARS = 100;

  /** Code points of a statement's text in its panel's tooltip, ellipsis included. */
  static final int TOOLTIP_CHARS = 1000;

  private static final int TITLE_HEIGHT = 44;
  private static final int PANEL_HEIGHT = 150;
  private static final int MESSAGE_HEIGHT = 40;
  private static final int BOTTOM_MARGIN = 8;

  /** Offsets within a panel: the two label lines, the top of the bars, the axis. */
  private static final int LABEL_Y = 14;

  private static final int STATS_Y = 30;
  private static final int MARK_TOP = 38;
  private static final int AXIS_Y = 46 + BAR_HEIGHT;
  private static final int TICK_LABEL_Y = AXIS_Y + 14;

  private static final String BAR_COLOR = "#4e79a7";
  private static final String P50_COLOR = "#f28e2b";
  private static final String P99_COLOR = "#e15759";
  private static final String GRID_COLOR = "#dddddd";

  private static final String[] UNITS = {"ns", "\u00b5s", "ms", "s"};

  private DigestSvg() {}

  /**
   * The image.
   *
   * @param report the digest
   * @param maxStatements panels at most: the first statements of the report that have response
   *     times, in its order
   * @return an SVG document, with an XML declaration that says UTF-8 (write it so)
   * @throws IllegalArgumentException if {@code maxStatements < 1}
   */
  static String render(DigestReport report, int maxStatements) {
    if (maxStatements < 1) {
      throw new IllegalArgumentException("maxStatements < 1: " + maxStatements);
    }
    List<DigestReport.Entry> drawn = new ArrayList<>();
    for (DigestReport.Entry e : report.statements()) {
      if (drawn.size() == maxStatements) {
        break;
      }
      if (hasTimes(e)) {
        drawn.add(e);
      }
    }
    int height =
        TITLE_HEIGHT
            + (drawn.isEmpty() ? MESSAGE_HEIGHT : drawn.size() * PANEL_HEIGHT)
            + BOTTOM_MARGIN;
    StringBuilder sb = new StringBuilder(4096 + drawn.size() * 8192);
    sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb.append("<svg xmlns=\"")
        .append(SVG_NS)
        .append("\" version=\"1.1\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(height)
        .append("\" font-family=\"sans-serif\">\n");
    String file = text(report.file(), TOOLTIP_CHARS);
    String title =
        drawn.isEmpty()
            ? file + " \u2014 response times"
            : file
                + " \u2014 response times of the top "
                + drawn.size()
                + (drawn.size() == 1 ? " statement" : " statements")
                + String.format(Locale.ROOT, " (of %,d), by total time", report.statementCount());
    sb.append("<title>").append(escape(title)).append("</title>\n");
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    sb.append("<text class=\"title\" x=\"")
        .append(PLOT_LEFT)
        .append("\" y=\"26\" font-size=\"16\" font-weight=\"bold\">")
        .append(escape(title))
        .append("</text>\n");
    if (drawn.isEmpty()) {
      String message =
          report.timed()
              ? "No statement in the capture has response times: nothing was answered."
              : "The capture has no packet times (raw bytes): there are no response times to draw.";
      sb.append("<text class=\"message\" x=\"")
          .append(PLOT_LEFT)
          .append("\" y=\"")
          .append(TITLE_HEIGHT + 20)
          .append("\" font-size=\"14\">")
          .append(escape(message))
          .append("</text>\n");
      return sb.append("</svg>\n").toString();
    }
    Axis axis = Axis.of(drawn);
    List<Long> ticks = axis.ticks();
    for (int i = 0; i < drawn.size(); i++) {
      panel(sb, drawn.get(i), axis, ticks, TITLE_HEIGHT + i * PANEL_HEIGHT);
    }
    return sb.append("</svg>\n").toString();
  }

  private static boolean hasTimes(DigestReport.Entry e) {
    return e.times() != null && !e.times().histogram().isEmpty();
  }

  private static void panel(
      StringBuilder sb, DigestReport.Entry e, Axis axis, List<Long> ticks, int top) {
    DigestReport.Times t = e.times();
    sb.append("<g class=\"panel\" transform=\"translate(0,").append(top).append(")\">\n");
    sb.append("<title>").append(escape(text(e.name(), TOOLTIP_CHARS))).append("</title>\n");
    sb.append("<text class=\"statement\" x=\"")
        .append(PLOT_LEFT)
        .append("\" y=\"")
        .append(LABEL_Y)
        .append("\" font-family=\"monospace\" font-size=\"12\">")
        .append(escape(text(e.name(), LABEL_CHARS)))
        .append("</text>\n");
    String stats =
        String.format(
            Locale.ROOT,
            "%s \u00b7 count %,d \u00b7 p50 %s \u00b7 p99 %s \u00b7 total %s",
            e.kind(),
            e.count(),
            duration(t.p50()),
            duration(t.p99()),
            duration(t.total()));
    sb.append("<text class=\"stats\" x=\"")
        .append(PLOT_LEFT)
        .append("\" y=\"")
        .append(STATS_Y)
        .append("\" font-size=\"11\" fill=\"#555555\">")
        .append(escape(text(stats, TOOLTIP_CHARS)))
        .append("</text>\n");

    // Grid and axis, with its tick labels, in every panel.
    for (long tick : ticks) {
      String x = num(axis.x(tick));
      line(sb, "grid", x, MARK_TOP, x, AXIS_Y, GRID_COLOR);
      line(sb, "tick-mark", x, AXIS_Y, x, AXIS_Y + 4, "#000000");
      sb.append("<text class=\"tick\" x=\"")
          .append(x)
          .append("\" y=\"")
          .append(TICK_LABEL_Y)
          .append("\" font-size=\"10\" text-anchor=\"middle\">")
          .append(escape(tickLabel(tick)))
          .append("</text>\n");
    }
    line(sb, "axis", num(PLOT_LEFT), AXIS_Y, num(PLOT_RIGHT), AXIS_Y, "#000000");

    // Bars: height proportional to the bucket's count, the panel's largest at BAR_HEIGHT (linear,
    // not sqrt-scaled, so heights compare truly within a panel; a bucket with any answer is at
    // least 1 unit tall, so a lone slow answer still shows). These are counts per bucket, not a
    // density: above 64 ns the buckets within a power of two are equally wide in time, so on the
    // log axis they narrow to about half from its start to its end, and a smooth distribution
    // shows a sawtooth that steps up at each power of two.
    long maxCount = 1;
    for (DigestReport.Bucket b : t.histogram()) {
      maxCount = Math.max(maxCount, b.count());
    }
    sb.append("<g fill=\"").append(BAR_COLOR).append("\" shape-rendering=\"crispEdges\">\n");
    for (DigestReport.Bucket b : t.histogram()) {
      double x0 = axis.x(b.lowNanos());
      double x1 = axis.x(b.highNanos());
      double w = Math.max(x1 - x0, 1.0);
      double h = Math.max((double) Math.max(b.count(), 0) / maxCount * BAR_HEIGHT, 1.0);
      sb.append("<rect class=\"bar\" x=\"")
          .append(num(x0))
          .append("\" y=\"")
          .append(num(AXIS_Y - h))
          .append("\" width=\"")
          .append(num(w))
          .append("\" height=\"")
          .append(num(h))
          .append("\"><title>")
          .append(
              escape(
                  String.format(
                      Locale.ROOT,
                      "%s to %s: %,d",
                      duration(b.lowNanos()),
                      duration(b.highNanos()),
                      b.count())))
          .append("</title></rect>\n");
    }
    sb.append("</g>\n");

    // p50 labelled to the left of its mark, p99 to the right, so close marks stay readable.
    mark(sb, "p50", axis.x(t.p50()), "end", -3, P50_COLOR);
    mark(sb, "p99", axis.x(t.p99()), "start", 3, P99_COLOR);
    sb.append("</g>\n");
  }

  private static void mark(
      StringBuilder sb, String name, double x, String anchor, int dx, String color) {
    String xs = num(x);
    sb.append("<line class=\"").append(name).append("\" x1=\"").append(xs);
    sb.append("\" y1=\"").append(MARK_TOP).append("\" x2=\"").append(xs);
    sb.append("\" y2=\"").append(AXIS_Y).append("\" stroke=\"").append(color);
    sb.append("\" stroke-width=\"1.5\"/>\n");
    sb.append("<text class=\"").append(name).append("-label\" x=\"").append(num(x + dx));
    sb.append("\" y=\"").append(MARK_TOP + 8).append("\" font-size=\"10\" fill=\"");
    sb.append(color).append("\" text-anchor=\"").append(anchor).append("\">");
    sb.append(name).append("</text>\n");
  }

  private static void line(
      StringBuilder sb, String cls, String x1, int y1, String x2, int y2, String color) {
    sb.append("<line class=\"").append(cls).append("\" x1=\"").append(x1);
    sb.append("\" y1=\"").append(y1).append("\" x2=\"").append(x2);
    sb.append("\" y2=\"").append(y2).append("\" stroke=\"").append(color).append("\"/>\n");
  }

  /**
   * The shared time axis: logarithmic, from {@code lo} at {@link #PLOT_LEFT} to {@code hi} at
   * {@link #PLOT_RIGHT}, in nanoseconds (at least 1, so a bucket from 0 starts at the left edge).
   */
  record Axis(long lo, long hi) {
    static Axis of(List<DigestReport.Entry> drawn) {
      long lo = Long.MAX_VALUE;
      long hi = Long.MIN_VALUE;
      for (DigestReport.Entry e : drawn) {
        for (DigestReport.Bucket b : e.times().histogram()) {
          lo = Math.min(lo, b.lowNanos());
          hi = Math.max(hi, b.highNanos());
        }
      }
      lo = Math.max(lo, 1);
      hi = Math.max(hi, lo + 1);
      return new Axis(lo, hi);
    }

    double x(long nanos) {
      double span = Math.log10((double) hi) - Math.log10((double) lo);
      double f = (Math.log10((double) Math.max(nanos, 1)) - Math.log10((double) lo)) / span;
      f = Math.min(1.0, Math.max(0.0, f));
      return PLOT_LEFT + f * (PLOT_RIGHT - PLOT_LEFT);
    }

    /**
     * The powers of ten within the axis; where fewer than two are, also their doubles and fives (1,
     * 2, 5, 10, 20, 50, ...), so a narrow axis still has a scale.
     */
    List<Long> ticks() {
      List<Long> decades = multiples(new long[] {1});
      return decades.size() >= 2 ? decades : multiples(new long[] {1, 2, 5});
    }

    private List<Long> multiples(long[] factors) {
      List<Long> out = new ArrayList<>();
      for (long p = 1; ; p *= 10) {
        for (long f : factors) {
          long v = p * f;
          if (v >= lo && v <= hi) {
            out.add(v);
          }
        }
        if (p > hi / 10) {
          return out;
        }
      }
    }
  }

  /** A tick's label: a value 1, 2 or 5 times a power of ten, in the largest unit that fits. */
  static String tickLabel(long nanos) {
    int u = 0;
    long unit = 1;
    while (u < UNITS.length - 1 && nanos >= unit * 1000) {
      unit *= 1000;
      u++;
    }
    return (nanos / unit) + " " + UNITS[u];
  }

  /** A duration to three significant digits, in ns, µs, ms or s. */
  static String duration(long nanos) {
    if (nanos < 1000) {
      return nanos + " ns";
    }
    int u = 1;
    double unit = 1e3;
    while (u < UNITS.length - 1 && nanos >= unit * 1000) {
      unit *= 1000;
      u++;
    }
    double v = nanos / unit;
    // 999,999 ns would print as "1000 µs": say "1.00 ms".
    if (u < UNITS.length - 1 && Math.round(v) >= 1000) {
      v /= 1000;
      u++;
    }
    String pattern = v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s";
    return String.format(Locale.ROOT, pattern, v, UNITS[u]);
  }

  /** A coordinate, to two decimals. */
  private static String num(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  /**
   * Captured text made fit for one line of an image: characters XML 1.0 does not allow (and the DEL
   * and C1 controls, which it allows but nothing shows) become U+FFFD, runs of spaces, tabs and
   * line ends become one space and the ends are trimmed (SVG would drop the line ends, joining
   * words), and past {@code max} code points it is cut, whole code points only, to {@code max - 1}
   * and an ellipsis. Not yet escaped.
   */
  static String text(String s, int max) {
    StringBuilder out = new StringBuilder(Math.min(s.length(), max + 1) + 1);
    int points = 0;
    boolean space = false;
    int i = 0;
    while (i < s.length() && points <= max) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') {
        space = points > 0;
        continue;
      }
      if (space) {
        out.append(' ');
        points++;
        space = false;
      }
      out.appendCodePoint(allowed(cp) ? cp : 0xFFFD);
      points++;
    }
    if (points <= max) {
      return out.toString();
    }
    int cut = out.offsetByCodePoints(0, max - 1);
    out.setLength(cut);
    // No space before the ellipsis.
    if (cut > 0 && out.charAt(cut - 1) == ' ') {
      out.setLength(cut - 1);
    }
    return out.append('\u2026').toString();
  }

  /** Whether XML 1.0 allows the code point (and it is not DEL or a C1 control). */
  private static boolean allowed(int cp) {
    if (cp < 0x20) {
      return cp == '\t' || cp == '\n' || cp == '\r';
    }
    if (cp >= 0x7F && cp <= 0x9F) {
      return false;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) {
      return false;
    }
    return cp != 0xFFFE && cp != 0xFFFF;
  }

  /** Escapes the five characters XML gives a meaning, for text and attribute values alike. */
  static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
