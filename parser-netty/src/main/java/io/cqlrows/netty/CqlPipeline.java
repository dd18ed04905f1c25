package io.cqlrows.netty;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.SegmentToFrameDecoder;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import java.util.function.Function;

/**
 * Installs the cqlrows handlers in a pipeline under fixed names, and switches a v5 connection to
 * segments.
 *
 * <pre>
 * v3/v4, and v5 until READY:  {@value #BYTES_TO_FRAME_DECODER} -> {@value #ROWS_FRAME_HANDLER}
 * v5 after READY:             {@value #BYTES_TO_SEGMENT_DECODER} -> {@value #SEGMENT_TO_FRAME_DECODER}
 *                                 -> {@value #ROWS_FRAME_HANDLER}
 * </pre>
 *
 * <p>Downstream handlers receive {@link io.cqlrows.netty.rows.RowsResponse}, {@link
 * io.cqlrows.netty.rows.RowsFailure}, the {@link Frame}s nobody parsed (which they release), and
 * connection-level {@link CqlFrameException}s through {@code exceptionCaught}.
 *
 * <pre>{@code
 * RowsFrameHandler rows = CqlPipeline.install(ch.pipeline(), 5, limits, Compression.LZ4, null);
 * ch.pipeline().addLast("driver", driverHandler);
 * // in driverHandler, on the READY response to STARTUP:
 * CqlPipeline.switchToSegments(ctx.pipeline(), SegmentFormat.LZ4);
 * // per request:
 * rows.expect(streamId, sink);            // or expect(streamId, sink, prepared.resultColumns())
 * }</pre>
 */
public final class CqlPipeline {
  /** Name of the {@link BytesToFrameDecoder}. */
  public static final String BYTES_TO_FRAME_DECODER = "cqlrows.bytesToFrameDecoder";
  /** Name of the {@link BytesToSegmentDecoder} (v5, after the switch). */
  public static final String BYTES_TO_SEGMENT_DECODER = "cqlrows.bytesToSegmentDecoder";
  /** Name of the {@link SegmentToFrameDecoder} (v5, after the switch). */
  public static final String SEGMENT_TO_FRAME_DECODER = "cqlrows.segmentToFrameDecoder";
  /** Name of the {@link RowsFrameHandler}. */
  public static final String ROWS_FRAME_HANDLER = "cqlrows.rowsFrameHandler";

  private CqlPipeline() {}

  /**
   * Adds a {@link BytesToFrameDecoder} and a {@link RowsFrameHandler} at the end of {@code
   * pipeline}, for a connection without compression.
   *
   * @see #install(ChannelPipeline, int, ParseLimits, Compression, Function)
   */
  public static RowsFrameHandler install(
      ChannelPipeline pipeline,
      int protocolVersion,
      ParseLimits limits,
      Function<Frame, RowSink> defaultSinks) {
    return install(pipeline, protocolVersion, limits, Compression.NONE, defaultSinks);
  }

  /**
   * Adds a {@link BytesToFrameDecoder} and a {@link RowsFrameHandler} at the end of {@code
   * pipeline}. For v5, call {@link #switchToSegments} when READY (or AUTHENTICATE) arrives.
   *
   * @param pipeline a new channel's pipeline
   * @param protocolVersion the protocol version the driver speaks (3, 4 or 5)
   * @param limits limits on untrusted input, for every handler
   * @param compression what STARTUP negotiates: for v3/v4 it applies to frame bodies; for v5 it
   *     is used by {@link #switchToSegments} callers to pick the segment format
   * @param defaultSinks sink for a RESULT nobody registered for, or {@code null} (see {@link
   *     RowsFrameHandler#RowsFrameHandler(ResultReader, Function)})
   * @return the rows handler, to {@link RowsFrameHandler#expect register} sinks with
   */
  public static RowsFrameHandler install(
      ChannelPipeline pipeline,
      int protocolVersion,
      ParseLimits limits,
      Compression compression,
      Function<Frame, RowSink> defaultSinks) {
    Compression bodies = protocolVersion >= 5 ? Compression.NONE : compression;
    return install(pipeline, new BytesToFrameDecoder(limits, bodies),
        new ResultReader(protocolVersion, limits), defaultSinks);
  }

  /**
   * Installs handlers for a capture whose protocol version and compression are unknown (replay):
   * the decoder is {@link BytesToFrameDecoder#detecting}, so it picks LZ4 or Snappy bodies and
   * switches to segments by itself.
   *
   * @param reader a reader for the capture's protocol version, configured by the caller (e.g.
   *     with {@link ResultReader#rawCellsWithoutMetadata}); its limits apply to the decoders too
   */
  public static RowsFrameHandler installDetecting(
      ChannelPipeline pipeline, ResultReader reader, Function<Frame, RowSink> defaultSinks) {
    return install(pipeline, BytesToFrameDecoder.detecting(reader.limits()), reader,
        defaultSinks);
  }

  private static RowsFrameHandler install(ChannelPipeline pipeline, BytesToFrameDecoder decoder,
      ResultReader reader, Function<Frame, RowSink> defaultSinks) {
    RowsFrameHandler rows = new RowsFrameHandler(reader, defaultSinks);
    pipeline.addLast(BYTES_TO_FRAME_DECODER, decoder);
    pipeline.addLast(ROWS_FRAME_HANDLER, rows);
    return rows;
  }

  /**
   * Switches a v5 connection to segments (native_protocol_v5.spec section 2.3.1): call it from the
   * event loop when the READY or AUTHENTICATE response to STARTUP arrives, before any later bytes
   * are read. Bytes the frame decoder already holds are handed to the segment decoder <em>during
   * this call</em>: responses that arrived in the same read as READY reach the pipeline before it
   * returns, so a handler records READY (and whatever it needs for them) before calling it.
   *
   * @param format {@link SegmentFormat#LZ4} if STARTUP negotiated LZ4, else {@link
   *     SegmentFormat#UNCOMPRESSED}
   * @throws IllegalStateException if there is no frame decoder (already switched)
   */
  public static void switchToSegments(ChannelPipeline pipeline, SegmentFormat format) {
    ChannelHandlerContext ctx = pipeline.context(BYTES_TO_FRAME_DECODER);
    if (ctx == null) {
      throw new IllegalStateException("no " + BYTES_TO_FRAME_DECODER + " in the pipeline");
    }
    ((BytesToFrameDecoder) ctx.handler()).switchToSegments(ctx, format);
  }
}
