package io.cqlrows.netty.internal;

import static io.cqlrows.netty.CqlTestFrames.corpusBytes;
import static io.cqlrows.netty.CqlTestFrames.corpusLines;
import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BytesToFrameDecoderTest {
  private static final byte[] VOID_BODY = {0, 0, 0, 1};

  @Test
  void decodesCaptureIdenticallyWholeBytewiseAndInRandomSplits() {
    byte[] capture = corpusBytes("conn-01.s2c.bin");
    List<String> whole = decodeInPieces(capture, new int[] {capture.length});
    assertEquals(
        corpusLines("frames.jsonl", 1).stream()
            .filter(f -> f.get("dir").asText().equals("s2c"))
            .count(),
        whole.size());
    assertEquals(whole, decodeInPieces(capture, ones(capture.length)), "one byte at a time");
    for (long seed : new long[] {1, 2, 3}) {
      assertEquals(
          whole,
          decodeInPieces(capture, randomSplits(capture.length, seed)),
          "random splits, seed " + seed);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void decodesHeadersAsTheCorpusRecordsThem(int conn) {
    byte[] capture = corpusBytes(String.format("conn-%02d.s2c.bin", conn));
    List<JsonNode> expected =
        corpusLines("frames.jsonl", conn).stream()
            .filter(f -> f.get("dir").asText().equals("s2c"))
            .toList();
    List<Frame> frames = decodeAll(capture);
    try {
      assertEquals(expected.size(), frames.size());
      for (int i = 0; i < frames.size(); i++) {
        Frame frame = frames.get(i);
        JsonNode e = expected.get(i);
        String where = "frame " + i;
        assertEquals(e.get("stream").asInt(), frame.streamId(), where);
        assertEquals(e.get("opcode").asText(), frame.opcode().name(), where);
        assertEquals(Integer.decode(e.get("flags").asText()), frame.flags(), where);
        assertEquals(Integer.decode(e.get("version_byte").asText()) & 0x7F, frame.version());
        assertTrue(frame.isResponse(), where);
        if (frame.flags() == 0) {
          assertEquals(e.get("length").asInt(), frame.body().readableBytes(), where);
          assertEquals(e.get("file_offset").asLong() + 9, frame.bodyOffset(), where);
        }
      }
    } finally {
      frames.forEach(f -> assertTrue(f.release()));
    }
  }

  @Test
  void decodesTheWarningAndTracingPreludesOfTheCapture() {
    List<Frame> frames = decodeAll(corpusBytes("conn-01.s2c.bin"));
    try {
      int checked = 0;
      for (JsonNode result : corpusLines("results.jsonl", 1)) {
        Frame frame = frames.get(result.get("frame").asInt());
        List<String> warnings = new ArrayList<>();
        result.path("warnings").forEach(w -> warnings.add(w.asText()));
        assertEquals(warnings, frame.warnings());
        JsonNode tracing = result.path("tracing_id");
        assertEquals(
            tracing.isMissingNode() ? null : UUID.fromString(tracing.asText()), frame.tracingId());
        checked += warnings.isEmpty() && tracing.isMissingNode() ? 0 : 1;
        // the prelude is consumed: the body starts with the RESULT kind Rows
        assertEquals(2, frame.body().getInt(frame.body().readerIndex()));
      }
      assertEquals(2, checked, "the capture has one warning and one tracing frame");
    } finally {
      frames.forEach(f -> assertTrue(f.release()));
    }
  }

  @Test
  void decodesAllThreePreludeFieldsInWireOrder() {
    UUID id = UUID.fromString("f37d4070-ec8a-11f1-a84e-d56a506f3312");
    byte[] body =
        CqlBytes.create()
            .int64(id.getMostSignificantBits())
            .int64(id.getLeastSignificantBits())
            .int16(2)
            .string("w1")
            .string("wü2")
            .int16(2)
            .string("tablets-routing-v1")
            .bytes("0102")
            .string("gone")
            .int32(-1)
            .hex("00000001")
            .toArray();
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    assertTrue(channel.writeInbound(tracked(frameBytes(0x84, 0x0E, 7, 0x08, body))));
    Frame frame = channel.readInbound();
    assertEquals(id, frame.tracingId());
    assertEquals(List.of("w1", "wü2"), frame.warnings());
    assertEquals(
        List.of("tablets-routing-v1", "gone"), List.copyOf(frame.customPayload().keySet()));
    assertArrayEquals(new byte[] {1, 2}, frame.customPayload().get("tablets-routing-v1"));
    assertNull(frame.customPayload().get("gone"));
    assertEquals("00000001", ByteBufUtil.hexDump(frame.body()));
    assertEquals(9 + body.length - 4, frame.bodyOffset());
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void readsNoTracingIdInARequestWithTheTracingFlag() {
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    channel.writeInbound(tracked(frameBytes(0x04, 0x02, 3, 0x07, VOID_BODY)));
    Frame frame = channel.readInbound();
    assertFalse(frame.isResponse());
    assertNull(frame.tracingId());
    assertEquals(Opcode.QUERY, frame.opcode());
    assertEquals(4, frame.body().readableBytes());
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void reportsMalformedPreludeForItsStreamAndGoesOn() {
    byte[] bad = CqlBytes.create().int16(5).string("only one warning").toArray();
    ByteBuf in =
        tracked(
            frameBytes(0x84, Frame.FLAG_WARNING, 9, 0x08, bad),
            frameBytes(0x84, 0, 10, 0x08, VOID_BODY));
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertFalse(e.connectionLevel());
    assertEquals(CqlFrameException.Reason.BAD_PRELUDE, e.reason());
    assertEquals(9, e.streamId());
    // the second of the five warnings would start after the first: 2 + 2 + 16 bytes into the body
    assertEquals(9 + 20, e.offset());
    assertNull(e.parseError(), "not a RESULT body the parser rejected");
    assertInstanceOf(PreludeReader.Malformed.class, e.getCause(), "the prelude reader's error");
    assertEquals(20, ((PreludeReader.Malformed) e.getCause()).offset, "within the body");
    Frame next = channel.readInbound();
    assertEquals(10, next.streamId());
    assertTrue(next.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void reportsUndefinedOpcodeForItsStreamAndGoesOn() {
    ByteBuf in =
        tracked(frameBytes(0x84, 0, 4, 0x04, VOID_BODY), frameBytes(0x84, 0, 5, 0x02, new byte[0]));
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertFalse(e.connectionLevel());
    assertEquals(4, e.streamId());
    assertEquals(0, e.offset());
    Frame next = channel.readInbound();
    assertEquals(Opcode.READY, next.opcode());
    assertTrue(next.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @ValueSource(ints = {0x00, 0x02, 0x07, 0x82, 0x87, 0xFF})
  void rejectsBadVersionByteAndDiscardsLaterInput(int versionByte) {
    byte[] good = frameBytes(0x84, 0, 1, 0x08, VOID_BODY);
    ByteBuf in = tracked(good, frameBytes(versionByte, 0, 2, 0x08, VOID_BODY));
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertEquals(good.length, e.offset());
    Frame first = channel.readInbound();
    assertEquals(1, first.streamId());
    assertTrue(first.release());
    assertEquals(0, in.refCnt(), "the first frame held the last reference to the input");

    ByteBuf later = tracked(good);
    assertFalse(channel.writeInbound(later));
    assertEquals(0, later.refCnt(), "input after the error is released unread");
    assertTrue(decoder(channel).isBroken());
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @ValueSource(ints = {0x03, 0x83, 0x04, 0x84, 0x05, 0x85, 0x06, 0x86})
  void acceptsVersionsThreeToSixInEitherDirection(int versionByte) {
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    channel.writeInbound(tracked(frameBytes(versionByte, 0, 0, 0x05, new byte[0])));
    Frame frame = channel.readInbound();
    assertEquals(versionByte & 0x7F, frame.version());
    assertEquals((versionByte & 0x80) != 0, frame.isResponse());
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsNegativeBodyLength() {
    ByteBuf in = tracked(ByteBufUtil.decodeHexDump("8400000108fffffff0"));
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(0, e.offset());
    assertEquals(Reason.BAD_LENGTH, e.reason());
    assertEquals("frame header", e.structure());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesABodyOfExactlyTheLimit() {
    EmbeddedChannel channel = newChannel(ParseLimits.builder().maxFrameBodyLength(64).build());
    assertTrue(channel.writeInbound(tracked(frameBytes(0x84, 0, 3, 0x08, new byte[64]))));
    Frame frame = channel.readInbound();
    assertEquals(64, frame.body().readableBytes());
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  /**
   * A length over the limit breaks the connection at its header: the decoder neither waits for nor
   * skips the bytes it announces, so the valid frames after it are not decoded either.
   */
  @ParameterizedTest
  @ValueSource(ints = {65, Integer.MAX_VALUE})
  void failsTheConnectionAtAHeaderDeclaringMoreThanTheLimit(int declared) {
    byte[] good = frameBytes(0x84, 0, 1, 0x08, VOID_BODY);
    byte[] header = java.util.Arrays.copyOf(frameBytes(0x84, 0, 3, 0x08, new byte[0]), 9);
    header[5] = (byte) (declared >>> 24);
    header[6] = (byte) (declared >>> 16);
    header[7] = (byte) (declared >>> 8);
    header[8] = (byte) declared;
    byte[] next = frameBytes(0x84, 0, 4, 0x08, VOID_BODY);
    EmbeddedChannel channel = newChannel(ParseLimits.builder().maxFrameBodyLength(64).build());
    ByteBuf in = tracked(good, header, next, next);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.FRAME_TOO_LARGE, e.reason());
    assertEquals(3, e.streamId(), "the header's stream");
    assertEquals(good.length, e.offset());
    assertEquals("frame header", e.structure());
    assertInstanceOf(TooLongFrameException.class, e.getCause());
    Frame first = channel.readInbound();
    assertEquals(1, first.streamId());
    assertTrue(first.release());
    assertNull(channel.readInbound(), "nothing after the header is decoded");
    assertEquals(0, in.refCnt());
    assertTrue(decoder(channel).isBroken());
    assertEquals(0, decoder(channel).bufferedBytes());

    ByteBuf later = tracked(next);
    assertFalse(channel.writeInbound(later));
    assertEquals(0, later.refCnt(), "input after the error is released unread");
    assertFalse(channel.finish(), "closing a broken decoder reports nothing more");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void failsTheConnectionAsSoonAsTheHeaderOfAFrameOverTheLimitIsIn() {
    byte[] tooLong = frameBytes(0x84, 0, 3, 0x08, new byte[100]);
    EmbeddedChannel channel = newChannel(ParseLimits.builder().maxFrameBodyLength(64).build());
    assertFalse(channel.writeInbound(tracked(java.util.Arrays.copyOf(tooLong, 8))));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () -> channel.writeInbound(tracked(java.util.Arrays.copyOfRange(tooLong, 8, 9))));
    assertEquals(Reason.FRAME_TOO_LARGE, e.reason());
    assertTrue(e.connectionLevel());
    assertEquals(0, e.offset());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsCompressedFrameOnV4() {
    ByteBuf in = tracked(frameBytes(0x84, Frame.FLAG_COMPRESSION, 2, 0x08, VOID_BODY));
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.UNEXPECTED_COMPRESSION, e.reason());
    assertEquals(0, e.offset());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void ignoresTheDeprecatedCompressionFlagOnV5() {
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    channel.writeInbound(tracked(frameBytes(0x85, Frame.FLAG_COMPRESSION, 0, 0x02, new byte[0])));
    Frame frame = channel.readInbound();
    assertEquals(Opcode.READY, frame.opcode());
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void reportsInputEndingInsideAFrameWhenTheChannelCloses() {
    byte[] good = frameBytes(0x84, 0, 1, 0x08, VOID_BODY);
    byte[] cut = frameBytes(0x84, 0, 2, 0x08, new byte[20]);
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    assertTrue(channel.writeInbound(tracked(good, java.util.Arrays.copyOf(cut, 15))));
    assertEquals(good.length, decoder(channel).consumedBytes());
    assertEquals(15, decoder(channel).bufferedBytes());
    Frame frame = channel.readInbound();
    assertTrue(frame.release());
    CqlFrameException e = assertThrows(CqlFrameException.class, channel::finish);
    assertTrue(e.connectionLevel());
    assertEquals(good.length, e.offset());
    assertEquals(Reason.TRUNCATED, e.reason());
    assertFalse(channel.finishAndReleaseAll());
  }

  private static EmbeddedChannel newChannel(ParseLimits limits) {
    return new EmbeddedChannel(new BytesToFrameDecoder(limits, Compression.NONE));
  }

  /**
   * The parts in one buffer from the default allocator, which the leak check tracks (unpooled heap
   * buffers are not tracked). The caller owns the buffer and releases it.
   */
  private static ByteBuf tracked(byte[]... parts) {
    ByteBuf buf = ByteBufAllocator.DEFAULT.buffer();
    for (byte[] part : parts) {
      buf.writeBytes(part);
    }
    return buf;
  }

  private static BytesToFrameDecoder decoder(EmbeddedChannel channel) {
    return channel.pipeline().get(BytesToFrameDecoder.class);
  }

  /** Decodes the whole capture in one write; the caller releases the frames. */
  private static List<Frame> decodeAll(byte[] capture) {
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    channel.writeInbound(tracked(capture));
    List<Frame> frames = new ArrayList<>();
    for (Frame f; (f = channel.readInbound()) != null; ) {
      frames.add(f);
    }
    assertFalse(channel.finishAndReleaseAll());
    return frames;
  }

  /** Feeds the capture in pieces of the given sizes; returns a digest line per frame. */
  private static List<String> decodeInPieces(byte[] capture, int[] sizes) {
    EmbeddedChannel channel = newChannel(ParseLimits.defaults());
    // 1.4 million writes: paranoid leak tracking of the cumulation would take ~15 s. The frames
    // are still checked: each release() must free it, and finishAndReleaseAll() finds nothing.
    channel.config().setAllocator(new UnpooledByteBufAllocator(false, true));
    List<String> digests = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      channel.writeInbound(Unpooled.wrappedBuffer(capture, at, size));
      at += size;
      for (Frame f; (f = channel.readInbound()) != null; ) {
        digests.add(digest(f));
        assertTrue(f.release());
      }
    }
    assertEquals(capture.length, at);
    assertFalse(channel.finishAndReleaseAll());
    return digests;
  }

  private static String digest(Frame f) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(ByteBufUtil.getBytes(f.body()));
      return f.streamId()
          + "/"
          + f.opcode()
          + "/"
          + f.flags()
          + "/"
          + f.bodyOffset()
          + "/"
          + f.tracingId()
          + "/"
          + f.warnings()
          + "/"
          + ByteBufUtil.hexDump(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static int[] ones(int n) {
    int[] sizes = new int[n];
    java.util.Arrays.fill(sizes, 1);
    return sizes;
  }

  private static int[] randomSplits(int n, long seed) {
    Random random = new Random(seed);
    List<Integer> sizes = new ArrayList<>();
    for (int left = n; left > 0; ) {
      // mostly small pieces, some large ones that hold several frames
      int size =
          Math.min(
              left, random.nextInt(8) == 0 ? 1 + random.nextInt(200_000) : 1 + random.nextInt(64));
      sizes.add(size);
      left -= size;
    }
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }
}
