package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Whether bytes are all ASCII (below 0x80): the fast path of the text checks a lazy page makes when
 * it is indexed. ASCII bytes are valid UTF-8 and valid {@code ascii}, so nearly all text needs no
 * decoding to be accepted; other text goes to {@link TextDeserializer}'s own check. Heap buffers
 * are read eight bytes at a time.
 */
final class Ascii {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

  private static final long HIGH_BITS = 0x8080808080808080L;

  private Ascii() {}

  /** Whether {@code [index, index + length)} of {@code buf} are all below 0x80. */
  static boolean all(ByteBuf buf, int index, int length) {
    if (buf.hasArray()) {
      return all(buf.array(), buf.arrayOffset() + index, length);
    }
    for (int i = 0; i < length; i++) {
      if (buf.getByte(index + i) < 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code [from, from + length)} of {@code a} are all below 0x80. */
  static boolean all(byte[] a, int from, int length) {
    int i = from;
    int end = from + length;
    long high = 0;
    for (; i <= end - 8; i += 8) {
      high |= (long) LONG.get(a, i);
    }
    for (; i < end; i++) {
      high |= a[i];
    }
    return (high & HIGH_BITS) == 0;
  }
}
