package io.cqlrows.netty.internal;

import static io.cqlrows.netty.internal.SegmentBuilder.MAX_PAYLOAD;
import static io.cqlrows.netty.internal.SegmentBuilder.concat;
import static io.cqlrows.netty.internal.SegmentBuilder.flip;
import static io.cqlrows.netty.internal.SegmentBuilder.tracked;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class BytesToSegmentDecoderTest {
  private static final byte[] HELLO = {'h', 'e', 'l', 'l', 'o'};

  @Test
  void decodesAnUncompressedSegment() {
    byte[] segment = SegmentBuilder.uncompressed(HELLO, true);
    EmbeddedChannel channel = channel(SegmentFormat.UNCOMPRESSED, 0);
    ByteBuf in = tracked(segment);
    assertTrue(channel.writeInbound(in));
    Segment s = channel.readInbound();
    assertTrue(s.selfContained());
    assertArrayEquals(HELLO, ByteBufUtil.getBytes(s.payload()));
    assertEquals(segment.length, decoder(channel).consumedBytes());
    assertTrue(s.release());
    assertEquals(0, in.refCnt(), "the segment held the last reference to the input");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesAnLz4CompressedSegment() {
    byte[] payload = compressible(5000);
    byte[] segment = SegmentBuilder.lz4(payload, true);
    assertTrue(segment.length < 1000, "compressed: " + segment.length);
    assertEquals(List.of(entry(true, payload)), decode(SegmentFormat.LZ4, segment));
  }

  @Test
  void decodesAnLz4SegmentStoredWithUncompressedLengthZero() {
    byte[] segment = SegmentBuilder.lz4Wire(HELLO, 0, false);
    // header word: compressed length 5, uncompressed length 0, not self-contained
    assertEquals("0500000000", ByteBufUtil.hexDump(segment, 0, 5));
    assertEquals(List.of(entry(false, HELLO)), decode(SegmentFormat.LZ4, segment));
  }

  @ParameterizedTest
  @CsvSource({
    "UNCOMPRESSED, UNCOMPRESSED",
    "UNCOMPRESSED, DETECT",
    "LZ4, LZ4",
    "LZ4, DETECT",
  })
  void readsTheSelfContainedFlagInBothFormats(SegmentFormat written, SegmentFormat configured) {
    byte[] payload = compressible(300);
    byte[] stream =
        concat(
            segment(written, payload, true), segment(written, payload, false),
            segment(written, HELLO, false), segment(written, HELLO, true));
    EmbeddedChannel channel = channel(configured, 0);
    assertEquals(
        List.of(
            entry(true, payload), entry(false, payload), entry(false, HELLO), entry(true, HELLO)),
        readAll(channel, tracked(stream)));
    assertEquals(written, decoder(channel).format());
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void detectsTheFormatFromTheFirstHeader(SegmentFormat written) {
    EmbeddedChannel channel = channel(SegmentFormat.DETECT, 0);
    assertEquals(SegmentFormat.DETECT, decoder(channel).format());
    byte[] segment = segment(written, HELLO, true);
    // seven bytes are not enough to tell
    assertFalse(channel.writeInbound(tracked(Arrays.copyOf(segment, 7))));
    assertEquals(SegmentFormat.DETECT, decoder(channel).format());
    assertEquals(
        List.of(entry(true, HELLO)),
        readAll(channel, tracked(Arrays.copyOfRange(segment, 7, segment.length))));
    assertEquals(written, decoder(channel).format());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesAnEmptyPayload() {
    assertEquals(
        List.of(entry(true, new byte[0])),
        decode(SegmentFormat.UNCOMPRESSED, SegmentBuilder.uncompressed(new byte[0], true)));
    assertEquals(
        List.of(entry(false, new byte[0])),
        decode(SegmentFormat.LZ4, SegmentBuilder.lz4Wire(new byte[0], 0, false)));
  }

  @Test
  void decodesPayloadsOfTheMaximumLength() {
    byte[] random = random(MAX_PAYLOAD, 1);
    byte[] text = compressible(MAX_PAYLOAD);
    byte[] lz4Stored = SegmentBuilder.lz4(random, false);
    byte[] lz4Compressed = SegmentBuilder.lz4(text, true);
    // header word: compressed length 131071 (0x1ffff), uncompressed length 0
    assertEquals("ffff010000", ByteBufUtil.hexDump(lz4Stored, 0, 5), "stored");
    assertTrue(lz4Compressed.length < 10_000, "compressed: " + lz4Compressed.length);
    assertEquals(
        List.of(entry(false, random)),
        decode(SegmentFormat.UNCOMPRESSED, SegmentBuilder.uncompressed(random, false)));
    assertEquals(
        List.of(entry(false, random), entry(true, text)),
        decode(SegmentFormat.LZ4, concat(lz4Stored, lz4Compressed)));
  }

  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void decodesIdenticallyWholeBytewiseAndInRandomSplits(SegmentFormat format) {
    byte[] stream =
        concat(
            segment(format, HELLO, true),
            segment(format, random(MAX_PAYLOAD, 2), false),
            segment(format, compressible(MAX_PAYLOAD), false),
            segment(format, new byte[0], true),
            segment(format, compressible(3000), false),
            segment(format, random(1000, 3), true));
    List<String> whole = decodeInPieces(format, stream, new int[] {stream.length});
    assertEquals(6, whole.size());
    int[] ones = new int[stream.length];
    Arrays.fill(ones, 1);
    assertEquals(whole, decodeInPieces(format, stream, ones), "one byte at a time");
    for (long seed : new long[] {1, 2, 3}) {
      assertEquals(
          whole,
          decodeInPieces(format, stream, randomSplits(stream.length, seed)),
          "random splits, seed " + seed);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "UNCOMPRESSED, 0", "UNCOMPRESSED, 2", "UNCOMPRESSED, 3", "UNCOMPRESSED, 5",
    "LZ4, 0", "LZ4, 4", "LZ4, 5", "LZ4, 7",
  })
  void rejectsACorruptHeaderCrc24AtTheSegmentOffset(SegmentFormat format, int corruptByte) {
    byte[] good = segment(format, HELLO, true);
    byte[] bad = flip(segment(format, HELLO, true), corruptByte, 0x10);
    EmbeddedChannel channel = channel(format, 1000);
    ByteBuf in = tracked(good, bad, good);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertEquals(1000 + good.length, e.offset());
    assertEquals(Reason.CRC24_MISMATCH, e.reason());
    assertEquals(BytesToSegmentDecoder.HEADER, e.structure());
    assertEquals(List.of(entry(true, HELLO)), readAll(channel), "the segment before the error");
    assertEquals(0, in.refCnt());
    assertDiscardsLaterInput(channel, good);
  }

  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void rejectsACorruptHeaderBeforeWaitingForItsPayload(SegmentFormat format) {
    // the corrupt header claims a 131071-byte payload: the error must not wait for it
    byte[] bad =
        flip(segment(format, random(MAX_PAYLOAD, 4), false), format.headerLength() - 1, 0x80);
    EmbeddedChannel channel = channel(format, 0);
    for (int i = 0; i < format.headerLength() - 1; i++) {
      assertFalse(channel.writeInbound(tracked(new byte[] {bad[i]})));
    }
    ByteBuf last =
        tracked(Arrays.copyOfRange(bad, format.headerLength() - 1, format.headerLength()));
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(last));
    assertTrue(e.connectionLevel());
    assertEquals(0, e.offset());
    assertEquals(Reason.CRC24_MISMATCH, e.reason());
    assertEquals(0, last.refCnt());
    assertDiscardsLaterInput(channel, Arrays.copyOfRange(bad, format.headerLength(), 1000));
  }

  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void rejectsACorruptPayloadCrc32(SegmentFormat format) {
    byte[] good = segment(format, HELLO, true);
    int header = format.headerLength();
    for (int corruptByte : new int[] {header, header + 4, good.length - 1}) {
      EmbeddedChannel channel = channel(format, 0);
      ByteBuf in = tracked(good, flip(good, corruptByte, 0x01));
      CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
      assertTrue(e.connectionLevel());
      assertEquals(good.length, e.offset());
      assertEquals(Reason.CRC32_MISMATCH, e.reason());
      assertEquals(BytesToSegmentDecoder.SEGMENT, e.structure());
      assertEquals(1, readAll(channel).size());
      assertEquals(0, in.refCnt());
      assertDiscardsLaterInput(channel, good);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {-1000, -1, 1, MAX_PAYLOAD - 5000})
  void rejectsAnLz4PayloadThatLiesAboutItsUncompressedLength(int lie) {
    byte[] payload = compressible(5000);
    byte[] segment = SegmentBuilder.lz4Wire(SegmentBuilder.compress(payload), 5000 + lie, true);
    EmbeddedChannel channel = channel(SegmentFormat.LZ4, 0);
    ByteBuf in = tracked(segment);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(0, e.offset());
    assertEquals(Reason.CORRUPT_COMPRESSION, e.reason());
    assertEquals(BytesToSegmentDecoder.SEGMENT, e.structure());
    assertInstanceOf(CompressionException.class, e.getCause(), "the decompressor's error is kept");
    assertNull(channel.readInbound());
    assertEquals(0, in.refCnt());
    assertDiscardsLaterInput(channel, SegmentBuilder.lz4(HELLO, true));
  }

  @Test
  void rejectsAnEmptyLz4PayloadThatClaimsAnUncompressedLength() {
    EmbeddedChannel channel = channel(SegmentFormat.LZ4, 0);
    ByteBuf in = tracked(SegmentBuilder.lz4Wire(new byte[0], 5, true));
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.CORRUPT_COMPRESSION, e.reason());
    assertEquals(0, in.refCnt());
    assertDiscardsLaterInput(channel, SegmentBuilder.lz4(HELLO, true));
  }

  @Test
  void rejectsACorruptLz4Payload() {
    byte[] block = SegmentBuilder.compress(compressible(5000));
    for (int i = 0; i < block.length; i += 7) {
      block[i] = (byte) 0xFF;
    }
    byte[] good = SegmentBuilder.lz4(HELLO, true);
    EmbeddedChannel channel = channel(SegmentFormat.LZ4, 0);
    ByteBuf in = tracked(good, SegmentBuilder.lz4Wire(block, 5000, true));
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(good.length, e.offset());
    assertEquals(Reason.CORRUPT_COMPRESSION, e.reason());
    assertInstanceOf(CompressionException.class, e.getCause(), "the decompressor's error is kept");
    assertEquals(1, readAll(channel).size());
    assertDiscardsLaterInput(channel, good);
  }

  @Test
  void rejectsAHeaderThatIsNeitherFormatWhenDetecting() {
    EmbeddedChannel channel = channel(SegmentFormat.DETECT, 0);
    ByteBuf in = tracked(flip(SegmentBuilder.lz4(HELLO, true), 5, 0x01));
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(0, e.offset());
    assertEquals(Reason.CRC24_MISMATCH, e.reason());
    assertEquals(0, in.refCnt());
    assertDiscardsLaterInput(channel, SegmentBuilder.lz4(HELLO, true));
  }

  @ParameterizedTest
  @CsvSource({
    "UNCOMPRESSED, 3", "UNCOMPRESSED, 6", "UNCOMPRESSED, 12",
    "LZ4, 5", "LZ4, 8", "LZ4, 12",
  })
  void reportsInputEndingInsideASegmentWhenTheChannelCloses(SegmentFormat format, int cut) {
    SegmentFormat written = format == SegmentFormat.DETECT ? SegmentFormat.LZ4 : format;
    byte[] good = segment(written, HELLO, true);
    byte[] partial = Arrays.copyOf(segment(written, compressible(100), false), cut);
    EmbeddedChannel channel = channel(format, 0);
    ByteBuf in = tracked(good, partial);
    assertTrue(channel.writeInbound(in));
    assertEquals(1, readAll(channel).size());
    CqlFrameException e = assertThrows(CqlFrameException.class, channel::finish);
    assertTrue(e.connectionLevel());
    assertEquals(good.length, e.offset());
    assertEquals(Reason.TRUNCATED, e.reason());
    assertEquals(BytesToSegmentDecoder.SEGMENT, e.structure());
    assertEquals(0, in.refCnt(), "the incomplete segment's bytes are released");
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 8, 12})
  void reportsInputEndingInsideTheFirstSegmentWhileDetecting(int cut) {
    EmbeddedChannel channel = channel(SegmentFormat.DETECT, 0);
    ByteBuf in = tracked(Arrays.copyOf(SegmentBuilder.lz4(compressible(100), true), cut));
    assertFalse(channel.writeInbound(in));
    CqlFrameException e = assertThrows(CqlFrameException.class, channel::finish);
    assertTrue(e.connectionLevel());
    assertEquals(0, e.offset());
    assertEquals(0, in.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void closesQuietlyBetweenSegments() {
    EmbeddedChannel channel = channel(SegmentFormat.UNCOMPRESSED, 0);
    assertEquals(1, readAll(channel, tracked(SegmentBuilder.uncompressed(HELLO, true))).size());
    assertFalse(channel.finish());
  }

  /** After a connection-level error, input is released unread and nothing is emitted. */
  private static void assertDiscardsLaterInput(EmbeddedChannel channel, byte[] validSegment) {
    assertTrue(decoder(channel).isBroken());
    for (int i = 0; i < 3; i++) {
      ByteBuf later = tracked(validSegment);
      assertFalse(channel.writeInbound(later));
      assertEquals(0, later.refCnt(), "input after the error is released unread");
    }
    assertNull(channel.readInbound());
    assertFalse(channel.finishAndReleaseAll());
  }

  private static byte[] segment(SegmentFormat format, byte[] payload, boolean selfContained) {
    return format == SegmentFormat.LZ4
        ? SegmentBuilder.lz4(payload, selfContained)
        : SegmentBuilder.uncompressed(payload, selfContained);
  }

  private static EmbeddedChannel channel(SegmentFormat format, long startOffset) {
    return new EmbeddedChannel(new BytesToSegmentDecoder(format, startOffset));
  }

  private static BytesToSegmentDecoder decoder(EmbeddedChannel channel) {
    return channel.pipeline().get(BytesToSegmentDecoder.class);
  }

  /** Decodes the bytes in one write; checks that the input and every segment are released. */
  private static List<String> decode(SegmentFormat format, byte[] stream) {
    EmbeddedChannel channel = channel(format, 0);
    ByteBuf in = tracked(stream);
    List<String> out = readAll(channel, in);
    assertEquals(stream.length, decoder(channel).consumedBytes());
    assertEquals(0, in.refCnt());
    assertFalse(channel.finishAndReleaseAll());
    return out;
  }

  private static List<String> readAll(EmbeddedChannel channel, ByteBuf in) {
    channel.writeInbound(in);
    return readAll(channel);
  }

  /** The segments read so far as entries, each released. */
  private static List<String> readAll(EmbeddedChannel channel) {
    List<String> out = new ArrayList<>();
    for (Segment s; (s = channel.readInbound()) != null; ) {
      out.add(entry(s.selfContained(), ByteBufUtil.getBytes(s.payload())));
      // a retained slice may share its count with the input: callers check the input instead
      s.release();
    }
    return out;
  }

  private static String entry(boolean selfContained, byte[] payload) {
    return (selfContained ? "self-contained " : "slice ") + ByteBufUtil.hexDump(payload);
  }

  private static List<String> decodeInPieces(SegmentFormat format, byte[] stream, int[] sizes) {
    EmbeddedChannel channel = channel(format, 0);
    // paranoid leak tracking of each cumulation would be slow byte by byte; segments are still
    // checked: each release() must free its payload, and finishAndReleaseAll() finds nothing
    channel.config().setAllocator(new UnpooledByteBufAllocator(false, true));
    List<String> out = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      channel.writeInbound(Unpooled.wrappedBuffer(stream, at, size));
      at += size;
      out.addAll(readAll(channel));
    }
    assertEquals(stream.length, at);
    assertEquals(stream.length, decoder(channel).consumedBytes());
    assertFalse(channel.finishAndReleaseAll());
    return out;
  }

  private static int[] randomSplits(int n, long seed) {
    Random random = new Random(seed);
    List<Integer> sizes = new ArrayList<>();
    for (int left = n; left > 0; ) {
      int size =
          Math.min(
              left, random.nextInt(8) == 0 ? 1 + random.nextInt(150_000) : 1 + random.nextInt(16));
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
  private static byte[] compressible(int length) {
    byte[] bytes = new byte[length];
    byte[] text = "SELECT v FROM ks.vectors WHERE id = ?; ".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < length; i++) {
      bytes[i] = text[(i * 7 / 3) % text.length];
    }
    return bytes;
  }
}
