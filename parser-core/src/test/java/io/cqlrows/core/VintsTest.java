package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

class VintsTest {

  @Test
  void readsUnsignedVintsOfEverySize() {
    long[] values = {0, 1, 127, 128, 16_383, 16_384, 1L << 21, 1L << 28, 1L << 35, 1L << 42,
        1L << 49, 1L << 56, Long.MAX_VALUE, -1L};
    int[] sizes = {1, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9};
    for (int i = 0; i < values.length; i++) {
      ByteBuf buf = CqlBytes.create().vint(values[i]).toByteBuf();
      try {
        assertEquals(sizes[i], Vints.sizeAt(buf, 0), "size of " + values[i]);
        assertEquals(values[i], Vints.readUnsigned(buf, 0, buf.writerIndex(), null));
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void readsZigZagSignedVints() {
    // zig-zag: 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3
    long[] encoded = {0, 1, 2, 3, 200, -1L};
    long[] decoded = {0, -1, 1, -2, 100, Long.MIN_VALUE};
    for (int i = 0; i < encoded.length; i++) {
      ByteBuf buf = CqlBytes.create().vint(encoded[i]).toByteBuf();
      try {
        assertEquals(decoded[i], Vints.readSigned(buf, 0, buf.writerIndex(), null));
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void rejectsVintRunningPastTheEnd() {
    ByteBuf buf = CqlBytes.create().hex("c0 01").toByteBuf(); // announces 2 extra bytes, has 1
    try {
      CqlParseException e = assertThrows(CqlParseException.class,
          () -> Vints.readUnsigned(buf, 0, buf.writerIndex(), null));
      assertEquals(CqlParseException.Reason.TRUNCATED, e.reason());
    } finally {
      buf.release();
    }
  }
}
