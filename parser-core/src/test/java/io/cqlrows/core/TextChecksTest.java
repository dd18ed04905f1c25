package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link TextChecks} against the JDK's UTF-8 decoder, which has the last word on text. */
class TextChecksTest {
  private final CharsetDecoder jdk =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  private boolean jdkAccepts(byte[] b, int from, int length) {
    try {
      jdk.reset().decode(ByteBuffer.wrap(b, from, length));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private void assertSameVerdict(byte[] b, int from, int length) {
    boolean expected = jdkAccepts(b, from, length);
    assertEquals(
        expected,
        TextChecks.utf8(b, from, length),
        () -> HexFormat.of().formatHex(b, from, from + length));
  }

  /** Bytes around every boundary of the UTF-8 table (ASCII, continuation ranges, leads). */
  private static final int[] EDGES = {
    0x00, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED,
    0xEF, 0xF0, 0xF4, 0xF5, 0xFF
  };

  /**
   * Every one- and two-byte sequence, and three-byte sequences of every first and second byte with
   * a third at each edge (every third byte after a three- or four-byte lead), after an ASCII prefix
   * that crosses a word boundary: at the end of the text, and followed by ASCII, so that both the
   * byte-by-byte tail and the word-at-a-time judgement of a sequence see each of them.
   */
  @Test
  void everyShortSequenceIsJudgedAsTheJdkJudgesIt() {
    byte[] b = new byte[13];
    java.util.Arrays.fill(b, (byte) 'a');
    int accepted = 0;
    for (int x = 0; x < 256; x++) {
      b[7] = (byte) x;
      assertSameVerdict(b, 0, 8);
      for (int y = 0; y < 256; y++) {
        b[8] = (byte) y;
        b[9] = 'a';
        assertSameVerdict(b, 0, 9);
        assertSameVerdict(b, 0, 13);
        if (x >= 0xE0 && java.util.Arrays.binarySearch(EDGES, y) >= 0) {
          for (int z = 0; z < 256; z++) {
            b[9] = (byte) z;
            assertSameVerdict(b, 0, 10);
            assertSameVerdict(b, 0, 13);
          }
        }
        for (int z : EDGES) {
          b[9] = (byte) z;
          boolean ok = jdkAccepts(b, 0, 10);
          assertEquals(ok, TextChecks.utf8(b, 0, 10));
          accepted += ok ? 1 : 0;
          assertSameVerdict(b, 0, 13);
        }
      }
    }
    assertTrue(accepted > 10_000, accepted + " accepted"); // a sanity check of the loop
  }

  /**
   * Four-byte sequences by every lead byte above 0xEF and a spread of continuation bytes, cut at
   * each length and followed by ASCII.
   */
  @Test
  void fourByteSequencesAreJudgedAsTheJdkJudgesThem() {
    int[] seconds = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
    byte[] b = {0, 0, 0, 0, 'a', 'b', 'c'};
    for (int lead = 0xF0; lead <= 0xFF; lead++) {
      for (int s : seconds) {
        for (int t : seconds) {
          for (int u : seconds) {
            b[0] = (byte) lead;
            b[1] = (byte) s;
            b[2] = (byte) t;
            b[3] = (byte) u;
            for (int n = 1; n <= b.length; n++) {
              assertSameVerdict(b, 0, n);
            }
          }
        }
      }
    }
  }

  /** Random text of valid characters, with a byte changed or cut now and then. */
  @Test
  void randomTextIsJudgedAsTheJdkJudgesIt() {
    Random r = new Random(28);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder sb = new StringBuilder();
      int n = r.nextInt(40);
      for (int k = 0; k < n; k++) {
        int kind = r.nextInt(4);
        sb.appendCodePoint(
            switch (kind) {
              case 0 -> 0x20 + r.nextInt(0x5F);
              case 1 -> 0x80 + r.nextInt(0x780);
              case 2 -> 0xE000 + r.nextInt(0x2000);
              default -> 0x10000 + r.nextInt(0x100000);
            });
      }
      byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
      if (b.length > 0 && r.nextBoolean()) {
        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
      }
      int from = b.length == 0 ? 0 : r.nextInt(Math.min(b.length, 3));
      int length = b.length - from - (b.length - from > 0 && r.nextInt(4) == 0 ? 1 : 0);
      assertSameVerdict(b, from, length);
    }
  }

  @Test
  void asciiIsBytesBelow0x80() {
    byte[] b = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);
    assertTrue(TextChecks.ascii(b, 0, b.length));
    for (int i = 0; i < b.length; i++) {
      byte[] c = b.clone();
      c[i] = (byte) 0x80;
      assertEquals(false, TextChecks.ascii(c, 0, c.length), "at " + i);
      assertTrue(TextChecks.ascii(c, 0, i), "before " + i);
    }
  }
}
