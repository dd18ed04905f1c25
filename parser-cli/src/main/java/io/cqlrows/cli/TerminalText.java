package io.cqlrows.cli;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Text from a server or a capture made safe for a terminal: every character a terminal would act on
 * rather than show is written as an escape, in the convention of the canonical JSON rendering of
 * cells ({@code \n}, {@code \t}, {@code \r}, {@code \b}, {@code \f}, else {@code \}{@code uxxxx} in
 * lowercase hex; ESC shows as {@code \}{@code u001b}). Those characters are the C0 controls, DEL,
 * the C1 controls (U+0080 to U+009F, U+009B being a CSI of its own) and the bidi overrides and
 * isolates (U+202A to U+202E, U+2066 to U+2069), which reorder the characters that follow them.
 * Every other character, printable non-ASCII included, is kept. A backslash is kept as it is: this
 * is for titles, names and messages, which are read, not parsed. Stateless.
 */
final class TerminalText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private TerminalText() {}

  /** Whether a terminal acts on code point {@code c} rather than showing it. */
  static boolean isControl(int c) {
    return c < 0x20
        || (c >= 0x7f && c <= 0x9f)
        || (c >= 0x202a && c <= 0x202e)
        || (c >= 0x2066 && c <= 0x2069);
  }

  /** {@code s} with every {@linkplain #isControl control} escaped; {@code s} if it has none. */
  static String escape(String s) {
    int n = s.length();
    int i = 0;
    while (i < n && !isControl(s.charAt(i))) {
      i++;
    }
    if (i == n) {
      return s;
    }
    StringBuilder sb = new StringBuilder(n + 16).append(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (isControl(c)) {
        sb.append(escapeOf(c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** The escape of a control: {@code \n}, {@code \t}, ... or {@code \}{@code uxxxx}. */
  static String escapeOf(int c) {
    return switch (c) {
      case '\b' -> "\\b";
      case '\t' -> "\\t";
      case '\n' -> "\\n";
      case '\f' -> "\\f";
      case '\r' -> "\\r";
      default ->
          new String(
              new char[] {
                '\\',
                'u',
                HEX[(c >> 12) & 0xF],
                HEX[(c >> 8) & 0xF],
                HEX[(c >> 4) & 0xF],
                HEX[c & 0xF]
              });
    };
  }

  /**
   * The UTF-8 stream of a terminal's stderr with every {@linkplain #isControl control} escaped,
   * except the line feed, TAB (it only moves the cursor right; the Arrow output separates a file
   * from its row count with it) and a carriage return on a line it may redraw: a carriage return is
   * kept at the start of a line, and on a line that began with one (a progress line, which redraws
   * itself), and escaped elsewhere, so that no text can return over the start of a message and hide
   * it. The UTF-8 encoding of a C1 control or a bidi character is held until its last byte; {@link
   * #flush} keeps it held, {@link #close} writes what is held. Not thread-safe (a {@link
   * java.io.PrintStream} in front of it serialises its writes).
   */
  static final class Filter extends FilterOutputStream {
    /** The first bytes of a held sequence ({@code C2} or {@code E2} and its continuations). */
    private final byte[] held = new byte[3];

    private int heldCount;

    /** Nothing has been written on the current line yet. */
    private boolean lineStart = true;

    /** The current line began with a carriage return. */
    private boolean redrawn;

    /** What one write passes on, written at its end. */
    private final ByteArrayOutputStream pass = new ByteArrayOutputStream(256);

    Filter(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      add(b & 0xFF);
      drain();
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        add(b[i] & 0xFF);
      }
      drain();
    }

    private void add(int b) {
      if (heldCount > 0) {
        if ((b & 0xC0) == 0x80) {
          held[heldCount++] = (byte) b;
          int lead = held[0] & 0xFF;
          if (heldCount < (lead == 0xE2 ? 3 : 2)) {
            return;
          }
          int c =
              lead == 0xC2
                  ? ((lead & 0x1F) << 6) | (b & 0x3F)
                  : ((lead & 0x0F) << 12) | ((held[1] & 0x3F) << 6) | (b & 0x3F);
          if (isControl(c)) {
            text(escapeOf(c));
            heldCount = 0;
          } else {
            release();
          }
          return;
        }
        release(); // not a sequence this holds: b is looked at on its own
      }
      if (b == 0xC2 || b == 0xE2) { // leads of U+0080-U+00BF and U+2000-U+2FFF
        held[heldCount++] = (byte) b;
      } else if (b == '\n') {
        pass.write(b);
        lineStart = true;
        redrawn = false;
      } else if (b == '\r' && (lineStart || redrawn)) {
        pass.write(b);
        lineStart = false;
        redrawn = true;
      } else if ((b < 0x20 && b != '\t') || b == 0x7F) { // (0x80-0x9F: continuation bytes)
        text(escapeOf(b));
      } else {
        pass.write(b);
        lineStart = false;
      }
    }

    private void release() {
      pass.write(held, 0, heldCount);
      heldCount = 0;
      lineStart = false;
    }

    private void text(String ascii) {
      for (int i = 0; i < ascii.length(); i++) {
        pass.write(ascii.charAt(i));
      }
      lineStart = false;
    }

    private void drain() throws IOException {
      if (pass.size() > 0) {
        pass.writeTo(out);
        pass.reset();
      }
    }

    @Override
    public void close() throws IOException {
      release();
      drain();
      super.close();
    }
  }
}
