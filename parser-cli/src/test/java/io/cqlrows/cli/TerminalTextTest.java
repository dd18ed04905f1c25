package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.CanonicalJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link TerminalText}: the escapes of strings (the convention of the cells' canonical JSON) and
 * the stderr filter over UTF-8 bytes, a carriage return kept only where a line may redraw itself.
 */
class TerminalTextTest {
  /** Characters a terminal would act on: CSI, OSC, C1 CSI, bidi overrides and isolates, DEL. */
  static final String HOSTILE =
      "\u001b[31mred\u001b]0;pwned\u0007\u009b2J\u0085"
          + "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u007f\u0000";

  /** Printable non-ASCII: CJK, an emoji (a surrogate pair), accents, and a bidi mark. */
  static final String PRINTABLE = "名前 🦀 café ½ \u200f \u2028 \\u001b";

  @Test
  void escapesEveryControlAsTheCellsJsonDoes() {
    String escaped = TerminalText.escape("a" + HOSTILE + "\t\r\n\b\f" + "z");
    assertEquals(
        "a\\u001b[31mred\\u001b]0;pwned\\u0007\\u009b2J\\u0085"
            + "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u007f\\u0000"
            + "\\t\\r\\n\\b\\f"
            + "z",
        escaped);
    // the C0 controls and DEL are escaped exactly as the canonical JSON of a cell has them
    for (char c = 0; c < 0x20; c++) {
      StringBuilder json = new StringBuilder();
      CanonicalJson.appendString(json, String.valueOf(c));
      assertEquals(json.substring(1, json.length() - 1), TerminalText.escape(String.valueOf(c)));
    }
    assertEquals("\\u007f", TerminalText.escape("\u007f"));
  }

  @Test
  void keepsPrintableTextAndReturnsItAsItIs() {
    assertSame(PRINTABLE, TerminalText.escape(PRINTABLE));
    assertEquals("x" + PRINTABLE + "\\u202ey", TerminalText.escape("x" + PRINTABLE + "\u202ey"));
  }

  @Test
  void classifiesTheBoundariesOfEachRange() {
    for (int c : new int[] {0x00, 0x1f, 0x7f, 0x80, 0x9f, 0x202a, 0x202e, 0x2066, 0x2069}) {
      assertTrue(TerminalText.isControl(c), Integer.toHexString(c));
    }
    for (int c : new int[] {0x20, 0x7e, 0xa0, 0x2029, 0x202f, 0x2065, 0x206a, 0x1f980}) {
      assertFalse(TerminalText.isControl(c), Integer.toHexString(c));
    }
  }

  @Test
  void filterEscapesControlsInTheByteStreamAndKeepsLinesAndTabs() throws IOException {
    String text = "cqlrows: x: " + HOSTILE + " " + PRINTABLE + "\tcol\n" + "second line\n";
    String expected =
        "cqlrows: x: " + TerminalText.escape(HOSTILE) + " " + PRINTABLE + "\tcol\nsecond line\n";
    assertEquals(expected, filtered(text.getBytes(StandardCharsets.UTF_8), 1 << 20));
  }

  /** A C1 control or bidi character split over two writes is still seen whole. */
  @Test
  void filterSeesSequencesSplitAcrossWrites() throws IOException {
    byte[] bytes =
        ("a\u009bb\u202ec\u2069d€e\u00a0f\u2014g\u20ach" + PRINTABLE)
            .getBytes(StandardCharsets.UTF_8);
    String expected = "a\\u009bb\\u202ec\\u2069d€e\u00a0f\u2014g\u20ach" + PRINTABLE;
    for (int chunk = 1; chunk <= 4; chunk++) {
      assertEquals(expected, filtered(bytes, chunk), "writes of " + chunk + " bytes");
    }
  }

  /** A lead byte not followed by what it leads is passed on, and so is the byte after it. */
  @Test
  void filterPassesBytesThatAreNotAControlsEncoding() throws IOException {
    byte[] bytes = {
      (byte) 0xc2, 'A', (byte) 0xe2, (byte) 0x80, 0x1b, (byte) 0xe2, (byte) 0xc2, (byte) 0x9b
    };
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    TerminalText.Filter filter = new TerminalText.Filter(sink);
    filter.write(bytes);
    filter.close();
    byte[] want = {
      (byte) 0xc2,
      'A',
      (byte) 0xe2,
      (byte) 0x80,
      '\\',
      'u',
      '0',
      '0',
      '1',
      'b',
      (byte) 0xe2,
      '\\',
      'u',
      '0',
      '0',
      '9',
      'b'
    };
    assertEquals(
        new String(want, StandardCharsets.ISO_8859_1), sink.toString(StandardCharsets.ISO_8859_1));
  }

  /**
   * A progress line redraws itself with a carriage return at its start; a carriage return inside a
   * message (which could return over its start and hide it) is escaped.
   */
  @Test
  void filterKeepsACarriageReturnOnlyWhereALineRedrawsItself() throws IOException {
    String progress = "\r1 pages, 10 rows\r2 pages, 20 rows\r2 pages, 20 rows   \n";
    assertEquals(progress, filtered(progress.getBytes(StandardCharsets.UTF_8), 1 << 20));
    String spoof = "cqlrows: Invalid: x\rcqlrows: all is well\n\r3 pages\n";
    assertEquals(
        "cqlrows: Invalid: x\\rcqlrows: all is well\n\r3 pages\n",
        filtered(spoof.getBytes(StandardCharsets.UTF_8), 1 << 20));
  }

  /** A held lead byte is not written by a flush (its sequence may still come), but by close. */
  @Test
  void filterHoldsAnUnfinishedSequenceUntilClose() throws IOException {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    TerminalText.Filter filter = new TerminalText.Filter(sink);
    filter.write(new byte[] {'a', (byte) 0xe2, (byte) 0x80});
    filter.flush();
    assertEquals(1, sink.size());
    filter.write(0xae);
    assertEquals("a\\u202e", sink.toString(StandardCharsets.UTF_8));
    filter.write(new byte[] {(byte) 0xe2});
    filter.close();
    assertEquals(8, sink.size(), "the lone lead byte, at close");
  }

  /** {@code bytes} through a filter in writes of {@code chunk} bytes, as UTF-8. */
  private static String filtered(byte[] bytes, int chunk) throws IOException {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    try (TerminalText.Filter filter = new TerminalText.Filter(sink)) {
      for (int i = 0; i < bytes.length; i += chunk) {
        if (chunk == 1) {
          filter.write(bytes[i]);
        } else {
          filter.write(bytes, i, Math.min(chunk, bytes.length - i));
        }
      }
    }
    return sink.toString(StandardCharsets.UTF_8);
  }
}
