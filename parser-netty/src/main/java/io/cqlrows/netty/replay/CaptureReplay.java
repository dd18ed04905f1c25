package io.cqlrows.netty.replay;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.CqlFrameException;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a captured server-to-client byte stream (a raw capture such as the corpus's {@code
 * *.s2c.bin}) through the same Netty pipeline a driver uses, on an {@link EmbeddedChannel}, for
 * tests. Framing and compression are detected: v3/v4 frames with or without LZ4 or Snappy bodies,
 * and v5 with the switch to segments (uncompressed or LZ4) after READY.
 *
 * <pre>{@code
 * List<ReplayedResult> results = CaptureReplay.results(Files.readAllBytes(path));
 * ReplayedResult first = results.get(0);
 * assertEquals("capture", first.rows().get(0).getString("cluster_name"));
 * }</pre>
 *
 * <p>The capture is fed in chunks of {@link #CHUNK_SIZE} bytes, as socket reads would deliver it.
 * Stateless; every call uses its own channel.
 */
public final class CaptureReplay {
  /** Bytes per simulated socket read. */
  public static final int CHUNK_SIZE = 64 * 1024;

  private CaptureReplay() {}

  /**
   * Every RESULT response of the capture, in order, with the rows of ROWS results materialised.
   *
   * @param capture the server-to-client bytes of one connection, from its first byte
   * @throws CqlFrameException if the byte stream is broken (connection-level): bad header, CRC
   *     mismatch, corrupt compression, or input that ends inside a frame
   */
  public static List<ReplayedResult> results(byte[] capture) {
    return results(capture, ParseLimits.defaults());
  }

  /** As {@link #results(byte[])}, with limits. */
  public static List<ReplayedResult> results(byte[] capture, ParseLimits limits) {
    if (capture.length == 0) {
      return List.of();
    }
    int version = Math.max(3, capture[0] & 0x7F);
    ResultReader reader = new ResultReader(version, limits).rawCellsWithoutMetadata(true);
    Collector collector = new Collector();
    EmbeddedChannel channel = new EmbeddedChannel();
    try {
      CqlPipeline.installDetecting(channel.pipeline(), reader, frame -> collector.next());
      channel.pipeline().addLast(collector);
      for (int at = 0; at < capture.length && collector.fatal == null; at += CHUNK_SIZE) {
        int n = Math.min(CHUNK_SIZE, capture.length - at);
        ByteBuf chunk = channel.alloc().buffer(n).writeBytes(capture, at, n);
        channel.writeInbound(chunk); // Ownership transferred: the decoder releases it
      }
      if (collector.fatal == null) {
        channel.close(); // reports input that ends inside a frame or segment
      }
    } finally {
      channel.finishAndReleaseAll();
    }
    if (collector.fatal != null) {
      throw collector.fatal;
    }
    return collector.results;
  }

  /** Collects responses and errors; releases frames nobody parsed. */
  private static final class Collector extends ChannelInboundHandlerAdapter {
    private final List<ReplayedResult> results = new ArrayList<>();
    private RowsCollector rows;
    private CqlFrameException fatal;

    RowsCollector next() {
      rows = new RowsCollector();
      return rows;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof RowsResponse r) {
        results.add(new ReplayedResult(r.streamId(), r.result(), rows.rows(), null));
      } else if (msg instanceof RowsFailure f) {
        if (!f.cause().connectionLevel()) {
          results.add(new ReplayedResult(f.streamId(), null, List.of(), f.cause()));
        }
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
        results.add(new ReplayedResult(e.streamId(), null, List.of(), e));
      } else if (fatal == null) {
        fatal = cause instanceof CqlFrameException e
            ? e : CqlFrameException.connectionError(-1, "replay failed: " + cause);
      }
    }
  }
}
