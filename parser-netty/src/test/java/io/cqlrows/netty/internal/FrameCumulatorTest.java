package io.cqlrows.netty.internal;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.internal.SegmentBuilder.concat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How {@link BytesToFrameDecoder} and {@link BytesToSegmentDecoder} accumulate reads ({@link
 * FrameCumulator}): a large uncompressed frame or segment keeps the reads it arrived in, a
 * compressed one is copied once into a buffer of its length, small reads reach it in steps bounded
 * by what arrived, a header announcing a large frame allocates nothing in proportion to its claim,
 * and any split of a stream decodes as the whole stream does.
 */
class FrameCumulatorTest {
  private static final int READ = 64 * 1024;
  private static final int RESULT = 0x08;

  @Test
  void keepsTheReadsOfALargeFrameWithoutCopying() {
    byte[] body = random(300_000, 1);
    byte[] wire = frameBytes(0x84, 0, 3, RESULT, body);
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(), alloc);
    List<ByteBuf> reads = new ArrayList<>();
    for (byte[] read : split(wire, READ)) {
      ByteBuf buf = Unpooled.wrappedBuffer(read);
      reads.add(buf);
      channel.writeInbound(buf);
    }
    Frame frame = channel.readInbound();
    assertArrayEquals(body, ByteBufUtil.getBytes(frame.body()));
    assertEquals(List.of(), alloc.buffers, "no buffer allocated, nothing copied");
    assertEquals(reads.size(), frame.body().nioBufferCount(), "the body spans the reads");
    for (ByteBuf read : reads) {
      assertTrue(read.refCnt() > 0, "held by the frame");
    }
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
    for (ByteBuf read : reads) {
      assertEquals(0, read.refCnt(), "released with the frame");
    }
  }

  @Test
  void copiesReadsThatWouldPinMoreThanTheyHoldIntoBuffersOfTheirSize() {
    byte[] body = random(300_000, 7);
    byte[] wire = frameBytes(0x84, 0, 3, RESULT, body);
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(), alloc);
    // two full reads, then 20,000-byte reads each in a buffer of 64 KiB: less than half full
    channel.writeInbound(Unpooled.wrappedBuffer(java.util.Arrays.copyOf(wire, READ)));
    channel.writeInbound(
        Unpooled.wrappedBuffer(java.util.Arrays.copyOfRange(wire, READ, 2 * READ)));
    List<Integer> copied = new ArrayList<>();
    for (int at = 2 * READ; at < wire.length; at += 20_000) {
      int n = Math.min(20_000, wire.length - at);
      channel.writeInbound(Unpooled.buffer(READ).writeBytes(wire, at, n));
      copied.add(n);
    }
    Frame frame = channel.readInbound();
    assertArrayEquals(body, ByteBufUtil.getBytes(frame.body()));
    assertEquals(copied, alloc.buffers, "each read copied into a buffer of its size");
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void copiesALargeCompressedFrameOnceIntoABufferOfItsLength() {
    byte[] body = compressedBody(random(200_000, 2));
    byte[] wire = frameBytes(0x84, Frame.FLAG_COMPRESSION, 3, RESULT, body);
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel =
        channel(new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4), alloc);
    for (byte[] read : split(wire, READ)) {
      channel.writeInbound(Unpooled.wrappedBuffer(read));
    }
    Frame frame = channel.readInbound();
    assertArrayEquals(random(200_000, 2), ByteBufUtil.getBytes(frame.body()));
    assertEquals(List.of(wire.length), alloc.buffers, "one cumulation, of the frame's length");
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void growsTowardsTheFrameInBoundedStepsWhenReadsAreSmall() {
    byte[] body = random(200_000, 3);
    byte[] wire = frameBytes(0x84, 0, 3, RESULT, body);
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(), alloc);
    List<Integer> received = new ArrayList<>();
    int sent = 0;
    for (byte[] read : split(wire, 1000)) {
      sent += read.length;
      channel.writeInbound(Unpooled.wrappedBuffer(read));
      while (received.size() < alloc.buffers.size()) {
        received.add(sent);
      }
    }
    Frame frame = channel.readInbound();
    assertArrayEquals(body, ByteBufUtil.getBytes(frame.body()));
    // 2,000 bytes in: 32,000; 33,000 in: the frame's length
    assertEquals(List.of(16 * 2000, wire.length), alloc.buffers);
    for (int i = 0; i < alloc.buffers.size(); i++) {
      assertTrue(
          alloc.buffers.get(i) <= FrameCumulator.MAX_AHEAD * received.get(i),
          alloc.buffers + " for " + received);
    }
    assertTrue(frame.body().hasArray(), "one contiguous buffer");
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void allocatesForAnAnnouncedFrameOnlyInProportionToWhatArrived() {
    // a header announcing 100 MB (within the default limit), then 3 KB of it
    byte[] header = frameBytes(0x84, 0, 3, RESULT, new byte[0]);
    header[5] = 0x05;
    header[6] = (byte) 0xF5;
    header[7] = (byte) 0xE1;
    header[8] = 0x00;
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(), alloc);
    channel.writeInbound(Unpooled.wrappedBuffer(concat(header, new byte[991])));
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
    assertEquals(List.of(16 * 2000), alloc.buffers);
    assertEquals(3000, channel.pipeline().get(BytesToFrameDecoder.class).bufferedBytes());
    CqlFrameException e = assertThrows(CqlFrameException.class, channel::finish);
    assertEquals(CqlFrameException.Reason.TRUNCATED, e.reason());
    assertEquals(0, e.offset(), "the frame's header");
    assertFalse(channel.finishAndReleaseAll());
  }

  /** Small and large frames, compressed and not, fed whole, in socket-sized and random reads. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4})
  void decodesFramesIdenticallyInAnySplit(long seed) {
    byte[] stream =
        concat(
            frameBytes(0x84, 0, 1, RESULT, text(100)),
            frameBytes(0x84, 0, 2, RESULT, random(300_000, seed)),
            frameBytes(0x84, 0, 3, RESULT, random(70_000, seed + 10)),
            frameBytes(0x84, Frame.FLAG_COMPRESSION, 4, RESULT, compressedBody(text(500_000))),
            frameBytes(0x84, 0, 5, RESULT, text(10)),
            frameBytes(
                0x84,
                Frame.FLAG_COMPRESSION,
                6,
                RESULT,
                compressedBody(random(200_000, seed + 20))),
            frameBytes(0x84, 0, 7, RESULT, random(65_527, seed + 30)),
            frameBytes(0x84, 0, 8, RESULT, text(20)));
    List<String> whole =
        decodeInPieces(
            () -> new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4),
            stream,
            new int[] {stream.length},
            FrameCumulatorTest::frameDigest);
    assertEquals(8, whole.size());
    assertEquals(
        whole,
        decodeInPieces(
            () -> new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4),
            stream,
            sizes(stream.length, READ),
            FrameCumulatorTest::frameDigest),
        "64 KiB reads");
    assertEquals(
        whole,
        decodeInPieces(
            () -> new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4),
            stream,
            randomSplits(stream.length, seed),
            FrameCumulatorTest::frameDigest),
        "random reads");
  }

  @Test
  void keepsTheReadsOfALargeStoredSegmentWithoutCopying() {
    byte[] payload = random(SegmentBuilder.MAX_PAYLOAD, 5);
    byte[] wire = SegmentBuilder.lz4(payload, false);
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel = channel(new BytesToSegmentDecoder(SegmentFormat.LZ4, 0), alloc);
    byte[][] reads = split(wire, READ);
    for (byte[] read : reads) {
      channel.writeInbound(Unpooled.wrappedBuffer(read));
    }
    Segment segment = channel.readInbound();
    assertArrayEquals(payload, ByteBufUtil.getBytes(segment.payload()));
    // two full reads kept as they are; the last one, under MIN_SHARED_READ, copied
    assertEquals(3, reads.length);
    assertTrue(reads[2].length < FrameCumulator.MIN_SHARED_READ);
    assertEquals(List.of(reads[2].length), alloc.buffers, "only the short last read copied");
    segment.release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void copiesALargeLz4SegmentOnceIntoABufferOfItsLength() {
    // a block of at least 64 KiB: random bytes with runs that LZ4 shortens a little
    byte[] payload = random(SegmentBuilder.MAX_PAYLOAD, 6);
    for (int i = 0; i < payload.length; i += 64) {
      java.util.Arrays.fill(payload, i, Math.min(payload.length, i + 16), (byte) 7);
    }
    byte[] wire = SegmentBuilder.lz4(payload, false);
    assertTrue(
        wire.length > 64 * 1024 && wire.length < payload.length, "compressed: " + wire.length);
    CountingAllocator alloc = new CountingAllocator();
    EmbeddedChannel channel = channel(new BytesToSegmentDecoder(SegmentFormat.LZ4, 0), alloc);
    for (byte[] read : split(wire, 40_000)) {
      channel.writeInbound(Unpooled.wrappedBuffer(read));
    }
    Segment segment = channel.readInbound();
    assertArrayEquals(payload, ByteBufUtil.getBytes(segment.payload()));
    assertEquals(List.of(wire.length), alloc.buffers, "one cumulation, of the segment's length");
    segment.release();
    assertFalse(channel.finishAndReleaseAll());
  }

  /** Stored and compressed segments of every size, whole, in socket-sized and random reads. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void decodesSegmentsIdenticallyInAnySplit(long seed) {
    for (SegmentFormat format :
        new SegmentFormat[] {SegmentFormat.UNCOMPRESSED, SegmentFormat.LZ4}) {
      List<byte[]> segments = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        int length = i % 3 == 0 ? SegmentBuilder.MAX_PAYLOAD : 50 + i * 9_000;
        byte[] payload = i % 2 == 0 ? random(length, seed * 100 + i) : text(length);
        segments.add(
            format == SegmentFormat.LZ4
                ? SegmentBuilder.lz4(payload, i % 4 == 1)
                : SegmentBuilder.uncompressed(payload, i % 4 == 1));
      }
      byte[] stream = concat(segments.toArray(new byte[0][]));
      List<String> whole =
          decodeInPieces(
              () -> new BytesToSegmentDecoder(format, 0),
              stream,
              new int[] {stream.length},
              FrameCumulatorTest::segmentDigest);
      assertEquals(12, whole.size());
      assertEquals(
          whole,
          decodeInPieces(
              () -> new BytesToSegmentDecoder(format, 0),
              stream,
              sizes(stream.length, READ),
              FrameCumulatorTest::segmentDigest),
          format + " 64 KiB");
      assertEquals(
          whole,
          decodeInPieces(
              () -> new BytesToSegmentDecoder(format, 0),
              stream,
              randomSplits(stream.length, seed),
              FrameCumulatorTest::segmentDigest),
          format + " random");
    }
  }

  private static EmbeddedChannel channel(ChannelHandler decoder, CountingAllocator alloc) {
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    channel.config().setAllocator(alloc);
    return channel;
  }

  /** Feeds the stream in reads of the given sizes; returns a digest per message, in order. */
  private static List<String> decodeInPieces(
      java.util.function.Supplier<ChannelHandler> decoder,
      byte[] stream,
      int[] sizes,
      java.util.function.Function<Object, String> digest) {
    EmbeddedChannel channel = channel(decoder.get(), new CountingAllocator());
    List<String> out = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      channel.writeInbound(Unpooled.wrappedBuffer(stream, at, size));
      at += size;
      for (Object m; (m = channel.readInbound()) != null; ) {
        out.add(digest.apply(m));
        // a segment's payload may share its count with the cumulation: not checked here; the
        // leak check and finishAndReleaseAll() find anything left
        ((io.netty.util.ReferenceCounted) m).release();
      }
    }
    assertEquals(stream.length, at);
    assertFalse(channel.finishAndReleaseAll());
    return out;
  }

  private static String frameDigest(Object m) {
    Frame f = assertInstanceOf(Frame.class, m);
    return f.streamId() + "/" + f.flags() + "/" + f.bodyOffset() + "/" + sha(f.body());
  }

  private static String segmentDigest(Object m) {
    Segment s = assertInstanceOf(Segment.class, m);
    return s.selfContained() + "/" + s.payload().readableBytes() + "/" + sha(s.payload());
  }

  private static String sha(ByteBuf buf) {
    try {
      return ByteBufUtil.hexDump(
          MessageDigest.getInstance("SHA-256").digest(ByteBufUtil.getBytes(buf)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** A v4 LZ4 body: the big-endian length and one block. */
  private static byte[] compressedBody(byte[] plain) {
    ByteBuf body =
        Compressors.lz4Body(UnpooledByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(plain));
    try {
      return ByteBufUtil.getBytes(body);
    } finally {
      body.release();
    }
  }

  private static byte[][] split(byte[] bytes, int size) {
    int[] sizes = sizes(bytes.length, size);
    byte[][] out = new byte[sizes.length][];
    for (int i = 0, at = 0; i < sizes.length; at += sizes[i++]) {
      out[i] = java.util.Arrays.copyOfRange(bytes, at, at + sizes[i]);
    }
    return out;
  }

  private static int[] sizes(int n, int size) {
    int[] sizes = new int[(n + size - 1) / size];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = Math.min(size, n - i * size);
    }
    return sizes;
  }

  /** Mostly socket-sized reads, some tiny, some that hold several frames. */
  private static int[] randomSplits(int n, long seed) {
    Random random = new Random(seed);
    List<Integer> sizes = new ArrayList<>();
    for (int left = n; left > 0; ) {
      int kind = random.nextInt(10);
      int size =
          kind == 0
              ? 1 + random.nextInt(300_000)
              : kind < 3 ? 1 + random.nextInt(100) : 8_000 + random.nextInt(READ);
      size = Math.min(left, size);
      sizes.add(size);
      left -= size;
    }
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }

  private static byte[] random(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /** Text that LZ4 shrinks a lot. */
  private static byte[] text(int length) {
    byte[] bytes = new byte[length];
    byte[] text = "SELECT v FROM ks.vectors WHERE id = ?; ".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < length; i++) {
      bytes[i] = text[(i * 7 / 3) % text.length];
    }
    return bytes;
  }

  /**
   * Heap buffers from the default allocator (leak-tracked), recording the capacity of every {@code
   * buffer()} asked for: the cumulations (decompressed bodies are heap buffers, asked for with
   * {@code heapBuffer}).
   */
  static final class CountingAllocator extends AbstractByteBufAllocator {
    final List<Integer> buffers = new ArrayList<>();

    CountingAllocator() {
      super(false);
    }

    @Override
    public ByteBuf buffer(int initialCapacity) {
      buffers.add(initialCapacity);
      return super.buffer(initialCapacity);
    }

    @Override
    public ByteBuf buffer(int initialCapacity, int maxCapacity) {
      buffers.add(initialCapacity);
      return super.buffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return ByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return ByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }
}
