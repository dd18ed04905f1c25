package io.cqlrows.capture.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.NodeList;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;

class DigestSvgTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private static DigestReport.Bucket bucket(long low, long high, long count) {
    return new DigestReport.Bucket(low, high, count);
  }

  /** Times with the given p50 and p99 over the buckets. */
  private static DigestReport.Times times(long p50, long p99, DigestReport.Bucket... buckets) {
    long count = 0;
    long total = 0;
    for (DigestReport.Bucket b : buckets) {
      count += b.count();
      total += b.count() * b.lowNanos();
    }
    return new DigestReport.Times(
        count,
        buckets[0].lowNanos(),
        p50,
        p99,
        p99,
        buckets[buckets.length - 1].highNanos() - 1,
        total,
        List.of(buckets));
  }

  private static DigestReport.Entry statement(String text, DigestReport.Times times) {
    return new DigestReport.Entry(
        text, "QUERY", times == null ? 7 : times.count(), 0, Map.of(), 0, 0, 0, 0, 0, times);
  }

  private static DigestReport report(
      String file, boolean timed, List<DigestReport.Entry> statements) {
    return new DigestReport(
        file,
        timed,
        1,
        1,
        4096,
        timed ? 1 : 0,
        timed ? 2 : 0,
        statements,
        statements.size(),
        List.of(),
        0,
        List.of(),
        List.of());
  }

  private static DigestReport report(List<DigestReport.Entry> statements) {
    return report("capture.pcap", true, statements);
  }

  /** Parses strictly: namespaces on, no DTD, no entities; any error fails. */
  private static Document parse(String svg) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    f.setFeature("http://xml.org/sax/features/external-general-entities", false);
    f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
    f.setXIncludeAware(false);
    f.setExpandEntityReferences(false);
    DocumentBuilder b = f.newDocumentBuilder();
    b.setErrorHandler(
        new ErrorHandler() {
          @Override
          public void warning(SAXParseException e) throws SAXParseException {
            throw e;
          }

          @Override
          public void error(SAXParseException e) throws SAXParseException {
            throw e;
          }

          @Override
          public void fatalError(SAXParseException e) throws SAXParseException {
            throw e;
          }
        });
    Document doc = b.parse(new InputSource(new StringReader(svg)));
    Element root = doc.getDocumentElement();
    assertEquals("svg", root.getLocalName());
    assertEquals(DigestSvg.SVG_NS, root.getNamespaceURI());
    return doc;
  }

  private static List<Element> all(Element root) {
    List<Element> out = new ArrayList<>();
    out.add(root);
    NodeList nodes = root.getElementsByTagNameNS("*", "*");
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add((Element) nodes.item(i));
    }
    return out;
  }

  private static List<Element> byClass(Element root, String cls) {
    return all(root).stream().filter(e -> cls.equals(e.getAttribute("class"))).toList();
  }

  private static List<Element> byClass(Document doc, String cls) {
    return byClass(doc.getDocumentElement(), cls);
  }

  private static List<String> texts(List<Element> elements) {
    return elements.stream().map(Element::getTextContent).toList();
  }

  private static double attr(Element e, String name) {
    return Double.parseDouble(e.getAttribute(name));
  }

  /** The text of a tick label, back in nanoseconds. */
  private static long nanos(String label) {
    int space = label.indexOf(' ');
    assertTrue(space > 0 && space == label.lastIndexOf(' '), label);
    long unit =
        switch (label.substring(space + 1)) {
          case "ns" -> 1;
          case "\u00b5s" -> US;
          case "ms" -> MS;
          case "s" -> 1_000_000_000L;
          default -> throw new AssertionError("unit of " + label);
        };
    return Long.parseLong(label.substring(0, space)) * unit;
  }

  private static boolean powerOfTen(long v) {
    long p = 1;
    while (p < v) {
      p *= 10;
    }
    return p == v;
  }

  /** Two statements 100 µs to 110 ms: decades at equal steps on the axis. */
  private static DigestReport decades() {
    return report(
        List.of(
            statement(
                "SELECT a FROM t",
                times(MS, MS, bucket(100 * US, 110 * US, 5), bucket(MS, 1_100 * US, 10))),
            statement(
                "SELECT b FROM t",
                times(
                    10 * MS,
                    100 * MS,
                    bucket(10 * MS, 11 * MS, 3),
                    bucket(100 * MS, 110 * MS, 1)))));
  }

  @Test
  void isAStandaloneSvgDocument() throws Exception {
    String svg = decades().toSvg(5);
    assertTrue(svg.startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "), svg);
    Document doc = parse(svg);
    Element root = doc.getDocumentElement();
    assertEquals("1.1", root.getAttribute("version"));
    assertEquals(String.valueOf(DigestSvg.WIDTH), root.getAttribute("width"));
    int height = Integer.parseInt(root.getAttribute("height"));
    assertTrue(height > 0);
    assertEquals("0 0 " + DigestSvg.WIDTH + " " + height, root.getAttribute("viewBox"));
    for (Element e : all(root)) {
      assertFalse(
          List.of("script", "foreignObject", "image", "use", "a", "style")
              .contains(e.getLocalName()),
          e.getLocalName());
      NamedNodeMap attrs = e.getAttributes();
      for (int i = 0; i < attrs.getLength(); i++) {
        Attr a = (Attr) attrs.item(i);
        assertFalse(a.getLocalName().equals("href"), "no links");
        assertFalse(a.getLocalName().startsWith("on"), "no handlers: " + a.getName());
        assertFalse(a.getValue().contains("url("), "no references: " + a.getValue());
        if (List.of("x", "y", "width", "height", "x1", "x2", "y1", "y2").contains(a.getName())
            && !a.getValue().endsWith("%")) {
          assertTrue(Double.isFinite(Double.parseDouble(a.getValue())), a.getValue());
        }
      }
    }
    assertEquals(
        List.of("capture.pcap \u2014 response times of the top 2 statements (of 2), by total time"),
        texts(byClass(doc, "title")));
    assertEquals(DigestSvg.render(decades(), 5), svg);
  }

  @Test
  void drawsOneBarPerBucketOfTheDrawnStatements() throws Exception {
    DigestReport r =
        report(
            List.of(
                statement(
                    "one", times(MS, MS, bucket(MS, MS + 10 * US, 4), bucket(2 * MS, 3 * MS, 1))),
                statement("none", null),
                statement(
                    "two",
                    times(
                        3 * MS,
                        9 * MS,
                        bucket(MS, MS + 10 * US, 2),
                        bucket(3 * MS, 3 * MS + 40 * US, 8),
                        bucket(9 * MS, 9 * MS + 80 * US, 1))),
                statement(
                    "three",
                    times(
                        5 * US,
                        20 * MS,
                        bucket(5 * US, 6 * US, 9),
                        bucket(7 * US, 8 * US, 3),
                        bucket(50 * US, 51 * US, 2),
                        bucket(20 * MS, 21 * MS, 6)))));
    Document doc = parse(r.toSvg(10));
    assertEquals(2 + 3 + 4, byClass(doc, "bar").size());
    List<Element> panels = byClass(doc, "panel");
    assertEquals(3, panels.size());
    List<List<Long>> counts =
        List.of(List.of(4L, 1L), List.of(2L, 8L, 1L), List.of(9L, 3L, 2L, 6L));
    for (int p = 0; p < panels.size(); p++) {
      List<Element> bars = byClass(panels.get(p), "bar");
      List<Long> c = counts.get(p);
      assertEquals(c.size(), bars.size());
      long max = c.stream().mapToLong(Long::longValue).max().orElseThrow();
      double axisY = attr(byClass(panels.get(p), "axis").get(0), "y1");
      for (int i = 0; i < bars.size(); i++) {
        Element bar = bars.get(i);
        // Linear: height proportional to the count, the panel's largest at full height.
        double expected = Math.max(1.0, (double) c.get(i) / max * DigestSvg.BAR_HEIGHT);
        assertEquals(expected, attr(bar, "height"), 0.01);
        assertEquals(axisY, attr(bar, "y") + attr(bar, "height"), 0.02, "standing on the axis");
        assertTrue(attr(bar, "width") >= 1.0);
        assertTrue(bar.getTextContent().endsWith(": " + c.get(i)), bar.getTextContent());
      }
      // Bars are left to right, as the buckets ascend.
      for (int i = 1; i < bars.size(); i++) {
        assertTrue(attr(bars.get(i), "x") > attr(bars.get(i - 1), "x"));
      }
    }
  }

  @Test
  void panelsShareOneLogarithmicAxis() throws Exception {
    Document doc = parse(decades().toSvg(5));
    List<Element> bars = byClass(doc, "bar");
    assertEquals(4, bars.size());
    double span = DigestSvg.PLOT_RIGHT - DigestSvg.PLOT_LEFT;
    double decade = span / Math.log10(1100.0); // 100 µs .. 110 ms
    // Bars at 100 µs, 1 ms (panel 1), 10 ms, 100 ms (panel 2): one decade apart, across panels.
    for (int i = 0; i < 4; i++) {
      assertEquals(DigestSvg.PLOT_LEFT + i * decade, attr(bars.get(i), "x"), 0.02);
    }
    Element last = bars.get(3);
    assertEquals(DigestSvg.PLOT_RIGHT, attr(last, "x") + attr(last, "width"), 0.02);
    // The ticks are the same in both panels, at the decades.
    List<Element> panels = byClass(doc, "panel");
    for (Element panel : panels) {
      List<Element> ticks = byClass(panel, "tick");
      assertEquals(List.of("100 \u00b5s", "1 ms", "10 ms", "100 ms"), texts(ticks));
      for (int i = 0; i < ticks.size(); i++) {
        assertEquals(DigestSvg.PLOT_LEFT + i * decade, attr(ticks.get(i), "x"), 0.02);
      }
    }
    // p50 and p99 marks, on the same scale: panel 1 has both at 1 ms, panel 2 at 10 and 100 ms.
    double[][] marks = {{1, 1}, {2, 3}};
    for (int p = 0; p < 2; p++) {
      Element p50 = byClass(panels.get(p), "p50").get(0);
      Element p99 = byClass(panels.get(p), "p99").get(0);
      assertEquals(attr(p50, "x1"), attr(p50, "x2"), 0.0, "vertical");
      assertEquals(DigestSvg.PLOT_LEFT + marks[p][0] * decade, attr(p50, "x1"), 0.02);
      assertEquals(DigestSvg.PLOT_LEFT + marks[p][1] * decade, attr(p99, "x1"), 0.02);
      assertEquals(List.of("p50"), texts(byClass(panels.get(p), "p50-label")));
      assertEquals(List.of("p99"), texts(byClass(panels.get(p), "p99-label")));
    }
  }

  @Test
  void tickLabelsAreIncreasingPowersOfTen() throws Exception {
    DigestReport r =
        report(
            List.of(
                statement(
                    "fast", times(3, 70, bucket(0, 1, 2), bucket(3, 4, 5), bucket(70, 71, 1))),
                statement(
                    "slow",
                    times(
                        40 * MS,
                        3_000 * MS,
                        bucket(40 * MS, 41 * MS, 1),
                        bucket(3_000 * MS, 3_050 * MS, 1)))));
    Document doc = parse(r.toSvg(2));
    for (Element panel : byClass(doc, "panel")) {
      List<String> labels = texts(byClass(panel, "tick"));
      assertEquals(
          List.of(
              "1 ns",
              "10 ns",
              "100 ns",
              "1 \u00b5s",
              "10 \u00b5s",
              "100 \u00b5s",
              "1 ms",
              "10 ms",
              "100 ms",
              "1 s"),
          labels);
      long previous = 0;
      for (String label : labels) {
        long v = nanos(label);
        assertTrue(powerOfTen(v), label);
        assertTrue(previous == 0 || v == previous * 10, label);
        previous = v;
      }
      List<Element> ticks = byClass(panel, "tick");
      for (int i = 1; i < ticks.size(); i++) {
        assertTrue(attr(ticks.get(i), "x") > attr(ticks.get(i - 1), "x"));
      }
    }
    // A bucket from 0 ns starts at the left edge: the axis starts at 1 ns.
    assertEquals(DigestSvg.PLOT_LEFT, attr(byClass(doc, "bar").get(0), "x"), 0.0);
  }

  @Test
  void aNarrowAxisIsLabelledAtOneTwoAndFive() throws Exception {
    DigestReport r =
        report(
            List.of(
                statement(
                    "narrow",
                    times(
                        2 * MS,
                        8 * MS,
                        bucket(2 * MS, 2_100 * US, 3),
                        bucket(8 * MS, 9 * MS, 1)))));
    Document doc = parse(r.toSvg(1));
    assertEquals(List.of("2 ms", "5 ms"), texts(byClass(doc, "tick")));
    assertEquals(
        List.of("capture.pcap \u2014 response times of the top 1 statement (of 1), by total time"),
        texts(byClass(doc, "title")));
  }

  @Test
  void hostileStatementTextStaysText() throws Exception {
    String hostile =
        "SELECT * FROM t WHERE a = '</text><script>alert(1)</script>' & b = \"x\""
            + "\u0000\u0001\u001b\u007f\u0085 c\uD800d\uDC00 e \uFFFE\uFFFF \uD83D\uDE00";
    String expected =
        "SELECT * FROM t WHERE a = '</text><script>alert(1)</script>' & b = \"x\""
            + "\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD c\uFFFDd\uFFFD e \uFFFD\uFFFD \uD83D\uDE00";
    DigestReport r =
        report(
            "evil</title><script>x</script>\u0002.pcap",
            true,
            List.of(statement(hostile, times(MS, MS, bucket(MS, MS + 10 * US, 1)))));
    String svg = r.toSvg(1);
    assertFalse(svg.contains("<script"), "escaped");
    assertTrue(svg.contains("&lt;/text&gt;&lt;script&gt;"), "escaped");
    assertTrue(svg.contains("&apos;") && svg.contains("&quot;") && svg.contains("&amp;"));
    Document doc = parse(svg);
    assertEquals(0, doc.getElementsByTagNameNS("*", "script").getLength());
    assertEquals(List.of(expected), texts(byClass(doc, "statement")));
    Element panel = byClass(doc, "panel").get(0);
    Element tooltip = (Element) panel.getElementsByTagNameNS(DigestSvg.SVG_NS, "title").item(0);
    assertEquals(expected, tooltip.getTextContent());
    assertEquals(
        List.of(
            "evil</title><script>x</script>\uFFFD.pcap \u2014 response times of the top 1"
                + " statement (of 1), by total time"),
        texts(byClass(doc, "title")));
  }

  @Test
  void longTextIsCutWithAnEllipsisAndWhitespaceFolded() throws Exception {
    String longText = "SELECT " + "x, ".repeat(200) + "y FROM t";
    String emoji = "\uD83D\uDE00".repeat(150);
    DigestReport.Times t = times(MS, MS, bucket(MS, MS + 10 * US, 1));
    DigestReport r =
        report(
            List.of(
                statement(longText, t),
                statement(emoji, t),
                statement("SELECT *\n    FROM t\r\n\tWHERE  a = ?\n", t)));
    List<String> labels = texts(byClass(parse(r.toSvg(3)), "statement"));
    String cut = labels.get(0);
    assertEquals(DigestSvg.LABEL_CHARS, cut.codePointCount(0, cut.length()));
    assertEquals(longText.substring(0, DigestSvg.LABEL_CHARS - 1) + "\u2026", cut);
    // Whole code points: 99 emoji and the ellipsis, no half pair.
    assertEquals(emoji.substring(0, 2 * (DigestSvg.LABEL_CHARS - 1)) + "\u2026", labels.get(1));
    assertEquals("SELECT * FROM t WHERE a = ?", labels.get(2));
    // Exactly the limit is not cut.
    String exact = "y".repeat(DigestSvg.LABEL_CHARS);
    assertEquals(exact, DigestSvg.text(exact + "  \n", DigestSvg.LABEL_CHARS));
    assertEquals(
        "y".repeat(DigestSvg.LABEL_CHARS - 1) + "\u2026",
        DigestSvg.text(exact + " z", DigestSvg.LABEL_CHARS));
  }

  @Test
  void drawsOnlyTheFirstStatementsWithTimes() throws Exception {
    DigestReport.Times t =
        times(MS, 2 * MS, bucket(MS, MS + 10 * US, 3), bucket(2 * MS, 3 * MS, 1));
    DigestReport r =
        report(
            List.of(
                statement("A", t),
                statement("B", null),
                statement("C", t),
                statement("D", t),
                statement("E", t)));
    Document two = parse(r.toSvg(2));
    assertEquals(List.of("A", "C"), texts(byClass(two, "statement")));
    assertEquals(2, byClass(two, "panel").size());
    assertEquals(4, byClass(two, "bar").size());
    assertEquals(2, byClass(two, "p50").size());
    assertEquals(2, byClass(two, "p99").size());
    assertTrue(byClass(two, "title").get(0).getTextContent().contains("top 2 statements (of 5)"));
    Document all = parse(r.toSvg(10));
    assertEquals(List.of("A", "C", "D", "E"), texts(byClass(all, "statement")));
    assertTrue(
        Integer.parseInt(all.getDocumentElement().getAttribute("height"))
            > Integer.parseInt(two.getDocumentElement().getAttribute("height")));
    assertThrows(IllegalArgumentException.class, () -> r.toSvg(0));
  }

  @Test
  void aCaptureWithoutTimesGetsAMessage() throws Exception {
    DigestReport r = report("raw.bin", false, List.of(statement("A", null), statement("B", null)));
    Document doc = parse(r.toSvg(5));
    List<String> messages = texts(byClass(doc, "message"));
    assertEquals(1, messages.size());
    assertTrue(messages.get(0).contains("no packet times"), messages.get(0));
    assertEquals(0, byClass(doc, "panel").size());
    assertEquals(0, byClass(doc, "bar").size());
    assertEquals(0, byClass(doc, "tick").size());
    // Timed, but with nothing answered: a message too.
    Document empty = parse(report(List.of()).toSvg(5));
    assertEquals(1, byClass(empty, "message").size());
    assertEquals(0, byClass(empty, "bar").size());
  }

  @Test
  void numbersIgnoreTheDefaultLocale() throws Exception {
    DigestReport.Entry e =
        new DigestReport.Entry(
            "SELECT 1",
            "EXECUTE",
            12_345,
            0,
            Map.of(),
            0,
            0,
            0,
            0,
            0,
            new DigestReport.Times(
                12_345,
                MS,
                1_234_567,
                40 * MS,
                45_678_901,
                50 * MS,
                12_345_678_901L,
                List.of(bucket(MS, 1_100 * US, 12_000), bucket(45 * MS, 46 * MS, 345))));
    Locale saved = Locale.getDefault();
    String svg;
    try {
      Locale.setDefault(Locale.GERMANY);
      svg = report(List.of(e)).toSvg(1);
    } finally {
      Locale.setDefault(saved);
    }
    Document doc = parse(svg);
    assertEquals(
        List.of(
            "EXECUTE \u00b7 count 12,345 \u00b7 p50 1.23 ms \u00b7 p99 45.7 ms \u00b7 total 12.3 s"),
        texts(byClass(doc, "stats")));
    for (Element bar : byClass(doc, "bar")) {
      assertTrue(bar.getAttribute("x").matches("\\d+\\.\\d\\d"), bar.getAttribute("x"));
    }
  }

  @Test
  void durationsHaveThreeSignificantDigits() {
    assertEquals(
        Arrays.asList(
            "0 ns", "999 ns", "1.00 \u00b5s", "12.3 \u00b5s", "1.00 ms", "457 ms", "3600 s"),
        List.of(0L, 999L, 1_000L, 12_345L, 999_999L, 456_789_000L, 3_600_000_000_000L).stream()
            .map(DigestSvg::duration)
            .toList());
    assertEquals("100 \u00b5s", DigestSvg.tickLabel(100 * US));
    assertEquals("1 s", DigestSvg.tickLabel(1_000 * MS));
    assertEquals("1000 s", DigestSvg.tickLabel(1_000_000 * MS));
  }
}
