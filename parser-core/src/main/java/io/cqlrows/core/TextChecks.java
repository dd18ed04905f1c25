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

  /** Whether {@code [from, from + length)} of {@code a} are well-formed UTF-8. */
  static boolean utf8(byte[] a, int from, int length) {
    int i = from;
    int end = from + length;
    while (i < end) {
      // runs of ASCII, eight bytes at a time
      while (i <= end - 8 && ((long) LONG.get(a, i) & HIGH_BITS) == 0) {
        i += 8;
      }
      if (i == end) {
        break;
      }
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
      } else if (b < 0xF5) {
        if (end - i < 4) {
          return false;
        }
        int b1 = a[i + 1] & 0xFF;
        int lo = b == 0xF0 ? 0x90 : 0x80; // no overlong form
        int hi = b == 0xF4 ? 0x8F : 0xBF; // nothing above U+10FFFF
        if (b1 < lo || b1 > hi || !continuation(a[i + 2]) || !continuation(a[i + 3])) {
          return false;
        }
        i += 4;
      } else {
        return false;
      }
    }
    return true;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}
