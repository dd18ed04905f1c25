package io.cqlrows.netty;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.internal.SegmentEncoder;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.SegmentSwitch;
import io.cqlrows.netty.internal.SegmentToFrameDecoder;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.util.AttributeKey;
import java.util.Objects;
import java.util.function.Function;

/**
 * The cqlrows handlers of one connection: installs them in a pipeline under fixed names, owns
 * every change to them later (the switch of a v5 connection to segments, streaming of large
 * results), and routes each response to the sink registered for its stream.
 *
 * <pre>
 * v3/v4, and v5 until READY:  {@value #BYTES_TO_FRAME_DECODER} -> {@value #ROWS_FRAME_HANDLER}
 * v5 after READY:             {@value #BYTES_TO_SEGMENT_DECODER} -> {@value #SEGMENT_TO_FRAME_DECODER}
 *                                 -> {@value #ROWS_FRAME_HANDLER}
 *                             (outbound: {@value #SEGMENT_ENCODER} where the handlers begin)
 * </pre>
 *
 * <pre>{@code
 * // channel initializer: the compression STARTUP will negotiate, stated once
 * CqlPipeline cql = CqlPipeline.install(ch.pipeline(), 5, Compression.LZ4);
 * ch.pipeline().addLast("driver", driverHandler);
 * // in driverHandler, on the READY response to STARTUP (v5):
 * CqlPipeline.get(ctx.channel()).switchToSegments();
 * // per request, before writing it:
 * cql.expect(streamId, sink);                              // QUERY
 * cql.expect(streamId, sink, prepared.resultColumns());    // EXECUTE with Skip_metadata
 * }</pre>
 *
 * <p>Handlers after these receive {@link io.cqlrows.netty.rows.RowsResponse}, {@link
 * io.cqlrows.netty.rows.RowsFailure}, the {@link Frame}s nobody parsed (which they release), and
 * connection-level {@link io.cqlrows.netty.frame.CqlFrameException}s through {@code
 * exceptionCaught}. The decoders themselves ({@code io.cqlrows.netty.internal}) never change the
 * pipeline: this class does.
 *
 * <p><b>Threading.</b> Installed from the channel initializer; the other methods are called on
 * the channel's event loop (from a handler), like any change to a pipeline.
 */
public final class CqlPipeline {
  /** Name of the v3/v4 frame decoder (and the v5 one until READY). */
  public static final String BYTES_TO_FRAME_DECODER = "cqlrows.bytesToFrameDecoder";
  /** Name of the v5 segment decoder, after the switch. */
  public static final String BYTES_TO_SEGMENT_DECODER = "cqlrows.bytesToSegmentDecoder";
  /** Name of the v5 segment-to-frame decoder, after the switch. */
  public static final String SEGMENT_TO_FRAME_DECODER = "cqlrows.segmentToFrameDecoder";
  /** Name of the {@link RowsFrameHandler}. */
  public static final String ROWS_FRAME_HANDLER = "cqlrows.rowsFrameHandler";
  /** Name of the outbound {@link SegmentEncoder} of a v5 connection, after the switch. */
  public static final String SEGMENT_ENCODER = SegmentEncoder.NAME;

  private static final AttributeKey<CqlPipeline> KEY =
      AttributeKey.valueOf(CqlPipeline.class, "cqlPipeline");

  private final ChannelPipeline pipeline;
  private final Compression compression;
  private final ParseLimits limits;
  /** Null when only decoders were installed (replay). */
  private final RowsFrameHandler rows;
  private int streamResultsFrom;

  private CqlPipeline(ChannelPipeline pipeline, Compression compression, ParseLimits limits,
      RowsFrameHandler rows) {
    this.pipeline = pipeline;
    this.compression = compression;
    this.limits = limits;
    this.rows = rows;
    pipeline.channel().attr(KEY).set(this);
  }

  /**
   * Installs the handlers of a connection with {@link ParseLimits#defaults()} and no default
   * sink.
   *
   * @see #install(ChannelPipeline, int, Compression, ParseLimits, Function)
   */
  public static CqlPipeline install(ChannelPipeline pipeline, int protocolVersion,
      Compression compression) {
    return install(pipeline, protocolVersion, compression, ParseLimits.defaults(), null);
  }

  /**
   * Adds a frame decoder and a {@link RowsFrameHandler} at the end of {@code pipeline}. For v5,
   * call {@link #switchToSegments} when READY (or AUTHENTICATE) arrives.
   *
   * @param pipeline a new channel's pipeline
   * @param protocolVersion the protocol version the driver speaks (3, 4 or 5)
   * @param compression what STARTUP negotiates: for v3/v4 it applies to frame bodies, for v5 to
   *     segments ({@link Compression#SNAPPY} is v3/v4 only)
   * @param limits limits on untrusted input, for every handler
   * @param defaultSinks sink for a RESULT nobody registered for, or {@code null} (see {@link
   *     RowsFrameHandler#RowsFrameHandler(ResultReader, Function)})
   * @return the connection's handlers
   */
  public static CqlPipeline install(ChannelPipeline pipeline, int protocolVersion,
      Compression compression, ParseLimits limits, Function<Frame, RowSink> defaultSinks) {
    Objects.requireNonNull(compression, "compression");
    if (protocolVersion >= 5 && compression == Compression.SNAPPY) {
      throw new IllegalArgumentException("compression: SNAPPY (expected: NONE or LZ4 on v5)");
    }
    Compression bodies = protocolVersion >= 5 ? Compression.NONE : compression;
    RowsFrameHandler rows =
        new RowsFrameHandler(new ResultReader(protocolVersion, limits), defaultSinks);
    pipeline.addLast(BYTES_TO_FRAME_DECODER, new BytesToFrameDecoder(limits, bodies));
    pipeline.addLast(ROWS_FRAME_HANDLER, rows);
    return new CqlPipeline(pipeline, compression, limits, rows);
  }

  /**
   * Installs handlers for a capture whose protocol version and compression are unknown
   * (replay): the frame decoder tells LZ4 from Snappy bodies and switches to segments after a v5
   * READY by itself.
   *
   * @param reader a reader for the capture's protocol version, configured by the caller (e.g.
   *     with {@link ResultReader#rawCellsWithoutMetadata}); its limits apply to the decoders too
   * @param defaultSinks sink for a RESULT nobody registered for, or {@code null}
   */
  public static CqlPipeline installDetecting(ChannelPipeline pipeline, ResultReader reader,
      Function<Frame, RowSink> defaultSinks) {
    RowsFrameHandler rows = new RowsFrameHandler(reader, defaultSinks);
    pipeline.addLast(BYTES_TO_FRAME_DECODER, BytesToFrameDecoder.detecting(reader.limits(),
        detectedSegments(reader.limits())));
    pipeline.addLast(ROWS_FRAME_HANDLER, rows);
    return new CqlPipeline(pipeline, null, reader.limits(), rows);
  }

  /**
   * Installs only the decoders, detecting framing and compression as {@link #installDetecting}
   * does: for a replay that reads the {@link Frame}s itself.
   *
   * @param segmentsFrom -1 if the bytes start with v3/v4 frames or a v5 handshake; otherwise the
   *     bytes start with v5 segments (a capture from the middle of a connection), and this is the
   *     offset of their first byte in the connection's stream
   */
  public static CqlPipeline installDecoders(ChannelPipeline pipeline, ParseLimits limits,
      long segmentsFrom) {
    if (segmentsFrom < 0) {
      pipeline.addLast(BYTES_TO_FRAME_DECODER,
          BytesToFrameDecoder.detecting(limits, detectedSegments(limits)));
    } else {
      pipeline.addLast(BYTES_TO_SEGMENT_DECODER,
          new BytesToSegmentDecoder(SegmentFormat.DETECT, segmentsFrom));
      pipeline.addLast(SEGMENT_TO_FRAME_DECODER, new SegmentToFrameDecoder(limits));
    }
    return new CqlPipeline(pipeline, null, limits, null);
  }

  /** The handlers {@link #install}ed on a channel, or {@code null}. */
  public static CqlPipeline get(Channel channel) {
    return channel.attr(KEY).get();
  }

  /** The rows handler, or {@code null} if only decoders were installed. */
  public RowsFrameHandler rows() {
    return rows;
  }

  /** The compression given to {@link #install}; {@code null} when it is detected. */
  public Compression compression() {
    return compression;
  }

  /** See {@link RowsFrameHandler#expect(int, RowSink)}. */
  public void expect(int streamId, RowSink sink) {
    rowsHandler().expect(streamId, sink);
  }

  /** See {@link RowsFrameHandler#expect(int, RowSink, ResultColumns)}. */
  public void expect(int streamId, RowSink sink, ResultColumns preparedColumns) {
    rowsHandler().expect(streamId, sink, preparedColumns);
  }

  /**
   * See {@link RowsFrameHandler#expectStreaming}: the response's rows reach the sink while it
   * arrives, if the decoders stream it ({@link #streamResultsFrom}).
   */
  public void expectStreaming(int streamId, RowSink sink, ResultColumns preparedColumns) {
    rowsHandler().expectStreaming(streamId, sink, preparedColumns);
  }

  /** See {@link RowsFrameHandler#cancel}. */
  public boolean cancel(int streamId) {
    return rowsHandler().cancel(streamId);
  }

  /** See {@link RowsFrameHandler#negotiated}: the extensions STARTUP names, before it is sent. */
  public void negotiated(ProtocolFeatures features) {
    rowsHandler().negotiated(features);
  }

  /**
   * Streams large results: RESULT bodies of at least {@code minBodyBytes} bytes (uncompressed
   * v3/v4 frames, and v5 envelopes split across segments, compressed or not) leave the decoders
   * as they arrive, and requests registered with {@link #expectStreaming} get their rows while
   * the frame is still arriving; the pipeline then holds the bytes of one read and one row, not
   * the frame. The segment decoders of a later switch inherit the setting.
   *
   * @param minBodyBytes the smallest body streamed, at least 1; 0 turns streaming off (the
   *     default)
   * @return this
   */
  public CqlPipeline streamResultsFrom(int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    streamResultsFrom = minBodyBytes;
    if (pipeline.get(BYTES_TO_FRAME_DECODER) instanceof BytesToFrameDecoder d) {
      d.streamResultsFrom(minBodyBytes);
    }
    if (pipeline.get(SEGMENT_TO_FRAME_DECODER) instanceof SegmentToFrameDecoder d) {
      d.streamResultsFrom(minBodyBytes);
    }
    return this;
  }

  /**
   * Switches a v5 connection to segments (native_protocol_v5.spec section 2.3.1), both ways, in
   * the format of the compression given to {@link #install}: call it from the event loop when the
   * READY or AUTHENTICATE response to STARTUP arrives, before any later bytes are read or
   * requests written. Outbound envelopes are packed into segments by a {@link SegmentEncoder}
   * put where the cqlrows handlers begin (so handlers before them, TLS or a recorder, see
   * segments as the socket does). Bytes the frame decoder already holds go to the segment decoder
   * <em>during this call</em>: responses that arrived in the same read as READY reach the pipeline
   * before it returns, so a handler records READY (and whatever it needs for them) first.
   *
   * @throws IllegalStateException if there is no frame decoder (already switched) or the
   *     handlers detect their protocol (replay)
   */
  public void switchToSegments() {
    if (compression == null) {
      throw new IllegalStateException("detecting decoders switch to segments by themselves");
    }
    ChannelHandler handler = pipeline.get(BYTES_TO_FRAME_DECODER);
    if (!(handler instanceof BytesToFrameDecoder decoder)) {
      throw new IllegalStateException("no " + BYTES_TO_FRAME_DECODER + " in the pipeline");
    }
    SegmentFormat format =
        compression == Compression.LZ4 ? SegmentFormat.LZ4 : SegmentFormat.UNCOMPRESSED;
    pipeline.addBefore(BYTES_TO_FRAME_DECODER, SEGMENT_ENCODER, new SegmentEncoder(format));
    replaceFrameDecoder(pipeline, format, decoder.consumedBytes(), limits, streamResultsFrom);
  }

  private RowsFrameHandler rowsHandler() {
    if (rows == null) {
      throw new IllegalStateException("only decoders were installed: no rows handler");
    }
    return rows;
  }

  /** What a detecting frame decoder calls after a v5 READY (or STARTUP). */
  private static SegmentSwitch detectedSegments(ParseLimits limits) {
    return (ctx, offset, streamFrom) ->
        replaceFrameDecoder(ctx.pipeline(), SegmentFormat.DETECT, offset, limits, streamFrom);
  }

  /**
   * Puts the segment decoders after the frame decoder, then removes it: the bytes it holds go to
   * them on removal.
   */
  private static void replaceFrameDecoder(ChannelPipeline p, SegmentFormat format, long offset,
      ParseLimits limits, int streamFrom) {
    p.addAfter(BYTES_TO_FRAME_DECODER, BYTES_TO_SEGMENT_DECODER,
        new BytesToSegmentDecoder(format, offset));
    p.addAfter(BYTES_TO_SEGMENT_DECODER, SEGMENT_TO_FRAME_DECODER,
        new SegmentToFrameDecoder(limits).streamResultsFrom(streamFrom));
    p.remove(BYTES_TO_FRAME_DECODER);
  }
}
