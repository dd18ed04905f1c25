package io.cqlrows.netty.rows;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.ResultStream;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.FrameChunk;
import io.cqlrows.netty.internal.FrameHead;
import io.cqlrows.netty.rows.Expectations.Expectation;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Parses RESULT responses into the {@link RowSink} registered for their stream and fires a {@link
 * RowsResponse} (or a {@link RowsFailure}) downstream in place of the frame.
 *
 * <p>A driver calls {@link #expect} before writing a request: the next response on that stream
 * consumes the registration. If it is a RESULT, the body is parsed into the sink; any other
 * response (an ERROR, say) is passed downstream unchanged. A RESULT on a stream without a
 * registration goes to the default sink factory, if one was given; when there is none or it
 * returns {@code null}, the frame is passed downstream. Requests and server events pass through.
 *
 * <p><b>Protocol extensions.</b> The reader's {@link ProtocolFeatures} apply (see {@link
 * #negotiated}); with {@link ProtocolFeatures#TABLETS_ROUTING_V1} the {@value
 * TabletRouting#PAYLOAD_KEY} custom payload of a parsed RESULT is decoded into {@link
 * RowsResponse#tablets()} before its rows are parsed.
 *
 * <p><b>Errors.</b> A body the parser rejects, or a malformed tablet routing payload, is
 * frame-local: the frame is released, a {@link RowsFailure} is fired for the stream and the
 * handler goes on with the next frame. A frame-local
 * {@link CqlFrameException} from the decoder for a registered stream also becomes a {@link
 * RowsFailure}. A connection-level {@link CqlFrameException} (or the channel closing) fails every
 * registration with a {@link RowsFailure}, in stream order; the exception itself, like every
 * other, passes downstream.
 *
 * <p><b>Streaming.</b> When the decoders {@linkplain
 * io.cqlrows.netty.CqlPipeline#streamResultsFrom stream large results}, a RESULT
 * arrives as a {@link FrameHead} and {@link FrameChunk}s. For a stream registered with {@link
 * #expectStreaming}, its rows are parsed as the chunks arrive: each complete row reaches the sink
 * at once, and only the bytes of the row in progress are kept ({@link ResultStream}). For any
 * other stream the chunks are gathered (without copying) into a {@link Frame}, handled as above;
 * handlers after this one never see heads or chunks. If the connection fails or closes while a
 * body is streamed, its stream gets a {@link RowsFailure} whose {@link RowsFailure#parseError()}
 * is TRUNCATED and names the last complete row.
 *
 * <p><b>Ownership.</b> Frames this handler parses are released here, in {@code finally}; frames it
 * passes on are Ownership transferred (the next handler releases them). Chunks are released here.
 * Sinks are called during {@code channelRead} and see borrowed buffers only.
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}: call
 * {@link #expect} from the channel's event loop.
 */
public final class RowsFrameHandler extends ChannelInboundHandlerAdapter {

  /** Parses bodies; holds this connection's compiled column sets. */
  private ResultReader reader;
  /** Sink for a RESULT nobody registered for; may return null. Null for none. */
  private final Function<Frame, RowSink> defaultSinks;
  /** Registrations by stream id. */
  private final Expectations expectations = new Expectations();
  /** The body arriving in chunks, if any. */
  private final ChunkedBody body = new ChunkedBody();

  /**
   * A handler for one connection.
   *
   * @param reader the connection's RESULT reader
   * @param defaultSinks a sink for a RESULT on a stream without registration, or {@code null} to
   *     pass such a frame downstream; it may return {@code null} for the same. It must not keep
   *     or release the frame it is shown.
   */
  public RowsFrameHandler(ResultReader reader, Function<Frame, RowSink> defaultSinks) {
    this.reader = Objects.requireNonNull(reader, "reader");
    this.defaultSinks = defaultSinks;
  }

  /** A handler without default sink: RESULTs nobody registered for pass downstream. */
  public RowsFrameHandler(ResultReader reader) {
    this(reader, null);
  }

  /**
   * Registers the sink for the next response on {@code streamId}, whose ROWS carry metadata.
   *
   * @throws IllegalStateException if the stream already has a registration
   */
  public void expect(int streamId, RowSink sink) {
    expect(streamId, sink, null);
  }

  /**
   * Registers the sink for the next response on {@code streamId}, the response to an EXECUTE:
   * a {@code No_metadata} ROWS result is decoded with {@code preparedColumns}.
   *
   * @param streamId the request's stream id, 0-32767
   * @param sink receives the rows
   * @param preparedColumns the prepared statement's result columns, or {@code null}
   * @throws IllegalStateException if the stream already has a registration
   */
  public void expect(int streamId, RowSink sink, ResultColumns preparedColumns) {
    expectations.register(streamId, new Expectation(sink, preparedColumns, false));
  }

  /**
   * As {@link #expect(int, RowSink, ResultColumns)}, and if the decoder streams the response
   * (see the class comment), its rows reach the sink while the frame is still arriving. The
   * values, events and errors are the same as for a whole frame; a response that is not
   * streamed (small, compressed v3/v4, or streaming off) is parsed whole.
   *
   * @throws IllegalStateException if the stream already has a registration
   */
  public void expectStreaming(int streamId, RowSink sink, ResultColumns preparedColumns) {
    expectations.register(streamId, new Expectation(sink, preparedColumns, true));
  }

  /**
   * Drops the registration of {@code streamId} (e.g. after a timeout).
   *
   * @return whether there was one
   */
  public boolean cancel(int streamId) {
    return expectations.remove(streamId) != null;
  }

  /**
   * Bytes this handler holds of a body arriving in chunks: the gathered body, or the row in
   * progress of a streamed one (see {@link #expectStreaming}); 0 between frames.
   */
  public int bufferedBytes() {
    return body.bufferedBytes();
  }

  /** The number of streams with a registration. */
  public int pendingCount() {
    return expectations.size();
  }

  /**
   * Applies the protocol extensions a client negotiated after this handler was made (it learns
   * them from SUPPORTED) to every RESULT parsed from now on: call on the event loop before
   * writing STARTUP. The reader's compiled column sets are dropped.
   */
  public void negotiated(ProtocolFeatures features) {
    reader = reader.withFeatures(features);
  }

  /** The protocol extensions RESULTs are parsed with. */
  public ProtocolFeatures features() {
    return reader.features();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FrameHead h) {
      onHead(ctx, h);
      return;
    }
    if (msg instanceof FrameChunk c) {
      onChunk(ctx, c);
      return;
    }
    if (!(msg instanceof Frame frame) || !frame.isResponse() || frame.streamId() < 0) {
      ctx.fireChannelRead(msg);
      return;
    }
    Expectation expected = expectations.remove(frame.streamId());
    if (frame.opcode() != Opcode.RESULT) {
      ctx.fireChannelRead(frame);
      return;
    }
    RowSink sink = expected != null ? expected.sink() : defaultSink(frame);
    if (sink == null) {
      ctx.fireChannelRead(frame);
      return;
    }
    ctx.fireChannelRead(parse(frame, sink, expected == null ? null : expected.preparedColumns()));
  }

  private void onHead(ChannelHandlerContext ctx, FrameHead h) {
    body.begin(h);
    Expectation e = expectations.get(h.streamId());
    if (e == null || !e.streaming()) {
      body.gather(ctx.alloc());
      return;
    }
    expectations.remove(h.streamId());
    ResultStream s = reader.stream(e.sink(), e.preparedColumns(), h.bodyLength());
    try {
      body.stream(s, tablets(h.prelude().customPayload()));
    } catch (CqlParseException x) {
      body.stream(s, null);
      body.drop(); // no row reaches the sink
      ctx.fireChannelRead(new RowsFailure(h.streamId(), tabletsError(h.streamId(), x)));
    }
  }

  private void onChunk(ChannelHandlerContext ctx, FrameChunk c) {
    Object out = body.chunk(c);
    if (out instanceof Frame whole) {
      channelRead(ctx, whole);
    } else if (out != null) {
      ctx.fireChannelRead(out);
    }
  }

  /** Ends a body cut off by the connection: a streamed one's stream fails. */
  private void abandonBody(ChannelHandlerContext ctx, String why) {
    RowsFailure failure = body.abandon(why);
    if (failure != null) {
      ctx.fireChannelRead(failure);
    }
  }

  private RowSink defaultSink(Frame frame) {
    if (defaultSinks == null) {
      return null;
    }
    try {
      return defaultSinks.apply(frame);
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
  }

  /** The tablet routing of a custom payload, if the connection uses it; else null. */
  private TabletRouting tablets(Map<String, byte[]> customPayload) {
    return reader.features().tabletsRoutingV1() ? TabletRouting.fromPayload(customPayload) : null;
  }

  private static CqlFrameException tabletsError(int streamId, CqlParseException e) {
    return CqlFrameException.badPayload(streamId, TabletRouting.PAYLOAD_KEY, e);
  }

  /** Parses and releases the frame; returns the message to fire. */
  private Object parse(Frame frame, RowSink sink, ResultColumns prepared) {
    TabletRouting tablets;
    try {
      tablets = tablets(frame.customPayload());
    } catch (CqlParseException e) {
      frame.release();
      return new RowsFailure(frame.streamId(), tabletsError(frame.streamId(), e));
    }
    try {
      CqlResult result = reader.read(frame.body(), sink, prepared);
      return new RowsResponse(frame.streamId(), result, frame.flags(), frame.warnings(),
          frame.tracingId(), frame.customPayload(), tablets);
    } catch (CqlParseException e) {
      return new RowsFailure(frame.streamId(),
          CqlFrameException.badResult(frame.streamId(), frame.bodyOffset(), e));
    } finally {
      frame.release();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
      if (e.streamId() >= 0 && expectations.remove(e.streamId()) != null) {
        ctx.fireChannelRead(new RowsFailure(e.streamId(), e));
        return;
      }
    } else if (cause instanceof CqlFrameException e) {
      // the byte stream is unusable: no registered response can arrive any more
      abandonBody(ctx, e.getMessage());
      failPending(ctx, e);
    }
    ctx.fireExceptionCaught(cause);
  }

  /** Fails every registration: the connection closed before their responses arrived. */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    abandonBody(ctx, "connection closed before the body was complete");
    failPending(ctx, CqlFrameException.connectionError(Reason.CONNECTION_CLOSED, -1, null,
        "connection closed before the response arrived", null));
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    body.release();
  }

  private void failPending(ChannelHandlerContext ctx, CqlFrameException cause) {
    for (int stream : expectations.removeAll()) {
      ctx.fireChannelRead(new RowsFailure(stream, cause));
    }
  }
}
