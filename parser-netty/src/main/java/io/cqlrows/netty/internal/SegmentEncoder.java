package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.PromiseCombiner;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Packs outbound envelopes into v5 segments (native_protocol_v5.spec section 2), for either side of
 * a connection once it has switched to segments (the client after READY; a server after sending
 * it).
 *
 * <ul>
 *   <li>Envelopes of at most {@value SegmentWriter#MAX_PAYLOAD_LENGTH} bytes are gathered until the
 *       next flush (or until the next one would not fit), then written as one self-contained
 *       segment: several small requests share a segment.
 *   <li>A larger envelope is cut into non-self-contained slices of at most {@value
 *       SegmentWriter#MAX_PAYLOAD_LENGTH} bytes, one segment each, after the envelopes gathered
 *       before it.
 * </ul>
 *
 * <p>Each message written must be whole envelopes ({@link ByteBuf}); other messages pass through. A
 * write's promise completes when the segment(s) holding its envelope are written.
 *
 * <p><b>Ownership.</b> An envelope written belongs to this handler, which releases it once it is
 * copied into a segment. The segments it passes on belong to the next outbound handler. Envelopes
 * gathered but not yet flushed when the handler is removed (the channel closed) are released and
 * their promises failed.
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class SegmentEncoder extends ChannelOutboundHandlerAdapter {
  /** The name {@link io.cqlrows.netty.CqlPipeline#switchToSegments} installs it under. */
  public static final String NAME = "cqlrows.segmentEncoder";

  private final SegmentFormat format;

  /** Whole envelopes waiting for a flush, or null. */
  private ByteBuf batch;

  /** The promises of the envelopes in {@link #batch}. */
  private final List<ChannelPromise> batchPromises = new ArrayList<>();

  /**
   * An encoder for one connection.
   *
   * @param format {@link SegmentFormat#LZ4} if STARTUP negotiated LZ4, else {@link
   *     SegmentFormat#UNCOMPRESSED}
   */
  public SegmentEncoder(SegmentFormat format) {
    Objects.requireNonNull(format, "format");
    if (format == SegmentFormat.DETECT) {
      throw new IllegalArgumentException("format: DETECT (expected: UNCOMPRESSED or LZ4)");
    }
    this.format = format;
  }

  /** The segment format written. */
  public SegmentFormat format() {
    return format;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf envelope)) {
      ctx.write(msg, promise);
      return;
    }
    try {
      int length = envelope.readableBytes();
      if (length > SegmentWriter.MAX_PAYLOAD_LENGTH) {
        writeBatch(ctx);
        writeSlices(ctx, envelope, promise);
        return;
      }
      if (batch != null && batch.readableBytes() + length > SegmentWriter.MAX_PAYLOAD_LENGTH) {
        writeBatch(ctx);
      }
      if (batch == null) {
        batch = ctx.alloc().buffer(length);
      }
      batch.writeBytes(envelope, envelope.readerIndex(), length);
      batchPromises.add(promise.unvoid());
    } catch (RuntimeException e) {
      promise.tryFailure(e);
    } finally {
      envelope.release();
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    writeBatch(ctx);
    ctx.flush();
  }

  /** Writes the gathered envelopes as one self-contained segment. */
  private void writeBatch(ChannelHandlerContext ctx) {
    if (batch == null) {
      return;
    }
    ChannelPromise[] promises = batchPromises.toArray(new ChannelPromise[0]);
    ByteBuf envelopes = batch;
    batch = null;
    batchPromises.clear();
    ByteBuf segment;
    try {
      segment = SegmentWriter.encode(ctx.alloc(), envelopes, true, format);
    } catch (RuntimeException e) {
      fail(promises, e);
      return;
    } finally {
      envelopes.release();
    }
    ctx.write(segment)
        .addListener(
            f -> {
              for (ChannelPromise p : promises) {
                if (f.isSuccess()) {
                  p.trySuccess();
                } else {
                  p.tryFailure(f.cause());
                }
              }
            });
  }

  /** Writes a large envelope as consecutive non-self-contained segments. Borrowed envelope. */
  private void writeSlices(ChannelHandlerContext ctx, ByteBuf envelope, ChannelPromise promise) {
    PromiseCombiner combiner = new PromiseCombiner(ctx.executor());
    int from = envelope.readerIndex();
    int end = envelope.writerIndex();
    while (from < end) {
      int n = Math.min(SegmentWriter.MAX_PAYLOAD_LENGTH, end - from);
      combiner.add(
          ctx.write(SegmentWriter.encode(ctx.alloc(), envelope.slice(from, n), false, format)));
      from += n;
    }
    combiner.finish(promise.unvoid());
  }

  private static void fail(ChannelPromise[] promises, Throwable cause) {
    for (ChannelPromise p : promises) {
      p.tryFailure(cause);
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (batch != null) {
      batch.release();
      batch = null;
      fail(batchPromises.toArray(new ChannelPromise[0]), new ClosedChannelException());
      batchPromises.clear();
    }
  }
}
