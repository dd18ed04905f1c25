package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The decoders alone, for a driver that reads frames and runs its handshake itself. */
class CqlDecodersTest {
  @Test
  void readsTheVersionsTheDecodersKnow() {
    for (int version : new int[] {3, 4, 5}) {
      EmbeddedChannel channel = new EmbeddedChannel();
      CqlDecoders.install(channel.pipeline(), version, Compression.NONE, ParseLimits.defaults());
      channel.writeInbound(
          Unpooled.wrappedBuffer(
              CqlTestFrames.frameBytes(0x80 | version, 0, 3, 0x08, new byte[] {0, 0, 0, 1})));
      Frame frame = channel.readInbound();
      assertEquals(version, frame.version());
      assertEquals(3, frame.streamId());
      assertEquals(Opcode.RESULT, frame.opcode());
      frame.release();
      assertFalse(channel.finishAndReleaseAll());
    }
    EmbeddedChannel channel = new EmbeddedChannel();
    assertThrows(
        IllegalArgumentException.class,
        () -> CqlDecoders.install(channel.pipeline(), 6, Compression.NONE, ParseLimits.defaults()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            CqlDecoders.install(channel.pipeline(), 5, Compression.SNAPPY, ParseLimits.defaults()));
  }

  /**
   * After READY a v5 connection is in segments both ways: the driver's envelopes, written from a
   * handler after the decoders, go out packed in segments.
   */
  @ParameterizedTest
  @ValueSource(strings = {"NONE", "LZ4"})
  void aV5ConnectionMovesToSegmentsBothWaysAfterReady(Compression compression) {
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlDecoders.install(channel.pipeline(), 5, compression, ParseLimits.defaults());
    assertNull(channel.pipeline().get(CqlPipeline.SEGMENT_ENCODER));
    channel.writeInbound(
        Unpooled.wrappedBuffer(CqlTestFrames.frameBytes(0x85, 0, 0, 0x02, new byte[0])));
    Frame ready = channel.readInbound();
    assertEquals(Opcode.READY, ready.opcode());
    ready.release();
    assertNotNull(channel.pipeline().get(CqlPipeline.SEGMENT_ENCODER));
    assertNotNull(channel.pipeline().get(CqlPipeline.BYTES_TO_SEGMENT_DECODER));
    assertNull(channel.pipeline().get(CqlPipeline.BYTES_TO_FRAME_DECODER));

    byte[] envelope = CqlTestFrames.frameBytes(0x05, 0, 1, 0x07, new byte[40]);
    channel.writeOutbound(Unpooled.wrappedBuffer(envelope));
    ByteBuf out = channel.readOutbound();
    try {
      if (compression == Compression.NONE) {
        // a self-contained uncompressed segment: 6-byte header, the envelope, 4-byte CRC32
        assertEquals(6 + envelope.length + 4, out.readableBytes());
        byte[] payload = new byte[envelope.length];
        out.getBytes(out.readerIndex() + 6, payload);
        assertTrue(java.util.Arrays.equals(envelope, payload));
      } else {
        assertTrue(out.readableBytes() < envelope.length, "the zeros compressed in a segment");
      }
    } finally {
      out.release();
    }
    assertFalse(channel.finishAndReleaseAll());
  }
}
