package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The text checks of a lazy page's structural parse, which accept text without decoding it: whether
 * bytes are all ASCII (below 0x80), read eight at a time, and whether they are well-formed UTF-8
 * (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no cut
 * sequences), which is exactly what the JDK's UTF-8 decoder accepts. Text either check refuses goes
 * to {@link TextDeserializer}, whose decoder gives the error and its offset; the parse and a
 * differential fuzz target hold the two judgements equal.
 */
final class TextChecks {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

  private static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private static final long HIGH_BITS = 0x8080808080808080L;

  private TextChecks() {}

  /** Whether {@code [index, index + length)} of {@code buf} are all below 0x80. */
  static boolean ascii(ByteBuf buf, int index, int length) {
    if (buf.hasArray()) {
      return ascii(buf.array(), buf.arrayOffset() + index, length);
    }
    for (int i = 0; i < length; i++) {
      if (buf.getByte(index + i) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code [from, from + length)} of {@code a} are all below 0x80: words of eight bytes,
   * the last one overlapping the one before it, so that no byte loop ends the check.
   */
  static boolean ascii(byte[] a, int from, int length) {
    int end = from + length;
    if (length >= 8) {
      long high = (long) LONG.get(a, end - 8);
      for (int i = from; i < end - 8; i += 8) {
        high |= (long) LONG.get(a, i);
      }
      return (high & HIGH_BITS) == 0;
    }
    int high = 0;
    for (int i = from; i < end; i++) {
      high |= a[i];
    }
    return high >= 0;
  }

  /**
   * Whether {@code [from, from + length)} of {@code a} are well-formed UTF-8: runs of ASCII sixteen
   * bytes at a time, then the sequences that follow one after another, each judged from one
   * big-endian word while four bytes remain, the last ones byte by byte.
   */
  static boolean utf8(byte[] a, int from, int length) {
    int i = from;
    int end = from + length;
    while (true) {
      while (i <= end - 16
          && (((long) LONG.get(a, i) | (long) LONG.get(a, i + 8)) & HIGH_BITS) == 0) {
        i += 16;
      }
      if (i <= end - 8 && ((long) LONG.get(a, i) & HIGH_BITS) == 0) {
        i += 8;
      }
      while (i < end && a[i] >= 0) {
        i++;
      }
      if (i == end) {
        return true;
      }
      // a[i] is a lead byte or a stray continuation byte
      while (i <= end - 4) {
        int w = (int) INT_BE.get(a, i);
        if (w >= 0) {
          break; // ASCII again
        }
        int n = sequence(w);
        if (n == 0) {
          return false;
        }
        i += n;
      }
      if (i > end - 4) {
        return tail(a, i, end);
      }
    }
  }

  /**
   * The length of the well-formed sequence whose lead byte is the top byte of {@code w} (the next
   * four bytes, big-endian, the lead at or above 0x80), or 0 when it is not well-formed.
   */
  private static int sequence(int w) {
    if ((w & 0xE0C0_0000) == 0xC080_0000) {
      return (w & 0x1E00_0000) != 0 ? 2 : 0; // not C0 or C1, whose forms are overlong
    }
    if ((w & 0xF0C0_C000) == 0xE080_8000) {
      int cp = (w >>> 12 & 0xF000) | (w >>> 10 & 0x0FC0) | (w >>> 8 & 0x003F);
      return cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) ? 3 : 0; // not overlong, no surrogate
    }
    if ((w & 0xF8C0_C0C0) == 0xF080_8080) {
      int cp = (w >>> 6 & 0x1C_0000) | (w >>> 4 & 0x3_F000) | (w >>> 2 & 0x0FC0) | (w & 0x3F);
      return cp >= 0x1_0000 && cp <= 0x10_FFFF ? 4 : 0; // not overlong, not above U+10FFFF
    }
    return 0;
  }

  /** Whether {@code [i, end)} of {@code a}, fewer than four bytes, are well-formed UTF-8. */
  private static boolean tail(byte[] a, int i, int end) {
    while (i < end) {
      int b = a[i];
      if (b >= 0) {
        i++;
        continue;
      }
      b &= 0xFF;
      if (b < 0xC2) {
        return false; // a continuation byte, or an overlong two-byte form
      } else if (b < 0xE0) {
        if (end - i < 2 || !continuation(a[i + 1])) {
          return false;
        }
        i += 2;
      } else if (b < 0xF0) {
        if (end - i < 3) {
          return false;
        }
        int b1 = a[i + 1] & 0xFF;
        int lo = b == 0xE0 ? 0xA0 : 0x80; // no overlong form
        int hi = b == 0xED ? 0x9F : 0xBF; // no surrogate
        if (b1 < lo || b1 > hi || !continuation(a[i + 2])) {
          return false;
        }
        i += 3;
      } else {
        return false; // a four-byte lead with fewer than four bytes left, or above 0xF4
      }
    }
    return true;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}
