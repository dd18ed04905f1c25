package io.cqlrows.netty.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CrcTest {
  /** The 89-byte custom type name of the vector column of the ROWS body below. */
  private static final String VECTOR_FLOAT_3 =
      "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)";

  /**
   * Segment headers from the tests of the Java driver's native-protocol library ({@code
   * SegmentCodecHeaderTest}), and the CRC24 bytes that follow them on the wire (LE).
   */
  @ParameterizedTest
  @CsvSource({
    "050002,     19999a", // uncompressed, payload 5, self-contained
    "0500180004, 9e0838", // LZ4, compressed 5, uncompressed 12, self-contained
    "0500feff07, ae6cdc", // LZ4, compressed 5, uncompressed 131071, self-contained
  })
  void computesTheSpecHeaderCrc24Vectors(String header, String crcLittleEndian) {
    ByteBuf buf = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(header + crcLittleEndian));
    int length = header.length() / 2;
    assertEquals(buf.getUnsignedMediumLE(length), Crc.crc24(buf, 0, length));
    assertEquals(
        buf.getUnsignedMediumLE(length),
        SegmentBuilder.crc24(ByteBufUtil.decodeHexDump(header)),
        "the test's own CRC24");
  }

  @Test
  void computesCrc24AtAnIndexOtherThanZero() {
    ByteBuf buf = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("ffff050002"));
    assertEquals(0x9a9919, Crc.crc24(buf, 2, 3));
  }

  @Test
  void seedsTheCrc32OfAnEmptyPayload() {
    assertEquals(0x44777ed3, Crc.crc32(Unpooled.EMPTY_BUFFER, 0, 0));
  }

  /**
   * A RESULT/ROWS envelope ({@code id int, v vector<float, 3>} of {@code ks.t}; rows (1, [1, 2, 3])
   * and (2, null)) in one uncompressed, self-contained segment, with its header CRC24 and seeded
   * payload CRC32.
   */
  @Test
  void checksumsTheSpecRowsSegment() {
    byte[] body =
        CqlBytes.create()
            .int32(2) // kind = Rows
            .int32(1) // flags = Global_tables_spec
            .int32(2) // columns_count
            .string("ks")
            .string("t")
            .string("id")
            .int16(0x0009)
            .string("v")
            .int16(0x0000)
            .string(VECTOR_FLOAT_3)
            .int32(2) // rows_count
            .int32(4)
            .int32(1)
            .int32(12)
            .hex("3f800000 40000000 40400000")
            .int32(4)
            .int32(2)
            .nullCell()
            .toArray();
    assertEquals(161, body.length);
    byte[] envelope = CqlBytes.create().hex("85 00 0001 08").int32(body.length).toArray();
    ByteBuf payload = Unpooled.wrappedBuffer(envelope, body);
    assertEquals(170, payload.readableBytes());

    ByteBuf header = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("aa0002938ddc"));
    assertEquals(header.getUnsignedMediumLE(3), Crc.crc24(header, 0, 3));
    assertEquals(0x5d06a431, Crc.crc32(payload, 0, 170));

    CRC32 unseeded = new CRC32();
    unseeded.update(ByteBufUtil.getBytes(payload));
    assertEquals(0xa3473153L, unseeded.getValue(), "the spec's unseeded contrast value");

    byte[] segment = SegmentBuilder.uncompressed(ByteBufUtil.getBytes(payload), true);
    assertEquals("aa0002938ddc", ByteBufUtil.hexDump(segment, 0, 6));
    assertEquals("31a4065d", ByteBufUtil.hexDump(segment, 176, 4));
  }

  @Test
  void checksumsACompositeLikeOneContiguousBuffer() {
    byte[] bytes = new byte[5000];
    new Random(7).nextBytes(bytes);
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    for (int at = 0; at < bytes.length; at += 1000) {
      composite.addComponent(true, Unpooled.wrappedBuffer(bytes, at, 1000));
    }
    int expected = SegmentBuilder.crc32(Arrays.copyOfRange(bytes, 10, 4990));
    assertEquals(expected, Crc.crc32(composite, 10, 4980));
    assertEquals(expected, Crc.crc32(Unpooled.wrappedBuffer(bytes), 10, 4980));
    assertNotEquals(expected, Crc.crc32(composite, 11, 4980));
    composite.release();
  }
}
