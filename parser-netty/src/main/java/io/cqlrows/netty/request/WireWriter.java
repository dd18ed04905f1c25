package io.cqlrows.netty.request;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Writes the notations of native_protocol_v5.spec section 3 that requests use, big-endian, at the
 * writer index of a buffer. Lengths that do not fit their field are an {@link
 * IllegalArgumentException} before anything is written. Stateless.
 */
final class WireWriter {
  /** The largest {@code [short]} length: an unsigned 16-bit value. */
  private static final int MAX_SHORT_LENGTH = 0xFFFF;

  private WireWriter() {}

  /** {@code [string]}: a {@code [short]} n, then n bytes of UTF-8. */
  static void string(ByteBuf out, String field, CharSequence s) {
    int n = ByteBufUtil.utf8Bytes(s);
    checkShortLength(field, n);
    out.writeShort(n);
    ByteBufUtil.reserveAndWriteUtf8(out, s, n);
  }

  /** {@code [long string]}: an {@code [int]} n, then n bytes of UTF-8. */
  static void longString(ByteBuf out, CharSequence s) {
    int n = ByteBufUtil.utf8Bytes(s);
    out.writeInt(n);
    ByteBufUtil.reserveAndWriteUtf8(out, s, n);
  }

  /** {@code [short bytes]}: a {@code [short]} n, then n bytes. */
  static void shortBytes(ByteBuf out, String field, byte[] bytes) {
    checkShortLength(field, bytes.length);
    out.writeShort(bytes.length);
    out.writeBytes(bytes);
  }

  /**
   * {@code [value]}: an {@code [int]} n, then n bytes; {@code null} is written as -1 (NULL) and
   * {@link QueryParameters#UNSET} as -2 (not set).
   *
   * @param value read from its position to its limit, neither of which changes. Borrowed.
   */
  @SuppressWarnings("ReferenceEquality") // UNSET is a sentinel instance
  static void value(ByteBuf out, ByteBuffer value) {
    if (value == null) {
      out.writeInt(-1);
    } else if (value == QueryParameters.UNSET) {
      out.writeInt(-2);
    } else {
      out.writeInt(value.remaining());
      out.writeBytes(value.duplicate());
    }
  }

  /** {@code [string map]}: a {@code [short]} n, then n pairs of {@code [string]}. */
  static void stringMap(ByteBuf out, Map<String, String> map) {
    checkShortLength("string map size", map.size());
    out.writeShort(map.size());
    for (Map.Entry<String, String> e : map.entrySet()) {
      string(out, "string map key", e.getKey());
      string(out, "string map value", e.getValue());
    }
  }

  private static void checkShortLength(String field, int n) {
    if (n > MAX_SHORT_LENGTH) {
      throw new IllegalArgumentException(
          field + ": " + n + " bytes (expected: <= " + MAX_SHORT_LENGTH + ")");
    }
  }
}
