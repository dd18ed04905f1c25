package io.cqlrows.netty;

import static io.cqlrows.netty.CqlPipeline.BYTES_TO_FRAME_DECODER;
import static io.cqlrows.netty.CqlPipeline.BYTES_TO_SEGMENT_DECODER;
import static io.cqlrows.netty.CqlPipeline.SEGMENT_TO_FRAME_DECODER;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.SegmentToFrameDecoder;
import io.cqlrows.netty.internal.StreamSync;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPipeline;
import java.util.Objects;
import java.util.Optional;

/**
 * The decoders alone, without a rows handler or requests in flight: for a driver that reads the
 * {@link Frame}s itself (its own handshake, its own stream ids), and for the replay of captured
 * bytes. Handlers after them receive {@link Frame}s, which they release, and, once asked to {@link
 * #streamResultsFrom stream large results}, a {@link FrameHead} followed by {@link FrameChunk}s for
 * large RESULT frames. Connection-level {@link io.cqlrows.netty.frame.CqlFrameException}s arrive
 * through {@code exceptionCaught}.
 *
 * <p>A {@link io.cqlrows.netty.rows.RowsFrameHandler} added after them parses the RESULT frames of
 * the streams registered with it and hands the other frames on:
 *
 * <pre>{@code
 * CqlDecoders.install(ch.pipeline(), 5, Compression.LZ4, ParseLimits.defaults());
 * ch.pipeline().addLast(new RowsFrameHandler(new ResultReader(5), null));
 * ch.pipeline().addLast(myDriversHandler); // frames nobody registered for, and errors
 * }</pre>
 *
 * <p>The decoders are added under {@link CqlPipeline}'s handler names; a v5 connection moves to
 * segments by itself (see {@link #install}). Made and used on the channel's event loop, like any
 * change to a pipeline.
 */
public final class CqlDecoders {
  private final ChannelPipeline pipeline;

  private CqlDecoders(ChannelPipeline pipeline) {
    this.pipeline = pipeline;
  }

  /**
   * Adds the decoders of a client connection at the end of {@code pipeline}: the bytes are
   * responses of {@code protocolVersion}, compressed as STARTUP negotiated. On v5 the connection
   * moves to segments by itself, both ways, in the format of {@code compression}, after the READY
   * or AUTHENTICATE response has been handed on: the envelopes the driver writes from then on (from
   * handlers after the decoders) are packed into segments by an encoder put where the decoders
   * begin ({@link CqlPipeline#SEGMENT_ENCODER}).
   *
   * @param protocolVersion 3, 4 or 5
   * @param compression what STARTUP negotiates ({@link Compression#SNAPPY} is v3/v4 only)
   * @param limits limits on untrusted input
   * @throws IllegalArgumentException for another version, or SNAPPY on v5
   */
  public static CqlDecoders install(
      ChannelPipeline pipeline, int protocolVersion, Compression compression, ParseLimits limits) {
    Objects.requireNonNull(compression, "compression");
    Objects.requireNonNull(limits, "limits");
    if (protocolVersion < 3 || protocolVersion > 5) {
      throw new IllegalArgumentException(
          "protocolVersion: " + protocolVersion + " (expected: 3, 4 or 5)");
    }
    if (protocolVersion == 5 && compression == Compression.SNAPPY) {
      throw new IllegalArgumentException("compression: SNAPPY (expected: NONE or LZ4 on v5)");
    }
    pipeline.addLast(
        BYTES_TO_FRAME_DECODER,
        protocolVersion == 5
            ? new BytesToFrameDecoder(
                limits, Compression.NONE, Rewiring.onResponse(pipeline, compression, limits))
            : new BytesToFrameDecoder(limits, compression));
    return new CqlDecoders(pipeline);
  }

  /**
   * Adds decoders for captured bytes of one direction whose protocol version and compression are
   * unknown, from the start of a connection: each frame's version is read from its header, LZ4 is
   * told from Snappy by the bodies, and after a v5 READY or AUTHENTICATE the decoders move to
   * segments of the format the bytes show.
   *
   * @param limits limits on untrusted input
   */
  public static CqlDecoders detecting(ChannelPipeline pipeline, ParseLimits limits) {
    Objects.requireNonNull(limits, "limits");
    pipeline.addLast(
        BYTES_TO_FRAME_DECODER, BytesToFrameDecoder.detecting(limits, Rewiring.detected(limits)));
    return new CqlDecoders(pipeline);
  }

  /**
   * Adds decoders for captured v5 segments (a capture that starts in the middle of a connection, at
   * a {@link #findStart start} with {@link Start#segments()}), compressed or not as the bytes show.
   *
   * @param connectionOffset the offset of the first segment's first byte in the connection's byte
   *     stream, which errors report
   * @param limits limits on untrusted input
   */
  public static CqlDecoders detectingSegments(
      ChannelPipeline pipeline, long connectionOffset, ParseLimits limits) {
    Objects.requireNonNull(limits, "limits");
    if (connectionOffset < 0) {
      throw new IllegalArgumentException(
          "connectionOffset: " + connectionOffset + " (expected: >= 0)");
    }
    pipeline.addLast(
        BYTES_TO_SEGMENT_DECODER,
        new BytesToSegmentDecoder(SegmentFormat.DETECT, connectionOffset));
    pipeline.addLast(SEGMENT_TO_FRAME_DECODER, new SegmentToFrameDecoder(limits));
    return new CqlDecoders(pipeline);
  }

  /**
   * Where bytes captured from the middle of a connection can be decoded from: the first offset that
   * provably starts a frame (v3/v4, or v5 before the switch) or a self-contained v5 segment. A
   * segment is proved by its two CRCs; a frame by a plausible header followed by two more where its
   * length says, or by ending exactly where the bytes end.
   *
   * @param bytes the captured bytes, from their reader index; borrowed, and its indices are not
   *     moved
   * @param maxBodyLength the largest frame body to believe in a header
   * @return the start, or empty if none is found
   */
  public static Optional<Start> findStart(ByteBuf bytes, int maxBodyLength) {
    StreamSync.Start s = StreamSync.find(bytes, maxBodyLength);
    return s == null ? Optional.empty() : Optional.of(new Start(s.offset(), s.segments() != null));
  }

  /**
   * Where decoding can start in captured bytes.
   *
   * @param offset the index of the first byte to decode, relative to the bytes' reader index
   * @param segments whether v5 segments start there ({@link #detectingSegments}); otherwise a frame
   *     does ({@link #detecting})
   */
  public record Start(int offset, boolean segments) {}

  /**
   * Streams large results: RESULT bodies of at least {@code minBodyBytes} bytes (uncompressed v3/v4
   * frames, and v5 envelopes split across segments, compressed or not) leave the decoders as a
   * {@link FrameHead} and {@link FrameChunk}s as they arrive, instead of one {@link Frame}. The
   * segment decoders of a later switch inherit the setting.
   *
   * @param minBodyBytes the smallest body streamed, at least 1; 0 turns streaming off (the default)
   * @return this
   */
  public CqlDecoders streamResultsFrom(int minBodyBytes) {
    Rewiring.streamResultsFrom(pipeline, minBodyBytes);
    return this;
  }
}
