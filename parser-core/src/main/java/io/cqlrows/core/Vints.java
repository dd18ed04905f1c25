package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CqlType;
import io.netty.buffer.ByteBuf;

/**
 * Cassandra's variable-length integers ({@code utils/vint/VIntCoding}; the {@code [unsigned vint]}
 * and {@code [vint]} of native_protocol_v5.spec section 3): the number of leading one-bits of the
 * first byte is the number of extra bytes, big-endian. Signed vints are zig-zag encoded. Every read
 * is bounded by {@code end}.
 */
final class Vints {
  private Vints() {}

  /** Encoded size of the vint starting at {@code index} (1 to 9), from its first byte alone. */
  static int sizeAt(ByteBuf buf, int index) {
    int b0 = buf.getByte(index);
    return b0 >= 0 ? 1 : 1 + extraBytes(b0);
  }

  /** The number of leading one-bits of the byte {@code firstByte} (signed or unsigned form). */
  private static int extraBytes(int firstByte) {
    // mask after the complement: ~(b & 0xFF) would set the 24 high bits and always give -24
    return Integer.numberOfLeadingZeros(~firstByte & 0xFF) - 24;
  }

  /** The unsigned vint at {@code index}; throws TRUNCATED if it runs past {@code end}. */
  static long readUnsigned(ByteBuf buf, int index, int end, CqlType type) {
    if (index >= end) {
      throw truncated(index, end, 1, type);
    }
    int b0 = buf.getByte(index);
    if (b0 >= 0) {
      return b0;
    }
    int extra = extraBytes(b0);
    if (extra > end - index - 1) {
      throw truncated(index, end, extra + 1, type);
    }
    long value = b0 & (0xFF >> extra);
    for (int i = 1; i <= extra; i++) {
      value = (value << 8) | buf.getUnsignedByte(index + i);
    }
    return value;
  }

  /** A zig-zag signed vint. */
  static long readSigned(ByteBuf buf, int index, int end, CqlType type) {
    long u = readUnsigned(buf, index, end, type);
    return (u >>> 1) ^ -(u & 1);
  }

  /**
   * An unsigned vint used as a length (vector elements): must fit a non-negative int, as
   * Cassandra's {@code getUnsignedVInt32} requires.
   */
  static int readLength(ByteBuf buf, int index, int end, CqlType type) {
    long v = readUnsigned(buf, index, end, type);
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw CqlParseException.at(
          Reason.INVALID_LENGTH,
          "vector element length",
          index,
          type,
          Long.toUnsignedString(v) + " does not fit an int");
    }
    return (int) v;
  }

  private static CqlParseException truncated(int index, int end, int need, CqlType type) {
    return CqlParseException.at(
        Reason.TRUNCATED,
        "vint",
        index,
        type,
        "need " + need + " bytes, have " + Math.max(0, end - index));
  }
}
