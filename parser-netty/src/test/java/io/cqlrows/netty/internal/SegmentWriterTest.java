package io.cqlrows.netty.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SegmentWriter against the test-side SegmentBuilder, whose checksums are computed apart. */
class SegmentWriterTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  @ParameterizedTest
  @CsvSource({"0, true", "1, false", "1000, true", "131071, true", "131071, false"})
  void uncompressedSegmentsMatchTheBuilder(int length, boolean selfContained) {
    byte[] payload = random(length);
    assertArrayEquals(
        SegmentBuilder.uncompressed(payload, selfContained),
        encode(payload, selfContained, SegmentFormat.UNCOMPRESSED));
  }

  @ParameterizedTest
  @CsvSource({"0, true", "1, true", "1000, false", "131071, true"})
  void incompressibleLz4PayloadsAreStoredWithUncompressedLengthZero(
      int length, boolean selfContained) {
    byte[] payload = random(length);
    byte[] segment = encode(payload, selfContained, SegmentFormat.LZ4);
    assertArrayEquals(SegmentBuilder.lz4Wire(payload, 0, selfContained), segment);
    assertArrayEquals(SegmentBuilder.lz4(payload, selfContained), segment);
  }

  @ParameterizedTest
  @CsvSource({"100, true", "131071, false"})
  void compressibleLz4PayloadsAreRawBlocks(int length, boolean selfContained) {
    byte[] payload = new byte[length];
    Arrays.fill(payload, (byte) 'c');
    byte[] segment = encode(payload, selfContained, SegmentFormat.LZ4);
    long word =
        (segment[0] & 0xFFL)
            | (segment[1] & 0xFFL) << 8
            | (segment[2] & 0xFFL) << 16
            | (segment[3] & 0xFFL) << 24
            | (segment[4] & 0xFFL) << 32;
    assertEquals(length, (word >>> 17) & 0x1FFFF, "uncompressed length");
    assertEquals(segment.length - 12, word & 0x1FFFF, "on-wire length");
    assertArrayEquals(SegmentBuilder.lz4(payload, selfContained), segment);
  }

  @Test
  void theDecoderReadsWhatTheWriterWrote() {
    byte[] payload = random(5000);
    for (SegmentFormat format :
        new SegmentFormat[] {SegmentFormat.UNCOMPRESSED, SegmentFormat.LZ4}) {
      EmbeddedChannel channel = new EmbeddedChannel(new BytesToSegmentDecoder(format, 0));
      channel.writeInbound(
          SegmentWriter.encode(ALLOC, Unpooled.wrappedBuffer(payload), false, format));
      Segment segment = channel.readInbound();
      assertEquals(false, segment.selfContained());
      assertArrayEquals(payload, ByteBufUtil.getBytes(segment.payload()));
      segment.release();
      assertEquals(false, channel.finish());
    }
  }

  @Test
  void rejectsAPayloadOverTheMaximumAndTheDetectFormat() {
    ByteBuf tooLong = Unpooled.wrappedBuffer(new byte[SegmentWriter.MAX_PAYLOAD_LENGTH + 1]);
    assertThrows(
        IllegalArgumentException.class,
        () -> SegmentWriter.encode(ALLOC, tooLong, true, SegmentFormat.UNCOMPRESSED));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SegmentWriter.encode(
                ALLOC, Unpooled.wrappedBuffer(new byte[1]), true, SegmentFormat.DETECT));
  }

  private static byte[] encode(byte[] payload, boolean selfContained, SegmentFormat format) {
    ByteBuf in = Unpooled.wrappedBuffer(payload);
    ByteBuf segment = SegmentWriter.encode(ALLOC, in, selfContained, format);
    try {
      assertEquals(0, in.readerIndex(), "the payload is borrowed, not read");
      return ByteBufUtil.getBytes(segment);
    } finally {
      segment.release();
    }
  }

  private static byte[] random(int length) {
    byte[] b = new byte[length];
    new Random(length).nextBytes(b);
    return b;
  }
}
