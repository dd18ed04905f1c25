package io.cqlrows.netty.internal;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;
import java.util.Objects;

/**
 * Splits a connection's inbound bytes into {@link Frame}s: protocol v3/v4 framing, with the body
 * compression the connection negotiated (native_protocol_v4.spec section 5), and the unframed
 * handshake envelopes of v5/v6 (native_protocol_v5.spec section 2). The version byte may be 3 to 6
 * in either direction, so the same decoder reads captures of either side.
 *
 * <pre>
 * version(1) flags(1) stream(2) opcode(1) length(4) | [tracing_id][warnings][custom_payload] body
 * </pre>
 *
 * <p><b>States.</b> {@code HEADER}: the 9 bytes are checked before the length is trusted. {@code
 * BODY}: the whole frame is awaited, then decompressed and its prelude read. {@code STREAM}: a
 * large RESULT body goes on as {@link FrameChunk}s ({@link #streamResultsFrom}).
 *
 * <p><b>v5.</b> After the server's READY or AUTHENTICATE a v5 connection switches to segments: the
 * decoder hands the frame on, then asks its {@link SegmentSwitch}, if it has one, to put segment
 * decoders in its place ({@code CqlPipeline} does). A decoder made by {@link #detecting} (replay)
 * also asks after a v5 STARTUP request, and tells LZ4 from Snappy on the first compressed v3/v4
 * body.
 *
 * <p><b>Errors.</b> A version byte outside 3-6, a negative length, a length over {@link
 * ParseLimits#maxFrameBodyLength()} (for the header's stream; the cause is Netty's {@link
 * TooLongFrameException}), the compression flag 0x01 on v3/v4 when no compression was negotiated,
 * or a body that does not decompress is a connection-level {@link CqlFrameException}, after which
 * the decoder is broken (see {@link ConnectionDecoder}): the length is all that delimits a frame,
 * so the decoder neither skips the bytes a length it does not believe announces nor looks for a
 * header further on. Frame-local problems are fired for the frame's stream and decoding goes on: a
 * malformed prelude, an undefined opcode, and a compressed body that declares more than {@link
 * ParseLimits#maxDecompressedLength()} (found before its output is allocated). Input that ends
 * inside a frame is a connection-level error when the channel closes.
 *
 * <p><b>Reads.</b> A frame of 64 KiB or more that arrives in several reads is kept in those reads
 * (its body is then a slice of a composite buffer) if it is not compressed, and copied once into a
 * buffer of its length if it is (see {@link FrameCumulator}).
 *
 * <p><b>Ownership.</b> Each emitted frame holds a retained slice of the input (or of its
 * decompressed body). The next handler owns the frame and releases it.
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class BytesToFrameDecoder extends ConnectionDecoder {
  /** Header length: version, flags, stream, opcode, length. */
  public static final int HEADER_LENGTH = Envelopes.HEADER_LENGTH;

  private static final int MIN_VERSION = 3;
  private static final int MAX_VERSION = 6;

  private enum State {
    HEADER,
    BODY,
    STREAM
  }

  /** Bound the frame body and what a compressed one decompresses to. */
  private final ParseLimits limits;

  /** Largest body accepted, prelude included. */
  private final int maxBodyLength;

  /**
   * How v3/v4 bodies with flag 0x01 are compressed: what the connection negotiated, or what a
   * detecting decoder found in the first compressed body.
   */
  private Compression compression;

  /** Whether this decoder has still to tell LZ4 from Snappy (a detecting one, before the first). */
  private boolean compressionUnknown;

  /** Moves a v5 connection to segments after READY, AUTHENTICATE or STARTUP; null for never. */
  private final SegmentSwitch segmentSwitch;

  private final BodyStreaming streaming = new BodyStreaming();
  private State state = State.HEADER;

  /** The frame being decoded: its header's connection offset, stream and body length. */
  private long headerOffset = -1;

  private int headerStreamId;
  private int headerBodyLength;

  /** A decoder without compression, with {@link ParseLimits#defaults()}. */
  public BytesToFrameDecoder() {
    this(ParseLimits.defaults(), Compression.NONE);
  }

  /**
   * A decoder for one connection.
   *
   * @param limits its {@link ParseLimits#maxFrameBodyLength()} bounds the frame body (prelude
   *     included), compressed and decompressed; its {@link ParseLimits#maxDecompressedLength()}
   *     what a compressed body may decompress to
   * @param compression what the STARTUP negotiated; applies to v3/v4 bodies with flag 0x01
   */
  public BytesToFrameDecoder(ParseLimits limits, Compression compression) {
    this(limits, compression, null);
  }

  /**
   * A decoder for one connection that asks {@code segmentSwitch} to move it to segments after the
   * frame that starts them on v5.
   *
   * @param compression what the STARTUP negotiated; applies to v3/v4 bodies with flag 0x01
   * @param segmentSwitch called after a v5 READY or AUTHENTICATE response or STARTUP request, or
   *     {@code null} for never
   */
  public BytesToFrameDecoder(
      ParseLimits limits, Compression compression, SegmentSwitch segmentSwitch) {
    this(limits, Objects.requireNonNull(compression, "compression"), false, segmentSwitch);
  }

  private BytesToFrameDecoder(
      ParseLimits limits,
      Compression compression,
      boolean compressionUnknown,
      SegmentSwitch segmentSwitch) {
    super(0);
    this.limits = limits;
    this.maxBodyLength = limits.maxFrameBodyLength();
    this.compression = compression;
    this.compressionUnknown = compressionUnknown;
    this.segmentSwitch = segmentSwitch;
  }

  /**
   * A decoder for a capture whose settings are unknown (replay): it tells LZ4 from Snappy on the
   * first compressed v3/v4 body, and after a v5 READY or AUTHENTICATE response (or a v5 STARTUP
   * request, in a client-to-server capture) it asks {@code segmentSwitch} to put segment decoders
   * in its place.
   */
  public static BytesToFrameDecoder detecting(ParseLimits limits, SegmentSwitch segmentSwitch) {
    return new BytesToFrameDecoder(
        limits, Compression.NONE, true, Objects.requireNonNull(segmentSwitch, "segmentSwitch"));
  }

  /**
   * Streams large results: an uncompressed RESULT response whose body (prelude included) has at
   * least {@code minBodyBytes} bytes is emitted as a {@link FrameHead} as soon as its header and
   * prelude are in, then as {@link FrameChunk}s carrying the body's bytes as they arrive; the
   * decoder then holds no more than the bytes of one read. Compressed v3/v4 bodies are never
   * streamed (they decompress whole).
   *
   * @param minBodyBytes the smallest body streamed, at least 1; 0 turns streaming off (the default)
   * @return this decoder
   */
  public BytesToFrameDecoder streamResultsFrom(int minBodyBytes) {
    streaming.threshold(minBodyBytes);
    return this;
  }

  /** The streaming threshold ({@link #streamResultsFrom}), or 0. */
  public int streamResultsFrom() {
    return streaming.threshold();
  }

  /**
   * The v3/v4 body compression in use: the one given, or the one a detecting decoder found; {@link
   * Compression#NONE} while a detecting decoder has seen no compressed body.
   */
  public Compression compression() {
    return compression;
  }

  /** Bytes received but not yet decoded: the start of an incomplete frame. */
  public int bufferedBytes() {
    return actualReadableBytes();
  }

  @Override
  Object state() {
    return state;
  }

  @Override
  void decodeStep(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    switch (state) {
      case HEADER -> decodeHeader(in, out);
      case BODY -> decodeBody(ctx, in, out);
      case STREAM -> decodeChunk(in, out);
      default -> throw new AssertionError(state);
    }
  }

  /**
   * Checks the header before its length is trusted (the length is a signed {@code [int]}); then
   * streams or awaits the frame.
   */
  @SuppressWarnings("ReferenceEquality") // WAIT is a sentinel instance
  private void decodeHeader(ByteBuf in, List<Object> out) {
    cumulator.merge();
    if (in.readableBytes() < HEADER_LENGTH) {
      return;
    }
    int h = in.readerIndex();
    headerOffset = offsetOf(h);
    int versionByte = in.getUnsignedByte(h);
    int version = versionByte & 0x7F;
    if (version < MIN_VERSION || version > MAX_VERSION) {
      throw FrameErrors.connectionError(
          Reason.BAD_VERSION,
          headerOffset,
          String.format(
              "version byte: 0x%02x (expected: protocol version %d-%d, 0x03-0x06 or 0x83-0x86)",
              versionByte, MIN_VERSION, MAX_VERSION));
    }
    if ((in.getUnsignedByte(h + 1) & Frame.FLAG_COMPRESSION) != 0
        && version < 5
        && compression == Compression.NONE
        && !compressionUnknown) {
      throw FrameErrors.connectionError(
          Reason.UNEXPECTED_COMPRESSION,
          headerOffset,
          "frame body is compressed (flag 0x01) but no compression was negotiated");
    }
    int bodyLength = in.getInt(h + 5);
    if (bodyLength < 0) {
      throw FrameErrors.connectionError(
          Reason.BAD_LENGTH, headerOffset, "body length: " + bodyLength + " (expected: >= 0)");
    }
    headerStreamId = in.getShort(h + 2);
    headerBodyLength = bodyLength;
    if (bodyLength > maxBodyLength) {
      throw tooLarge();
    }
    if (streaming.threshold() > 0) {
      Envelopes.StreamStart s =
          Envelopes.streamStart(
              in, h, in.writerIndex(), headerOffset, streaming.threshold(), maxBodyLength);
      if (s == Envelopes.StreamStart.WAIT) {
        return; // only the prelude is awaited: merge, nothing large accumulates
      }
      if (s != null) {
        in.skipBytes(s.length());
        out.add(streaming.start(s.head()));
        state = State.STREAM;
        return;
      }
    }
    state = State.BODY;
  }

  /** Awaits the whole frame; then emits it (or fires its frame-local error). */
  private void decodeBody(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int total = HEADER_LENGTH + headerBodyLength;
    if (in.readableBytes() < total) {
      if (isCompressed(in)) {
        cumulator.expect(total); // decompressed whole, from one buffer
      } else {
        cumulator.gather(total);
      }
      return;
    }
    cumulator.merge();
    ByteBuf raw = in.slice(in.readerIndex(), total);
    Frame frame;
    try {
      frame = toFrame(ctx, raw);
    } finally {
      in.skipBytes(total);
      state = State.HEADER;
    }
    if (frame == null) {
      return;
    }
    out.add(frame);
    if (segmentSwitch != null && startsSegments(frame)) {
      segmentSwitch.switchToSegments(
          ctx, frame.isResponse(), offsetOf(in.readerIndex()), streaming.threshold());
    }
  }

  /** Hands on the bytes of a streamed body as they arrive. */
  private void decodeChunk(ByteBuf in, List<Object> out) {
    int n = (int) Math.min(in.readableBytes(), streaming.left());
    if (n == 0) {
      return;
    }
    out.add(streaming.chunk(in, in.readerIndex(), n));
    in.skipBytes(n);
    if (!streaming.active()) {
      state = State.HEADER;
    }
  }

  /**
   * Decompresses and reads the prelude of a complete frame; null (and the error fired) if the frame
   * is unusable. Connection-level errors are thrown.
   */
  private Frame toFrame(ChannelHandlerContext ctx, ByteBuf raw) {
    try {
      if (compressionUnknown && isCompressed(raw)) {
        compression = detectCompression(ctx, raw);
        compressionUnknown = false;
      }
      return Envelopes.decode(ctx.alloc(), raw, headerOffset, compression, limits);
    } catch (CqlFrameException e) {
      if (e.connectionLevel()) {
        throw e;
      }
      ctx.fireExceptionCaught(e);
      return null;
    }
  }

  private static boolean isCompressed(ByteBuf raw) {
    int h = raw.readerIndex();
    return (raw.getUnsignedByte(h + 1) & Frame.FLAG_COMPRESSION) != 0
        && (raw.getUnsignedByte(h) & 0x7F) < 5;
  }

  /**
   * The compression of the first compressed body: whichever of LZ4 and Snappy decodes it. A body
   * that one of them reads as declaring more than the decompression limit, and that the other
   * cannot decode, is not decompressed (so its compression stays unknown): its frame-local {@link
   * Reason#DECOMPRESSED_TOO_LARGE} is thrown, and the next compressed body is tried.
   */
  private Compression detectCompression(ChannelHandlerContext ctx, ByteBuf raw) {
    ByteBuf body =
        raw.slice(raw.readerIndex() + HEADER_LENGTH, raw.readableBytes() - HEADER_LENGTH);
    CqlFrameException overLimit = null;
    for (Compression c : new Compression[] {Compression.LZ4, Compression.SNAPPY}) {
      try {
        Envelopes.decompress(ctx.alloc(), body, headerOffset, headerStreamId, c, limits).release();
        return c;
      } catch (CqlFrameException e) {
        // not this one, or one that would make too much
        if (!e.connectionLevel() && overLimit == null) {
          overLimit = e;
        }
      }
    }
    if (overLimit != null) {
      throw overLimit;
    }
    throw FrameErrors.connectionError(
        Reason.CORRUPT_COMPRESSION,
        headerOffset,
        "compressed frame body (flag 0x01) is neither LZ4 nor Snappy");
  }

  /** Whether segments follow this frame on a v5 connection (native_protocol_v5.spec 2.3.1). */
  private static boolean startsSegments(Frame frame) {
    if (frame.version() < 5) {
      return false;
    }
    return frame.isResponse()
        ? frame.opcode() == Opcode.READY || frame.opcode() == Opcode.AUTHENTICATE
        : frame.opcode() == Opcode.STARTUP;
  }

  /** The connection-level error for a header whose body length is over the limit. */
  private CqlFrameException tooLarge() {
    return FrameErrors.connectionError(
        Reason.FRAME_TOO_LARGE,
        headerStreamId,
        headerOffset,
        "frame header",
        "body length: "
            + headerBodyLength
            + " (expected: <= "
            + maxBodyLength
            + ", ParseLimits.maxFrameBodyLength)",
        new TooLongFrameException("frame body of " + headerBodyLength + " bytes"));
  }

  @Override
  CqlFrameException endOfInput(ByteBuf in) {
    if (state == State.STREAM) {
      return FrameErrors.connectionError(
          Reason.TRUNCATED,
          offsetOf(in.readerIndex()),
          "end of input",
          "input ends inside a streamed frame body, " + streaming.left() + " bytes before its end",
          null);
    }
    if (!in.isReadable()) {
      return null;
    }
    int have = in.readableBytes();
    long at = offsetOf(in.readerIndex());
    String of = state == State.BODY ? " of its " + (HEADER_LENGTH + (long) headerBodyLength) : "";
    return FrameErrors.connectionError(
        Reason.TRUNCATED, at, "input ends inside a frame, after " + have + of + " bytes");
  }
}
