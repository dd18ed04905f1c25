package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32;

/**
 * The two checksums of v5 segments (native_protocol_v5.spec section 2.1; Cassandra's {@code
 * net/Crc.java}): CRC24 over the header bytes, and IEEE CRC32 over the payload <em>seeded</em> with
 * the bytes {@code FA 2D 55 CA}, which the protocol specification does not mention. Stateless.
 */
final class Crc {
  private static final int CRC24_INIT = 0x875060;
  private static final int CRC24_POLY = 0x1974F0B;
  private static final byte[] CRC32_SEED = {(byte) 0xFA, (byte) 0x2D, (byte) 0x55, (byte) 0xCA};

  private Crc() {}

  /** CRC24 of {@code length} bytes at {@code index}, in wire order. */
  static int crc24(ByteBuf buf, int index, int length) {
    int crc = CRC24_INIT;
    for (int i = 0; i < length; i++) {
      crc ^= buf.getUnsignedByte(index + i) << 16;
      for (int bit = 0; bit < 8; bit++) {
        crc <<= 1;
        if ((crc & 0x1000000) != 0) {
          crc ^= CRC24_POLY;
        }
      }
    }
    return crc & 0xFFFFFF;
  }

  /** The seeded CRC32 of {@code length} bytes at {@code index}. */
  static int crc32(ByteBuf buf, int index, int length) {
    CRC32 crc = new CRC32();
    crc.update(CRC32_SEED);
    if (buf.nioBufferCount() == 1) {
      crc.update(buf.nioBuffer(index, length));
    } else {
      for (java.nio.ByteBuffer b : buf.nioBuffers(index, length)) {
        crc.update(b);
      }
    }
    return (int) crc.getValue();
  }
}
