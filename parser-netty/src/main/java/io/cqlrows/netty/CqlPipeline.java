package io.cqlrows.netty;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.RowSink;
import io.cqlrows.netty.frame.BytesToFrameDecoder;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.netty.channel.ChannelPipeline;
import java.util.function.Function;

/**
 * Installs the cqlrows handlers in a pipeline, under the names below, fixing the protocol version
 * once: {@value #BYTES_TO_FRAME_DECODER} ({@link BytesToFrameDecoder}), then {@value
 * #ROWS_FRAME_HANDLER} ({@link RowsFrameHandler}). Downstream handlers receive {@link
 * io.cqlrows.netty.rows.RowsResponse}, {@link io.cqlrows.netty.rows.RowsFailure} and the {@link
 * Frame}s nobody parsed (which they release).
 */
public final class CqlPipeline {
  /** Name of the {@link BytesToFrameDecoder}. */
  public static final String BYTES_TO_FRAME_DECODER = "cqlrows.bytesToFrameDecoder";
  /** Name of the {@link RowsFrameHandler}. */
  public static final String ROWS_FRAME_HANDLER = "cqlrows.rowsFrameHandler";

  private CqlPipeline() {}

  /**
   * Adds a {@link BytesToFrameDecoder} and a {@link RowsFrameHandler} at the end of {@code
   * pipeline}.
   *
   * @param pipeline a new channel's pipeline
   * @param protocolVersion the negotiated protocol version (3 or 4; 5 only for its handshake)
   * @param limits limits on untrusted input, for both handlers
   * @param defaultSinks sink for a RESULT nobody registered for, or {@code null} (see {@link
   *     RowsFrameHandler#RowsFrameHandler(ResultReader, Function)})
   * @return the rows handler, to {@link RowsFrameHandler#expect register} sinks with
   */
  public static RowsFrameHandler install(
      ChannelPipeline pipeline,
      int protocolVersion,
      ParseLimits limits,
      Function<Frame, RowSink> defaultSinks) {
    return install(pipeline, new ResultReader(protocolVersion, limits), defaultSinks);
  }

  /**
   * As {@link #install(ChannelPipeline, int, ParseLimits, Function)}, with a reader configured by
   * the caller (e.g. with {@link ResultReader#rawCellsWithoutMetadata}); the decoder uses the
   * reader's limits.
   */
  public static RowsFrameHandler install(
      ChannelPipeline pipeline, ResultReader reader, Function<Frame, RowSink> defaultSinks) {
    RowsFrameHandler rows = new RowsFrameHandler(reader, defaultSinks);
    pipeline.addLast(BYTES_TO_FRAME_DECODER, new BytesToFrameDecoder(reader.limits()));
    pipeline.addLast(ROWS_FRAME_HANDLER, rows);
    return rows;
  }
}
