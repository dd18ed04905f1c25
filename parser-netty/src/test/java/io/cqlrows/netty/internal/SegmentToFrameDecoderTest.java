package io.cqlrows.netty.internal;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.internal.SegmentBuilder.concat;
import static io.cqlrows.netty.internal.SegmentBuilder.tracked;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SegmentToFrameDecoderTest {
  private static final int RESULT = 0x08;
  private static final int READY = 0x02;
  private static final byte[] VOID_BODY = {0, 0, 0, 1};
  private static final ParseLimits LIMIT_1000 =
      ParseLimits.builder().maxFrameBodyLength(1000).build();

  /** Payload buffers handed to the decoder, to check that all end released. */
  private final List<ByteBuf> inputs = new ArrayList<>();

  @Test
  void decodesTheEnvelopesOfASelfContainedSegmentInOrder() {
    byte[] body3 = random(100, 1);
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    assertTrue(
        channel.writeInbound(
            segment(
                true,
                envelope(1, RESULT, VOID_BODY),
                envelope(2, READY, new byte[0]),
                envelope(-1, 0x0C, body3))));
    assertFrame(channel.readInbound(), 1, Opcode.RESULT, VOID_BODY);
    assertFrame(channel.readInbound(), 2, Opcode.READY, new byte[0]);
    assertFrame(channel.readInbound(), -1, Opcode.EVENT, body3);
    assertNull(channel.readInbound());
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesAnEmptySelfContainedSegmentToNothing() {
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    assertFalse(channel.writeInbound(segment(true)));
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The first cut is inside the 9-byte header, at its end, or well after it. */
  @ParameterizedTest
  @ValueSource(ints = {1, 4, 8, 9, 1000})
  void gathersAnEnvelopeSplitAcrossFiveSlices(int firstCut) {
    byte[] body = random(5000, 2);
    byte[] envelope = envelope(42, RESULT, body);
    int[] cuts = {0, firstCut, 2000, 3000, 4000, envelope.length};
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    for (int i = 0; i < 5; i++) {
      boolean read =
          channel.writeInbound(segment(false, Arrays.copyOfRange(envelope, cuts[i], cuts[i + 1])));
      assertEquals(i == 4, read, "slice " + i);
      assertEquals(i == 4 ? 0 : cuts[i + 1], decoder(channel).bufferedBytes(), "slice " + i);
    }
    assertFrame(channel.readInbound(), 42, Opcode.RESULT, body);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesAWholeEnvelopeInOneSlice() {
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    assertTrue(channel.writeInbound(segment(false, envelope(3, RESULT, VOID_BODY))));
    assertFrame(channel.readInbound(), 3, Opcode.RESULT, VOID_BODY);
    assertTrue(channel.writeInbound(segment(true, envelope(4, RESULT, VOID_BODY))));
    assertFrame(channel.readInbound(), 4, Opcode.RESULT, VOID_BODY);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesEnvelopesOfExactlyTheLimit() {
    byte[] body = random(1000, 3);
    EmbeddedChannel channel = channel(LIMIT_1000);
    assertTrue(channel.writeInbound(segment(true, envelope(1, RESULT, body))));
    assertFrame(channel.readInbound(), 1, Opcode.RESULT, body);
    byte[] sliced = envelope(2, RESULT, body);
    assertFalse(channel.writeInbound(segment(false, Arrays.copyOf(sliced, 500))));
    assertTrue(channel.writeInbound(segment(false, Arrays.copyOfRange(sliced, 500, 1009))));
    assertFrame(channel.readInbound(), 2, Opcode.RESULT, body);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /**
   * An envelope over the limit breaks the connection as soon as its header is in, whether the first
   * slice ends inside the header, at its end, or after it; it names the envelope's stream and the
   * segment its header starts in.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 9, 500})
  void failsTheConnectionAtAnEnvelopeOverTheLimitInSlices(int firstCut) {
    byte[] tooLong = envelope(7, RESULT, random(3000, 3));
    EmbeddedChannel channel = channel(LIMIT_1000);
    Segment first = segment(false, 1000, Arrays.copyOf(tooLong, firstCut));
    Segment second = segment(false, 2000, Arrays.copyOfRange(tooLong, firstCut, 1500));
    CqlFrameException e;
    if (firstCut < 9) {
      assertFalse(channel.writeInbound(first));
      e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(second));
    } else {
      e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(first));
      assertFalse(channel.writeInbound(second));
      assertEquals(0, second.refCnt(), "a later slice is released unread");
    }
    assertTrue(e.connectionLevel());
    assertEquals(Reason.FRAME_TOO_LARGE, e.reason());
    assertEquals(7, e.streamId());
    assertEquals(1000, e.offset(), "the segment the envelope starts in");
    assertEquals(SegmentToFrameDecoder.ENVELOPE, e.structure());
    assertInstanceOf(TooLongFrameException.class, e.getCause());
    assertBroken(channel);
  }

  @Test
  void failsTheConnectionAtAnEnvelopeOverTheLimitInASelfContainedSegment() {
    EmbeddedChannel channel = channel(LIMIT_1000);
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                channel.writeInbound(
                    segment(
                        true,
                        500,
                        envelope(1, RESULT, VOID_BODY),
                        envelope(2, RESULT, random(1001, 12)),
                        envelope(3, RESULT, VOID_BODY))));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.FRAME_TOO_LARGE, e.reason());
    assertEquals(2, e.streamId());
    assertEquals(500, e.offset());
    assertFrame(channel.readInbound(), 1, Opcode.RESULT, VOID_BODY);
    assertNull(channel.readInbound(), "the envelope after it is not decoded");
    assertBroken(channel);
  }

  @Test
  void failsTheConnectionAtALengthOverTheLimitBeforeCheckingItAgainstTheSegment() {
    // a 2 GiB length also runs past its segment: the length is what is reported
    byte[] header = Arrays.copyOf(envelope(4, RESULT, new byte[0]), 9);
    header[5] = 0x7F;
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    CqlFrameException e =
        assertThrows(CqlFrameException.class, () -> channel.writeInbound(segment(true, header)));
    assertEquals(Reason.FRAME_TOO_LARGE, e.reason());
    assertEquals(4, e.streamId());
    assertBroken(channel);
  }

  /** Decompression limit of the tests of decompressed slices. */
  private static final ParseLimits DECOMPRESS_1000 =
      ParseLimits.builder().maxDecompressedLength(1000).build();

  @Test
  void decodesAnEnvelopeWhoseDecompressedSlicesMakeExactlyTheLimit() {
    byte[] envelope = envelope(6, RESULT, random(991, 13));
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    assertFalse(channel.writeInbound(decompressed(false, 0, Arrays.copyOf(envelope, 400))));
    assertTrue(
        channel.writeInbound(decompressed(false, 0, Arrays.copyOfRange(envelope, 400, 1000))));
    assertFrame(channel.readInbound(), 6, Opcode.RESULT, Arrays.copyOfRange(envelope, 9, 1000));
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /** Slices stored as they came over the wire count against the frame limit only. */
  @Test
  void countsOnlyTheSlicesThatWereDecompressed() {
    byte[] envelope = envelope(6, RESULT, random(2991, 14));
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    channel.writeInbound(decompressed(false, 0, Arrays.copyOf(envelope, 1000)));
    channel.writeInbound(segment(false, Arrays.copyOfRange(envelope, 1000, 2500)));
    assertTrue(channel.writeInbound(segment(false, Arrays.copyOfRange(envelope, 2500, 3000))));
    assertFrame(channel.readInbound(), 6, Opcode.RESULT, Arrays.copyOfRange(envelope, 9, 3000));
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /**
   * The slice that takes the decompressed bytes over the limit fails the envelope for its stream,
   * before it is kept: nothing is held any more, the rest of the envelope's slices are released as
   * they come, and the envelopes after it decode. The first slice ends inside the header, at its
   * end, or after it.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 9, 500})
  void failsOnlyTheEnvelopeWhoseDecompressedSlicesGoOverTheLimit(int firstCut) {
    byte[] envelope = envelope(7, RESULT, random(2991, 15));
    int[] cuts = {0, firstCut, 1001, 2000, 3000};
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    assertFalse(channel.writeInbound(decompressed(false, 100, Arrays.copyOf(envelope, cuts[1]))));
    Segment over = decompressed(false, 200, Arrays.copyOfRange(envelope, cuts[1], cuts[2]));
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(over));
    assertFalse(e.connectionLevel());
    assertEquals(Reason.DECOMPRESSED_TOO_LARGE, e.reason());
    assertEquals(7, e.streamId());
    assertEquals(100, e.offset(), "the segment the envelope starts in");
    assertEquals(0, decoder(channel).bufferedBytes());
    assertAllInputsReleased();
    for (int i = 2; i < 4; i++) {
      Segment rest = decompressed(false, 300, Arrays.copyOfRange(envelope, cuts[i], cuts[i + 1]));
      assertFalse(channel.writeInbound(rest));
      assertEquals(0, rest.refCnt(), "slice " + i + " is released, not kept");
    }
    assertFalse(decoder(channel).isBroken());

    assertTrue(channel.writeInbound(decompressed(true, 400, envelope(8, RESULT, VOID_BODY))));
    assertFrame(channel.readInbound(), 8, Opcode.RESULT, VOID_BODY);
    byte[] next = envelope(9, RESULT, random(991, 16));
    channel.writeInbound(decompressed(false, 500, Arrays.copyOf(next, 500)));
    assertTrue(
        channel.writeInbound(decompressed(false, 600, Arrays.copyOfRange(next, 500, next.length))));
    assertFrame(channel.readInbound(), 9, Opcode.RESULT, Arrays.copyOfRange(next, 9, 1000));
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void failsAnEnvelopeWhoseLastSliceGoesOverTheLimitWithoutDiscardingAnyMore() {
    byte[] envelope = envelope(7, RESULT, random(1491, 17));
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    channel.writeInbound(decompressed(false, 0, Arrays.copyOf(envelope, 900)));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                channel.writeInbound(
                    decompressed(false, 0, Arrays.copyOfRange(envelope, 900, envelope.length))));
    assertEquals(Reason.DECOMPRESSED_TOO_LARGE, e.reason());
    assertTrue(channel.writeInbound(segment(true, envelope(8, RESULT, VOID_BODY))));
    assertFrame(channel.readInbound(), 8, Opcode.RESULT, VOID_BODY);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The decoder never keeps more decompressed bytes than the limit, however many slices come. */
  @Test
  void neverHoldsMoreDecompressedBytesThanTheLimit() {
    byte[] envelope = envelope(7, RESULT, new byte[100_000]);
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    List<Integer> held = new ArrayList<>();
    assertThrows(
        CqlFrameException.class,
        () -> {
          for (int at = 0; at < envelope.length; at += 300) {
            channel.writeInbound(
                decompressed(
                    false,
                    0,
                    Arrays.copyOfRange(envelope, at, Math.min(envelope.length, at + 300))));
            held.add(decoder(channel).bufferedBytes());
          }
        });
    for (int at = 1200; at < envelope.length; at += 300) {
      channel.writeInbound(
          decompressed(
              false, 0, Arrays.copyOfRange(envelope, at, Math.min(envelope.length, at + 300))));
      held.add(decoder(channel).bufferedBytes());
    }
    assertEquals(List.of(300, 600, 900), held.subList(0, 3));
    assertTrue(held.subList(3, held.size()).stream().allMatch(n -> n == 0), held.toString());
    assertFalse(decoder(channel).isBroken());
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsSlicesThatRunPastAnEnvelopeBeingDiscarded() {
    byte[] envelope = envelope(7, RESULT, random(2991, 18));
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    assertThrows(
        CqlFrameException.class,
        () -> channel.writeInbound(decompressed(false, 0, Arrays.copyOf(envelope, 1500))));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                channel.writeInbound(
                    segment(
                        false,
                        Arrays.copyOfRange(envelope, 1500, envelope.length),
                        new byte[] {1})));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.SEGMENT_MISMATCH, e.reason());
    assertBroken(channel);
  }

  @Test
  void rejectsASelfContainedSegmentWhileAnEnvelopeIsDiscarded() {
    byte[] envelope = envelope(7, RESULT, random(2991, 19));
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    assertThrows(
        CqlFrameException.class,
        () -> channel.writeInbound(decompressed(false, 0, Arrays.copyOf(envelope, 1500))));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () -> channel.writeInbound(segment(true, envelope(8, RESULT, VOID_BODY))));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.SEGMENT_MISMATCH, e.reason());
    assertBroken(channel);
  }

  @Test
  void reportsTheChannelClosingWhileAnEnvelopeIsDiscarded() {
    byte[] envelope = envelope(7, RESULT, random(2991, 20));
    EmbeddedChannel channel = channel(DECOMPRESS_1000);
    assertThrows(
        CqlFrameException.class,
        () -> channel.writeInbound(decompressed(false, 0, Arrays.copyOf(envelope, 1500))));
    CqlFrameException e = assertThrows(CqlFrameException.class, channel::finish);
    assertTrue(e.connectionLevel());
    assertEquals(Reason.TRUNCATED, e.reason());
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /** Slices of a streamed body pass on one at a time and are not counted. */
  @Test
  void doesNotCountTheSlicesOfAStreamedBody() {
    byte[] envelope = envelope(7, RESULT, random(2991, 21));
    SegmentToFrameDecoder decoder =
        new SegmentToFrameDecoder(DECOMPRESS_1000).streamResultsFrom(1000);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    for (int at = 0; at < envelope.length; at += 1000) {
      assertTrue(
          channel.writeInbound(
              decompressed(false, 0, Arrays.copyOfRange(envelope, at, at + 1000))));
    }
    assertInstanceOf(FrameHead.class, channel.readInbound());
    int chunks = 0;
    for (Object m; (m = channel.readInbound()) != null; chunks++) {
      FrameChunk c = (FrameChunk) m;
      assertTrue(c.release());
    }
    assertEquals(3, chunks);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsSlicesThatRunPastTheirEnvelope() {
    byte[] envelope = envelope(5, RESULT, random(100, 5));
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    channel.writeInbound(segment(false, Arrays.copyOf(envelope, 50)));
    Segment overshoot =
        segment(
            false,
            Arrays.copyOfRange(envelope, 50, envelope.length),
            envelope(6, RESULT, VOID_BODY));
    CqlFrameException e =
        assertThrows(CqlFrameException.class, () -> channel.writeInbound(overshoot));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.SEGMENT_MISMATCH, e.reason());
    assertBroken(channel);
  }

  @Test
  void rejectsASelfContainedSegmentWhileSlicesArePending() {
    byte[] envelope = envelope(5, RESULT, random(100, 7));
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    Segment pending = segment(false, Arrays.copyOf(envelope, 50));
    channel.writeInbound(pending);
    assertEquals(50, decoder(channel).bufferedBytes());
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () -> channel.writeInbound(segment(true, envelope(6, RESULT, VOID_BODY))));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.SEGMENT_MISMATCH, e.reason());
    assertEquals(0, pending.refCnt(), "the pending slice is released");
    assertEquals(0, decoder(channel).bufferedBytes());
    assertBroken(channel);
  }

  /** Cut 20 bytes into the second envelope, or 5 bytes into its header. */
  @ParameterizedTest
  @ValueSource(ints = {5, 20})
  void rejectsASelfContainedSegmentEndingInsideAnEnvelope(int cut) {
    byte[] second = envelope(2, RESULT, random(100, 9));
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                channel.writeInbound(
                    segment(true, envelope(1, RESULT, VOID_BODY), Arrays.copyOf(second, cut))));
    assertTrue(e.connectionLevel());
    assertEquals(-1, e.streamId());
    assertFrame(channel.readInbound(), 1, Opcode.RESULT, VOID_BODY);
    assertBroken(channel);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x84, 0x04, 0x83, 0x87, 0x00})
  void rejectsABadVersionByteInsideASegment(int versionByte) {
    byte[] bad = frameBytes(versionByte, 0, 1, RESULT, VOID_BODY);
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    CqlFrameException e =
        assertThrows(CqlFrameException.class, () -> channel.writeInbound(segment(true, bad)));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.BAD_VERSION, e.reason());
    assertBroken(channel);

    EmbeddedChannel sliced = channel(ParseLimits.defaults());
    sliced.writeInbound(segment(false, Arrays.copyOf(bad, 4)));
    assertThrows(
        CqlFrameException.class,
        () -> sliced.writeInbound(segment(false, Arrays.copyOfRange(bad, 4, bad.length))));
    assertBroken(sliced);
  }

  @Test
  void acceptsRequestsAndV6() {
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    assertTrue(
        channel.writeInbound(
            segment(
                true,
                frameBytes(0x05, 0, 1, 0x07, VOID_BODY),
                frameBytes(0x86, 0, 2, RESULT, VOID_BODY))));
    Frame request = channel.readInbound();
    assertFalse(request.isResponse());
    assertEquals(Opcode.QUERY, request.opcode());
    assertTrue(request.release());
    Frame v6 = channel.readInbound();
    assertEquals(6, v6.version());
    assertTrue(v6.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsANegativeBodyLengthInsideASegment() {
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                channel.writeInbound(
                    segment(false, ByteBufUtil.decodeHexDump("850000010880000000"))));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.BAD_LENGTH, e.reason());
    assertBroken(channel);
  }

  @Test
  void reportsAnUndefinedOpcodeForItsStreamAndGoesOn() {
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                channel.writeInbound(
                    segment(true, envelope(4, 0x04, VOID_BODY), envelope(5, RESULT, VOID_BODY))));
    assertFalse(e.connectionLevel());
    assertEquals(4, e.streamId());
    assertFrame(channel.readInbound(), 5, Opcode.RESULT, VOID_BODY);
    assertFalse(decoder(channel).isBroken());
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void reportsAMalformedPreludeInSlicesForItsStreamAndGoesOn() {
    // the warning flag, and a [string list] whose second string runs past the body
    byte[] bad =
        frameBytes(
            0x85,
            Frame.FLAG_WARNING,
            9,
            RESULT,
            concat(new byte[] {0, 5, 0, 1, 'w', (byte) 0xFF, (byte) 0xFF}, new byte[200]));
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    channel.writeInbound(segment(false, Arrays.copyOf(bad, 100)));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () -> channel.writeInbound(segment(false, Arrays.copyOfRange(bad, 100, bad.length))));
    assertFalse(e.connectionLevel());
    assertEquals(9, e.streamId());
    assertTrue(channel.writeInbound(segment(true, envelope(10, RESULT, VOID_BODY))));
    assertFrame(channel.readInbound(), 10, Opcode.RESULT, VOID_BODY);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void reportsTheChannelClosingWhileSlicesAreGathered() {
    byte[] envelope = envelope(5, RESULT, random(100, 10));
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    channel.writeInbound(segment(false, Arrays.copyOf(envelope, 30)));
    channel.writeInbound(segment(false, Arrays.copyOfRange(envelope, 30, 60)));
    CqlFrameException e = assertThrows(CqlFrameException.class, channel::finish);
    assertTrue(e.connectionLevel());
    assertEquals(Reason.TRUNCATED, e.reason());
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void releasesPendingSlicesWhenRemoved() {
    EmbeddedChannel channel = channel(ParseLimits.defaults());
    channel.writeInbound(segment(false, Arrays.copyOf(envelope(5, RESULT, new byte[100]), 50)));
    channel.pipeline().remove(SegmentToFrameDecoder.class);
    assertAllInputsReleased();
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The decoder is broken: inputs so far are released, later segments are released unread. */
  private void assertBroken(EmbeddedChannel channel) {
    assertTrue(decoder(channel).isBroken());
    assertEquals(0, decoder(channel).bufferedBytes());
    assertAllInputsReleased();
    assertFalse(channel.writeInbound(segment(true, envelope(1, RESULT, VOID_BODY))));
    assertFalse(channel.writeInbound(segment(false, envelope(1, RESULT, VOID_BODY))));
    assertNull(channel.readInbound());
    assertAllInputsReleased();
    assertFalse(channel.finish(), "closing a broken decoder reports nothing more");
    assertFalse(channel.finishAndReleaseAll());
  }

  private static void assertFrame(Frame frame, int streamId, Opcode opcode, byte[] body) {
    assertEquals(5, frame.version());
    assertEquals(streamId, frame.streamId());
    assertEquals(opcode, frame.opcode());
    assertArrayEquals(body, ByteBufUtil.getBytes(frame.body()));
    assertEquals(-1, frame.bodyOffset(), "offsets inside segments are unknown");
    frame.release();
    assertEquals(0, frame.refCnt());
  }

  private void assertAllInputsReleased() {
    for (int i = 0; i < inputs.size(); i++) {
      assertEquals(0, inputs.get(i).refCnt(), "segment payload " + i + " of " + inputs.size());
    }
  }

  /** A segment whose payload is the parts; the test keeps the payload to check its release. */
  private Segment segment(boolean selfContained, byte[]... parts) {
    return segment(selfContained, -1, parts);
  }

  /**
   * A segment whose payload was decompressed from an LZ4 block of next to nothing (a wire length of
   * 0: all of it is gained), at {@code offset}.
   */
  private Segment decompressed(boolean selfContained, long offset, byte[]... parts) {
    ByteBuf payload = tracked(parts);
    inputs.add(payload);
    return new Segment(payload, selfContained, 0, offset);
  }

  /** A segment at {@code offset} in the connection. */
  private Segment segment(boolean selfContained, long offset, byte[]... parts) {
    ByteBuf payload = tracked(parts);
    inputs.add(payload);
    return new Segment(payload, selfContained, payload.readableBytes(), offset);
  }

  private static byte[] envelope(int streamId, int opcode, byte[] body) {
    return frameBytes(0x85, 0, streamId, opcode, body);
  }

  private static EmbeddedChannel channel(ParseLimits limits) {
    return new EmbeddedChannel(new SegmentToFrameDecoder(limits));
  }

  private static SegmentToFrameDecoder decoder(EmbeddedChannel channel) {
    return channel.pipeline().get(SegmentToFrameDecoder.class);
  }

  private static byte[] random(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
