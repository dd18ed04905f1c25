package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Unsigned and signed vints (native_protocol_v5.spec section 3), with the values of Cassandra's
 * VIntCodingTest.
 */
class VintsTest {

  @ParameterizedTest
  @CsvSource({
    "0, 00",
    "53, 35",
    "127, 7f",
    "128, 8080",
    "200, 80c8",
    "255, 80ff",
    "10201, a7d9",
    "16383, bfff",
    "16384, c04000",
    "256000, c3e800",
    "1097151, d0bdbf",
    "2097152, e0200000",
    "168435455, ea0a1eff",
    "268435456, f010000000",
    "33251130335, f7bdebfbdf",
    "3281283447775, fafbfbbbfbdf",
    "417672546086779, fd7bdef7bdef7b",
    "52057592037927932, feb8f21aa9486bfc",
    "72057594037927935, feffffffffffffff",
    "72057594037927937, ff0100000000000001",
    "9223372036854775807, ff7fffffffffffffff",
  })
  void readsUnsignedVintTable(long value, String hex) {
    // at index 1 inside a larger buffer, with one byte after it
    ByteBuf buf = Unpooled.wrappedBuffer(CqlBytes.create().hex("aa" + hex + "bb").toArray());
    try {
      int end = buf.writerIndex();
      assertEquals(value, Vints.readUnsigned(buf, 1, end, null));
      assertEquals(hex.length() / 2, Vints.sizeAt(buf, 1));
      // the DSL's encoder agrees with the table
      assertEquals(hex, CqlBytes.create().vint(value).toHex());
    } finally {
      buf.release();
    }
  }

  @Test
  void sizeFollowsPowersOfSeven() {
    for (int k = 1; k <= 7; k++) {
      long below = (1L << (7 * k)) - 1;
      assertEquals(k, size(below), "2^(7k)-1 for k=" + k);
      assertEquals(k + 1, size(below + 1), "2^(7k) for k=" + k);
    }
  }

  private static int size(long v) {
    ByteBuf buf = Unpooled.wrappedBuffer(CqlBytes.create().vint(v).toArray());
    try {
      assertEquals(v, Vints.readUnsigned(buf, 0, buf.writerIndex(), null));
      return Vints.sizeAt(buf, 0);
    } finally {
      buf.release();
    }
  }

  @ParameterizedTest
  @CsvSource({
    "0, 00",
    "-1, 01",
    "1, 02",
    "-2, 03",
    "2, 04",
    "63, 7e",
    "-64, 7f",
    "64, 8080",
    "-65, 8081",
  })
  void readsZigZagSignedVints(long value, String hex) {
    ByteBuf buf = Unpooled.wrappedBuffer(CqlBytes.create().hex(hex).toArray());
    try {
      assertEquals(value, Vints.readSigned(buf, 0, buf.writerIndex(), null));
    } finally {
      buf.release();
    }
  }

  @Test
  void rejectsVintRunningPastEnd() {
    ByteBuf buf = Unpooled.wrappedBuffer(CqlBytes.create().hex("00 c040 00").toArray());
    try {
      // c0 announces two extra bytes; the window ends after one
      CqlParseException e =
          assertThrows(CqlParseException.class, () -> Vints.readUnsigned(buf, 1, 3, null));
      assertEquals(Reason.TRUNCATED, e.reason());
      assertEquals("vint", e.field());
      CqlParseException empty =
          assertThrows(CqlParseException.class, () -> Vints.readUnsigned(buf, 3, 3, null));
      assertEquals(Reason.TRUNCATED, empty.reason());
    } finally {
      buf.release();
    }
  }

  @ParameterizedTest
  @CsvSource({"f080000000", "ff7fffffffffffffff", "ffffffffffffffffff"})
  void rejectsLengthBeyondInt(String hex) {
    ByteBuf buf = Unpooled.wrappedBuffer(CqlBytes.create().hex(hex).toArray());
    try {
      CqlParseException e =
          assertThrows(
              CqlParseException.class, () -> Vints.readLength(buf, 0, buf.writerIndex(), null));
      assertEquals(Reason.INVALID_LENGTH, e.reason());
    } finally {
      buf.release();
    }
  }

  @Test
  void readsLargestIntLength() {
    ByteBuf buf = Unpooled.wrappedBuffer(CqlBytes.create().hex("f07fffffff").toArray());
    try {
      assertEquals(Integer.MAX_VALUE, Vints.readLength(buf, 0, buf.writerIndex(), null));
    } finally {
      buf.release();
    }
  }
}
