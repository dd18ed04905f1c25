package io.cqlrows.netty.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CompressorsTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 100, 65_536, 1 << 20})
  void anLz4BodyDecompressesToTheInput(int length) {
    byte[] data = sample(length);
    ByteBuf in = ALLOC.buffer().writeBytes(data);
    ByteBuf body = Compressors.lz4Body(ALLOC, in);
    assertEquals(0, in.readerIndex(), "the input is borrowed, not read");
    assertEquals(length, body.getInt(0), "big-endian uncompressed length");
    ByteBuf plain = Decompressors.lz4Body(ALLOC, body, length);
    assertArrayEquals(data, ByteBufUtil.getBytes(plain));
    plain.release(); // an empty buffer for length 0, which release() leaves alone
    assertTrue(body.release());
    assertTrue(in.release());
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void anLz4BlockIsAppendedAtTheWriterIndex(boolean compositeTarget) {
    byte[] data = sample(10_000);
    ByteBuf in = Unpooled.wrappedBuffer(data);
    ByteBuf out =
        compositeTarget
            ? ALLOC
                .compositeBuffer()
                .addComponent(true, ALLOC.buffer(3).writeMedium(0xABCDEF))
                .addComponent(true, ALLOC.buffer(8).writeLong(0))
            : ALLOC.buffer().writeMedium(0xABCDEF).writeLong(0);
    int n = Compressors.lz4Block(in, out);
    assertEquals(compositeTarget, out instanceof CompositeByteBuf);
    assertEquals(11 + n, out.writerIndex());
    assertEquals(0xABCDEF, out.getUnsignedMedium(0), "bytes before it untouched");
    ByteBuf plain = Decompressors.lz4Block(ALLOC, out.slice(11, n), data.length);
    assertArrayEquals(data, ByteBufUtil.getBytes(plain));
    plain.release();
    out.release();
  }

  /** Half text-like, half random: compresses, but not to nothing. */
  private static byte[] sample(int length) {
    byte[] data = new byte[length];
    Random random = new Random(length);
    for (int i = 0; i < length; i++) {
      data[i] = i % 2 == 0 ? (byte) ('a' + i % 7) : (byte) random.nextInt();
    }
    return data;
  }
}
