package io.cqlrows.netty.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Envelopes through the segment encoder and back through {@link BytesToSegmentDecoder} and {@link
 * SegmentToFrameDecoder}: sizes around the segment maximum, packing, slicing, LZ4 stored or
 * compressed, promises and release.
 */
class SegmentEncoderTest {
  private static final int MAX = SegmentWriter.MAX_PAYLOAD_LENGTH;
  private static final int MIB = 1 << 20;

  /**
   * Envelope sizes (header included): the smallest with a body, exactly one full segment, one byte
   * more (two slices), and a 1 MiB body (nine slices).
   */
  @ParameterizedTest
  @CsvSource({
    "10, UNCOMPRESSED, true", "10, LZ4, true", "10, LZ4, false",
    "131071, UNCOMPRESSED, true", "131071, LZ4, true", "131071, LZ4, false",
    "131072, UNCOMPRESSED, true", "131072, LZ4, true", "131072, LZ4, false",
    "1048585, UNCOMPRESSED, true", "1048585, LZ4, true", "1048585, LZ4, false"
  })
  void anEnvelopeOfAnySizeRoundTrips(int size, SegmentFormat format, boolean random) {
    byte[] envelope = envelope(7, size - 9, random);
    List<Segment> segments = segments(format, write(format, envelope));
    int expectedSegments = size <= MAX ? 1 : (size + MAX - 1) / MAX;
    assertEquals(expectedSegments, segments.size(), "segments");
    for (Segment s : segments) {
      assertEquals(size <= MAX, s.selfContained(), "self-contained only if it fits");
      assertTrue(s.payload().readableBytes() <= MAX);
      s.release();
    }
    List<Frame> frames = frames(format, write(format, envelope));
    assertEquals(1, frames.size());
    assertEquals(7, frames.get(0).streamId());
    assertArrayEquals(Arrays.copyOfRange(envelope, 9, size), body(frames.get(0)));
    frames.get(0).release();
  }

  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void smallEnvelopesWrittenBeforeAFlushShareOneSegment(SegmentFormat format) {
    EmbeddedChannel channel = new EmbeddedChannel(new SegmentEncoder(format));
    ChannelFuture[] writes = new ChannelFuture[3];
    for (int i = 0; i < 3; i++) {
      writes[i] = channel.write(buffer(envelope(i, 100 + i, true)));
    }
    assertNull(channel.readOutbound(), "nothing goes out before the flush");
    assertFalse(writes[0].isDone());
    channel.flush();
    for (ChannelFuture w : writes) {
      assertTrue(w.isSuccess(), "each write completes with its segment");
    }
    ByteBuf out = channel.readOutbound();
    assertNull(channel.readOutbound(), "one segment");
    assertFalse(channel.finish());

    List<Frame> frames = frames(format, out);
    assertEquals(3, frames.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(i, frames.get(i).streamId());
      assertEquals(100 + i, frames.get(i).body().readableBytes());
      frames.get(i).release();
    }
  }

  @Test
  void aBatchThatWouldOverflowStartsANewSegment() {
    EmbeddedChannel channel = new EmbeddedChannel(new SegmentEncoder(SegmentFormat.UNCOMPRESSED));
    channel.write(buffer(envelope(1, 100_000 - 9, true)));
    channel.write(buffer(envelope(2, 40_000 - 9, true)));
    channel.write(buffer(envelope(3, 20_000 - 9, true)));
    channel.flush();
    List<Segment> segments = segments(SegmentFormat.UNCOMPRESSED, outbound(channel));
    assertEquals(2, segments.size());
    assertEquals(100_000, segments.get(0).payload().readableBytes());
    assertEquals(60_000, segments.get(1).payload().readableBytes());
    assertTrue(segments.get(0).selfContained() && segments.get(1).selfContained());
    segments.forEach(Segment::release);
  }

  @Test
  void aLargeEnvelopeFollowsTheSmallOnesBeforeIt() {
    EmbeddedChannel channel = new EmbeddedChannel(new SegmentEncoder(SegmentFormat.LZ4));
    channel.write(buffer(envelope(1, 50, true)));
    ChannelFuture large = channel.write(buffer(envelope(2, 300_000, true)));
    channel.write(buffer(envelope(3, 60, true)));
    channel.flush();
    assertTrue(large.isSuccess(), "completes when all its slices are written");
    List<Frame> frames = frames(SegmentFormat.LZ4, outbound(channel));
    assertEquals(List.of(1, 2, 3), frames.stream().map(Frame::streamId).toList());
    assertEquals(300_000, frames.get(1).body().readableBytes());
    frames.forEach(Frame::release);
  }

  @Test
  void lz4StoresWhatItCannotShrinkAndCompressesTheRest() {
    ByteBuf random = write(SegmentFormat.LZ4, envelope(1, 1000, true));
    ByteBuf zeros = write(SegmentFormat.LZ4, envelope(1, 1000, false));
    assertEquals(0, uncompressedLength(random), "stored: uncompressed length 0");
    assertEquals(1009, onWireLength(random));
    assertEquals(1009, uncompressedLength(zeros));
    assertTrue(onWireLength(zeros) < 100);
    frames(SegmentFormat.LZ4, random, zeros).forEach(Frame::release);
  }

  @Test
  void otherMessagesPassThrough() {
    EmbeddedChannel channel = new EmbeddedChannel(new SegmentEncoder(SegmentFormat.LZ4));
    Object other = "not a buffer";
    channel.writeOutbound(other);
    assertSame(other, channel.readOutbound());
    assertFalse(channel.finish());
  }

  @Test
  void envelopesNotFlushedWhenTheChannelClosesAreReleasedAndFailed() {
    EmbeddedChannel channel = new EmbeddedChannel(new SegmentEncoder(SegmentFormat.UNCOMPRESSED));
    ByteBuf envelope = buffer(envelope(1, 10, true));
    ChannelFuture write = channel.write(envelope);
    channel.close();
    assertEquals(0, envelope.refCnt());
    assertInstanceOf(ClosedChannelException.class, write.cause());
    assertFalse(channel.finish());
  }

  @Test
  void rejectsTheDetectFormat() {
    assertThrows(IllegalArgumentException.class, () -> new SegmentEncoder(SegmentFormat.DETECT));
  }

  /** One envelope through a new encoder, written and flushed; the segments as one buffer. */
  private static ByteBuf write(SegmentFormat format, byte[] envelope) {
    EmbeddedChannel channel = new EmbeddedChannel(new SegmentEncoder(format));
    assertTrue(channel.writeOutbound(buffer(envelope)));
    return outbound(channel);
  }

  /** Everything the channel wrote, in one new buffer that the caller owns and releases. */
  private static ByteBuf outbound(EmbeddedChannel channel) {
    ByteBuf all = ByteBufAllocator.DEFAULT.buffer();
    for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    assertFalse(channel.finish());
    return all;
  }

  private static List<Segment> segments(SegmentFormat format, ByteBuf bytes) {
    EmbeddedChannel channel = new EmbeddedChannel(new BytesToSegmentDecoder(format, 0));
    channel.writeInbound(bytes);
    channel.checkException();
    List<Segment> out = new ArrayList<>();
    for (Segment s; (s = channel.readInbound()) != null; ) {
      out.add(s);
    }
    assertFalse(channel.finish());
    return out;
  }

  private static List<Frame> frames(SegmentFormat format, ByteBuf... bytes) {
    ParseLimits limits = ParseLimits.builder().maxFrameBodyLength(2 * MIB).build();
    EmbeddedChannel channel =
        new EmbeddedChannel(
            new BytesToSegmentDecoder(format, 0), new SegmentToFrameDecoder(limits));
    for (ByteBuf b : bytes) {
      channel.writeInbound(b);
    }
    channel.checkException();
    List<Frame> out = new ArrayList<>();
    for (Frame f; (f = channel.readInbound()) != null; ) {
      out.add(f);
    }
    assertFalse(channel.finish());
    return out;
  }

  /** A v5 request envelope with a random or all-zero body. */
  private static byte[] envelope(int stream, int bodyLength, boolean random) {
    byte[] e = new byte[9 + bodyLength];
    if (random) {
      new Random(bodyLength).nextBytes(e);
    }
    e[0] = 5;
    e[1] = 0;
    e[2] = (byte) (stream >> 8);
    e[3] = (byte) stream;
    e[4] = 0x07;
    e[5] = (byte) (bodyLength >>> 24);
    e[6] = (byte) (bodyLength >>> 16);
    e[7] = (byte) (bodyLength >>> 8);
    e[8] = (byte) bodyLength;
    return e;
  }

  private static ByteBuf buffer(byte[] bytes) {
    return ByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
  }

  private static byte[] body(Frame frame) {
    return ByteBufUtil.getBytes(frame.body());
  }

  private static long headerWord(ByteBuf lz4Segment) {
    return lz4Segment.getUnsignedIntLE(0) | (long) lz4Segment.getUnsignedByte(4) << 32;
  }

  private static int uncompressedLength(ByteBuf lz4Segment) {
    return (int) (headerWord(lz4Segment) >>> 17) & 0x1FFFF;
  }

  private static int onWireLength(ByteBuf lz4Segment) {
    return (int) headerWord(lz4Segment) & 0x1FFFF;
  }
}
