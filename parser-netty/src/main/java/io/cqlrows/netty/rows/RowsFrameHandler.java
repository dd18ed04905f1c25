package io.cqlrows.netty.rows;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.ResultStream;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.FrameErrors;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.netty.rows.Expectations.Expectation;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.EventExecutor;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Parses RESULT responses into the {@link RowSink} registered for their stream, and keeps the
 * connection's requests in flight: which stream id each one uses, its deadline, and the future its
 * response completes.
 *
 * <p><b>Sending</b> ({@link #send}): the handler picks a free stream id, writes it into the
 * request, registers the sink, writes the request and returns a future of the response. A RESULT is
 * parsed into the sink and completes the future with a {@link RowsResponse}; an ERROR fails it with
 * a {@link CqlServerError}; a response the parser rejects fails it with a frame-local {@link
 * CqlFrameException}. Nothing of such a request reaches the handlers after this one.
 *
 * <p><b>Deadlines and orphans.</b> Every request sent has a deadline. When it passes, the future
 * fails with a {@link CqlConnectionException} ({@code REQUEST_TIMEOUT}), the sink is dropped (a
 * response being streamed into it stops), and the stream id becomes <em>orphaned</em>: it stays in
 * use until the late response arrives, which is then released unread (and never reaches the default
 * sink or a later request), or until the connection ends. A future cancelled by its caller orphans
 * its id the same way. More orphans than the handler allows mark the connection broken ({@code
 * TOO_MANY_ORPHANS}): every pending request fails with that, and the channel is closed.
 *
 * <p><b>Registering</b> ({@link #expect}): a driver that picks stream ids itself (a replay, a
 * server, a proxy) registers the sink before writing the request: the next response on that stream
 * consumes the registration. If it is a RESULT, the body is parsed into the sink and a {@link
 * RowsResponse} (or a {@link RowsFailure}) is fired downstream in place of the frame; any other
 * response is passed downstream unchanged. Ids in use by sent requests cannot be registered, and
 * the ids of registrations are not picked for sent requests. A RESULT on a stream without a
 * registration goes to the default sink factory, if one was given; when there is none or it returns
 * {@code null}, the frame is passed downstream. Requests and server events pass through.
 *
 * <p><b>Protocol extensions.</b> The reader's {@link ProtocolFeatures} apply (see {@link
 * #negotiated}); with {@link ProtocolFeatures#TABLETS_ROUTING_V1} the {@value
 * TabletRouting#PAYLOAD_KEY} custom payload of a parsed RESULT is decoded into {@link
 * RowsResponse#tablets()} before its rows are parsed.
 *
 * <p><b>Errors.</b> A body the parser rejects, or a malformed tablet routing payload, is
 * frame-local: the frame is released, its request fails (or a {@link RowsFailure} is fired for a
 * registration) and the handler goes on with the next frame; so does a frame-local {@link
 * CqlFrameException} from the decoder. A connection-level error ({@link CqlFrameException} with
 * {@code connectionLevel()}, or a {@link CqlConnectionException} such as a reset or a failed TLS
 * handshake) fails every pending request at once with that error, and every registration with a
 * {@link RowsFailure}, in stream order; the exception itself, like every other, passes downstream.
 * The connection closing fails what is pending with {@code CLOSED_BY_CLIENT} (a close that passed
 * through this handler) or {@code CLOSED_BY_SERVER}; input cut off inside a response counts as the
 * server closing. A handler made by {@link #forConnection} closes the channel itself after a
 * connection-level error, since nothing more can be decoded on it.
 *
 * <p><b>Streaming.</b> When the decoders {@linkplain io.cqlrows.netty.CqlPipeline#streamResultsFrom
 * stream large results}, a RESULT arrives as a {@link FrameHead} and {@link FrameChunk}s. For a
 * stream registered as streaming, its rows are parsed as the chunks arrive: each complete row
 * reaches the sink at once, and only the bytes of the row in progress are kept ({@link
 * ResultStream}). For any other stream the chunks are gathered (without copying) into a {@link
 * Frame}, handled as above; handlers after this one never see heads or chunks. If the connection
 * fails or closes while a body is streamed, its registration gets a {@link RowsFailure} whose
 * {@link RowsFailure#parseError()} is TRUNCATED and names the last complete row.
 *
 * <p><b>Ownership.</b> This handler owns a request handed to {@link #send} (it writes it, or
 * releases it when it cannot be sent). It releases the frames it parses or answers requests with,
 * and the chunks it receives; a frame it passes on belongs to the next handler, which releases it.
 * Sinks are called during {@code channelRead} and see borrowed buffers only.
 *
 * <p><b>Threading.</b> One instance per channel; not {@code @Sharable}. {@link #send} may be called
 * from any thread, and its futures complete on the event loop (do not block in their callbacks);
 * every other method is called from the channel's event loop.
 */
public final class RowsFrameHandler extends ChannelDuplexHandler {
  /** The deadline of a request sent without one: 30 seconds. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** How many orphaned stream ids a connection keeps before it is treated as broken: 256. */
  public static final int DEFAULT_MAX_ORPHANS = 256;

  /** Parses bodies; holds this connection's compiled column sets. */
  private ResultReader reader;

  /** Sink for a RESULT nobody registered for; may return null. Null for none. */
  private final Function<Frame, RowSink> defaultSinks;

  private final Duration requestTimeout;
  private final int maxOrphans;

  /** Whether a connection-level error closes the channel (a client connection). */
  private final boolean ownsConnection;

  /** Registrations and stream ids. */
  private final Expectations expectations = new Expectations();

  /** The body arriving in chunks, if any. */
  private final ChunkedBody body = new ChunkedBody();

  private ChannelHandlerContext ctx;

  /** What ended the connection, for the requests sent after it; null while it is usable. */
  private Throwable broken;

  /** A close passed through this handler: the client closed the connection. */
  private boolean closedByClient;

  /**
   * A handler for a connection whose owner closes it: a replay, a test, a server. Requests sent
   * through it have {@link #DEFAULT_REQUEST_TIMEOUT} unless they say otherwise.
   *
   * @param reader the connection's RESULT reader
   * @param defaultSinks a sink for a RESULT on a stream without registration, or {@code null} to
   *     pass such a frame downstream; it may return {@code null} for the same. It must not keep or
   *     release the frame it is shown.
   */
  public RowsFrameHandler(ResultReader reader, Function<Frame, RowSink> defaultSinks) {
    this(reader, defaultSinks, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_ORPHANS, false);
  }

  /** A handler without default sink: RESULTs nobody registered for pass downstream. */
  public RowsFrameHandler(ResultReader reader) {
    this(reader, null);
  }

  private RowsFrameHandler(
      ResultReader reader,
      Function<Frame, RowSink> defaultSinks,
      Duration requestTimeout,
      int maxOrphans,
      boolean ownsConnection) {
    this.reader = Objects.requireNonNull(reader, "reader");
    this.defaultSinks = defaultSinks;
    this.requestTimeout = checkTimeout(requestTimeout);
    if (maxOrphans < 0) {
      throw new IllegalArgumentException("maxOrphans: " + maxOrphans + " (expected: >= 0)");
    }
    this.maxOrphans = maxOrphans;
    this.ownsConnection = ownsConnection;
  }

  /**
   * A handler for a client connection: a connection-level error closes the channel.
   *
   * @param reader the connection's RESULT reader
   * @param defaultSinks as for {@link #RowsFrameHandler(ResultReader, Function)}
   * @param requestTimeout the deadline of a request sent without one; positive
   * @param maxOrphans the most orphaned stream ids the connection keeps; one more breaks it
   */
  public static RowsFrameHandler forConnection(
      ResultReader reader,
      Function<Frame, RowSink> defaultSinks,
      Duration requestTimeout,
      int maxOrphans) {
    return new RowsFrameHandler(reader, defaultSinks, requestTimeout, maxOrphans, true);
  }

  /** The deadline of a request sent without one. */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /**
   * Sends a request on a free stream id and returns the future of its response. May be called from
   * any thread: the request is written from the event loop.
   *
   * @param request an encoded request envelope (from {@link Requests}) with any stream id; the
   *     handler writes the id it picks into it. Ownership passes to this handler: it is written, or
   *     released if it cannot be.
   * @param sink receives the rows of a ROWS result, on the event loop; never null (for a statement
   *     without rows, such as DDL or an INSERT, any sink does, e.g. a {@code CountingSink})
   * @param preparedColumns the columns of an EXECUTE sent with {@code Skip_metadata} (its {@code
   *     No_metadata} rows are decoded with them), or {@code null}
   * @param timeout the request's deadline, from now; positive
   * @param streaming whether the rows of a large result reach the sink while it arrives, when the
   *     decoders stream it ({@link io.cqlrows.netty.CqlPipeline#streamResultsFrom})
   * @return completed on the event loop with the parsed RESULT; failed with a {@link
   *     CqlServerError} for an ERROR, a {@link CqlFrameException} for a response that cannot be
   *     used or a broken connection, a {@link CqlConnectionException} for a deadline, a closed or
   *     reset connection, or no free stream id. Cancelling it orphans the stream id.
   * @throws IllegalStateException if the handler is not in a pipeline
   */
  public CompletableFuture<RowsResponse> send(
      ByteBuf request,
      RowSink sink,
      ResultColumns preparedColumns,
      Duration timeout,
      boolean streaming) {
    Objects.requireNonNull(request, "request");
    ChannelHandlerContext c = ctx;
    try {
      Objects.requireNonNull(sink, "sink");
      checkTimeout(timeout);
      if (c == null) {
        throw new IllegalStateException("the handler is not in a pipeline");
      }
    } catch (RuntimeException e) {
      request.release();
      throw e;
    }
    CompletableFuture<RowsResponse> future = new CompletableFuture<>();
    EventExecutor loop = c.executor();
    if (loop.inEventLoop()) {
      start(request, sink, preparedColumns, streaming, timeout, future);
      return future;
    }
    try {
      loop.execute(() -> start(request, sink, preparedColumns, streaming, timeout, future));
    } catch (RejectedExecutionException e) {
      request.release();
      future.completeExceptionally(
          new CqlConnectionException(
              CqlConnectionException.Reason.CLOSED_BY_CLIENT,
              address(),
              -1,
              "the connection's event loop is shut down",
              e));
    }
    return future;
  }

  /** Takes an id, registers, writes, and starts the deadline; on the event loop. */
  private void start(
      ByteBuf request,
      RowSink sink,
      ResultColumns preparedColumns,
      boolean streaming,
      Duration timeout,
      CompletableFuture<RowsResponse> future) {
    if (future.isDone()) {
      request.release(); // cancelled before it was sent
      return;
    }
    Throwable refused = refusal();
    if (refused != null) {
      request.release();
      future.completeExceptionally(refused);
      return;
    }
    int id = expectations.allocate();
    if (id < 0) {
      request.release();
      future.completeExceptionally(
          new CqlConnectionException(
              CqlConnectionException.Reason.STREAMS_EXHAUSTED,
              address(),
              -1,
              "all "
                  + Expectations.COUNT
                  + " stream ids are in use ("
                  + expectations.orphans()
                  + " of them orphaned)",
              null));
      return;
    }
    try {
      Requests.setStreamId(request, id);
    } catch (RuntimeException x) {
      expectations.release(id);
      request.release();
      future.completeExceptionally(x);
      return;
    }
    InFlightRequest r = new InFlightRequest(id, future, timeout);
    expectations.put(id, new Expectation(sink, preparedColumns, streaming, r));
    r.deadline = ctx.executor().schedule(() -> expire(r), nanos(timeout), TimeUnit.NANOSECONDS);
    future.whenComplete(
        (response, error) -> {
          if (error instanceof CancellationException) {
            onLoop(() -> orphan(r));
          }
        });
    ctx.channel()
        .writeAndFlush(request)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                writeFailed(r, f.cause());
              }
            });
  }

  /** Why a request cannot be sent now, or null. */
  private Throwable refusal() {
    if (broken != null) {
      return broken;
    }
    if (!ctx.channel().isOpen()) {
      return closed("", null); // closed, and this handler has not heard yet
    }
    if (!ctx.channel().isActive()) {
      return new IllegalStateException("the channel is not connected yet");
    }
    return null;
  }

  private void onLoop(Runnable task) {
    EventExecutor loop = ctx.executor();
    if (loop.inEventLoop()) {
      task.run();
    } else {
      try {
        loop.execute(task);
      } catch (RejectedExecutionException e) {
        // the loop is gone, and the connection with it
      }
    }
  }

  /** Whether {@code r} is still waiting for its response. */
  private boolean isPending(InFlightRequest r) {
    Expectation e = expectations.get(r.streamId);
    return e != null && e.request() == r;
  }

  /** The deadline of {@code r} passed. */
  private void expire(InFlightRequest r) {
    if (!isPending(r)) {
      return;
    }
    r.deadline = null;
    r.fail(
        new CqlConnectionException(
            CqlConnectionException.Reason.REQUEST_TIMEOUT,
            address(),
            r.streamId,
            "no response within " + r.timeout.toMillis() + " ms",
            null));
    orphan(r);
  }

  /**
   * Gives up on {@code r} while its answer may still come: its id stays in use, orphaned, and a
   * body being streamed into its sink stops reaching it.
   */
  private void orphan(InFlightRequest r) {
    if (!isPending(r)) {
      return;
    }
    r.stopTimer();
    if (body.streamId() == r.streamId) {
      body.drop();
    }
    int orphans = expectations.orphan(r.streamId);
    if (orphans > maxOrphans) {
      breakConnection(
          new CqlConnectionException(
              CqlConnectionException.Reason.TOO_MANY_ORPHANS,
              address(),
              -1,
              orphans
                  + " requests timed out or were cancelled while their answers"
                  + " may still come (expected: at most "
                  + maxOrphans
                  + ")",
              null));
    }
  }

  /**
   * A request could not be written. When the socket failed under it (reset, closed by the server, a
   * broken pipe), the connection is gone for every request, which all fail with that, as they would
   * have on the next read; otherwise (the client closed, an encoder failed) only this one fails.
   */
  private void writeFailed(InFlightRequest r, Throwable cause) {
    if (broken == null && !closedByClient) {
      CqlConnectionException lost =
          cause instanceof ClosedChannelException
              ? closed("", cause)
              : CqlConnectionException.from(cause, address());
      if (lost != null) {
        breakConnection(lost);
      }
    }
    if (!isPending(r)) {
      return;
    }
    expectations.remove(r.streamId);
    Throwable why = broken;
    if (why == null) {
      why =
          closedByClient
              ? closed("", cause)
              : new CqlConnectionException(
                  CqlConnectionException.Reason.IO_ERROR,
                  address(),
                  r.streamId,
                  "request not written: " + cause,
                  cause);
    }
    r.fail(why);
  }

  /**
   * Registers the sink for the next response on {@code streamId}, whose ROWS carry metadata.
   *
   * <p>A registration holds for one response. Once that response has been handled (this handler
   * fired its {@link RowsResponse} or {@link RowsFailure}, or passed on a response that is not a
   * RESULT), the stream id is free and may be registered and used again. After {@link #cancel}, the
   * server may still answer the old request: reuse the id only when no answer can come any more.
   * {@link #send} picks ids itself and keeps such ids aside until their late answer arrives.
   *
   * @throws IllegalStateException if the stream already has a registration, or is in use by a
   *     request sent through {@link #send}
   */
  public void expect(int streamId, RowSink sink) {
    expect(streamId, sink, null);
  }

  /**
   * Registers the sink for the next response on {@code streamId}, the response to an EXECUTE: a
   * {@code No_metadata} ROWS result is decoded with {@code preparedColumns}.
   *
   * @param streamId the request's stream id, 0-32767
   * @param sink receives the rows
   * @param preparedColumns the prepared statement's result columns, or {@code null}
   * @throws IllegalStateException if the stream id is in use
   */
  public void expect(int streamId, RowSink sink, ResultColumns preparedColumns) {
    expectations.register(streamId, new Expectation(sink, preparedColumns, false, null));
  }

  /**
   * As {@link #expect(int, RowSink, ResultColumns)}, and if the decoder streams the response (see
   * the class comment), its rows reach the sink while the frame is still arriving. The values,
   * events and errors are the same as for a whole frame; a response that is not streamed (small,
   * compressed v3/v4, or streaming off) is parsed whole.
   *
   * @throws IllegalStateException if the stream id is in use
   */
  public void expectStreaming(int streamId, RowSink sink, ResultColumns preparedColumns) {
    expectations.register(streamId, new Expectation(sink, preparedColumns, true, null));
  }

  /**
   * Drops the registration of {@code streamId}: its response, if it still comes, is handled as one
   * nobody registered for, and a body being streamed into its sink stops reaching it. For a request
   * sent through {@link #send}, this is the same as cancelling its future.
   *
   * @return whether there was one
   */
  public boolean cancel(int streamId) {
    Expectation e = expectations.get(streamId);
    if (e == null) {
      return false;
    }
    if (e.request() != null) {
      e.request().future.cancel(false);
      orphan(e.request());
      return true;
    }
    if (body.streamId() == streamId && body.isStreamed()) {
      body.drop();
    }
    expectations.remove(streamId);
    return true;
  }

  /**
   * Bytes this handler holds of a body arriving in chunks: the gathered body, or the row in
   * progress of a streamed one (see {@link #expectStreaming}); 0 between frames.
   */
  public int bufferedBytes() {
    return body.bufferedBytes();
  }

  /** The number of streams waiting for a response: registrations and requests sent. */
  public int pendingCount() {
    return expectations.size();
  }

  /** The number of orphaned stream ids: requests given up on whose answers may still come. */
  public int orphanedCount() {
    return expectations.orphans();
  }

  /**
   * Applies the protocol extensions a client negotiated after this handler was made (it learns them
   * from SUPPORTED) to every RESULT parsed from now on: call on the event loop before writing
   * STARTUP. The reader's compiled column sets are dropped.
   */
  public void negotiated(ProtocolFeatures features) {
    reader = reader.withFeatures(features);
  }

  /** The protocol extensions RESULTs are parsed with. */
  public ProtocolFeatures features() {
    return reader.features();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
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
    int stream = frame.streamId();
    if (expectations.isOrphaned(stream)) {
      frame.release(); // the late answer to a request given up on
      expectations.adopt(stream);
      return;
    }
    Expectation expected = expectations.remove(stream);
    if (expected != null && expected.request() != null) {
      answer(expected, frame);
      return;
    }
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

  /** The response to a request sent through {@link #send}; releases the frame. */
  private void answer(Expectation expected, Frame frame) {
    InFlightRequest r = expected.request();
    if (frame.opcode() == Opcode.RESULT) {
      Object out;
      try {
        out = parse(frame, expected.sink(), expected.preparedColumns());
      } catch (RuntimeException e) {
        r.fail(e); // the sink threw: the request fails, the connection goes on
        return;
      }
      settle(r, out);
      return;
    }
    try {
      r.fail(
          frame.opcode() == Opcode.ERROR
              ? serverError(frame)
              : FrameErrors.frameError(
                  Reason.BAD_RESPONSE,
                  frame.streamId(),
                  frame.bodyOffset(),
                  "opcode: "
                      + frame.opcode()
                      + " (expected: RESULT or ERROR in answer to a request)",
                  null));
    } finally {
      frame.release();
    }
  }

  private static void settle(InFlightRequest r, Object outcome) {
    if (outcome instanceof RowsResponse response) {
      r.complete(response);
    } else if (outcome instanceof RowsFailure failure) {
      r.fail(failure.cause());
    }
  }

  private Throwable serverError(Frame frame) {
    try {
      return CqlServerError.decode(frame.body(), reader.features());
    } catch (IllegalArgumentException e) {
      return FrameErrors.frameError(
          Reason.BAD_RESPONSE,
          frame.streamId(),
          frame.bodyOffset(),
          "ERROR body: " + e.getMessage(),
          e);
    }
  }

  private void onHead(ChannelHandlerContext ctx, FrameHead h) {
    body.begin(h);
    int stream = h.streamId();
    if (expectations.isOrphaned(stream)) {
      body.drop(); // the late answer to a request given up on
      return;
    }
    Expectation e = expectations.get(stream);
    if (e == null || !e.streaming()) {
      body.gather(ctx.alloc());
      return;
    }
    ResultStream s = reader.stream(e.sink(), e.preparedColumns(), h.bodyLength());
    try {
      body.stream(s, tablets(h.prelude().customPayload()));
    } catch (CqlParseException x) {
      body.stream(s, null);
      body.drop(); // no row reaches the sink
      finish(ctx, stream, new RowsFailure(stream, tabletsError(stream, x)));
    }
  }

  private void onChunk(ChannelHandlerContext ctx, FrameChunk c) {
    int stream = c.streamId();
    boolean last = c.isLast();
    Object out = body.chunk(c);
    if (out instanceof Frame whole) {
      channelRead(ctx, whole);
    } else if (out instanceof ChunkedBody.SinkFailure f) {
      sinkFailed(f);
    } else if (out != null) {
      finish(ctx, stream, out);
    } else if (last && expectations.isOrphaned(stream)) {
      expectations.adopt(stream); // a discarded late answer, or one dropped at its deadline
    }
  }

  /** A streamed body's outcome ({@link RowsResponse} or {@link RowsFailure}) for its stream. */
  private void finish(ChannelHandlerContext ctx, int stream, Object outcome) {
    if (expectations.isOrphaned(stream)) {
      expectations.adopt(stream);
      return;
    }
    Expectation e = expectations.remove(stream);
    if (e != null && e.request() != null) {
      settle(e.request(), outcome);
    } else {
      ctx.fireChannelRead(outcome);
    }
  }

  /**
   * A streamed body's sink threw, as {@link #answer} and {@link #parse} let a whole frame's sink
   * throw: a request sent through {@link #send} fails with the sink's exception and the connection
   * goes on; for a registration made with {@link #expect} the exception is thrown on, to {@link
   * #exceptionCaught}. Either way the registration is used up.
   */
  private void sinkFailed(ChunkedBody.SinkFailure f) {
    Expectation e = expectations.remove(f.streamId());
    if (e != null && e.request() != null) {
      e.request().fail(f.cause());
      return;
    }
    throw f.cause();
  }

  /** Ends a body cut off by the connection: a streamed one's registration fails. */
  private void abandonBody(ChannelHandlerContext ctx, String why) {
    int stream = body.streamId();
    RowsFailure failure = body.abandon(why);
    if (failure == null) {
      return;
    }
    Expectation e = expectations.remove(stream);
    if (e != null && e.request() != null) {
      e.request().fail(broken != null ? broken : failure.cause());
    } else if (e != null) {
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
    return FrameErrors.badPayload(streamId, TabletRouting.PAYLOAD_KEY, e);
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
      return new RowsResponse(
          frame.streamId(),
          result,
          frame.flags(),
          frame.warnings(),
          frame.tracingId(),
          frame.customPayload(),
          tablets);
    } catch (CqlParseException e) {
      return new RowsFailure(
          frame.streamId(), FrameErrors.badResult(frame.streamId(), frame.bodyOffset(), e));
    } finally {
      frame.release();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
      int stream = e.streamId();
      if (expectations.isOrphaned(stream)) {
        expectations.adopt(stream); // the late answer arrived broken: nobody waits for it
        return;
      }
      Expectation expected = stream >= 0 ? expectations.remove(stream) : null;
      if (expected != null && expected.request() != null) {
        expected.request().fail(e);
        return;
      }
      if (expected != null) {
        ctx.fireChannelRead(new RowsFailure(stream, e));
        return;
      }
    } else if (cause instanceof CqlFrameException
        || cause instanceof CqlConnectionException
        || ownsConnection) {
      // the byte stream or the socket is unusable: no pending response can arrive any more
      breakConnection(cause);
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  /**
   * Fails everything pending with {@code cause} (the first such cause stays the connection's),
   * passes {@code cause} downstream, and then, in a handler that owns the connection, closes it.
   */
  private void breakConnection(Throwable cause) {
    boolean first = broken == null;
    if (first) {
      broken = forRequests(cause);
    }
    abandonBody(ctx, cause.getMessage());
    failPending(ctx, broken, forRegistrations(cause));
    ctx.fireExceptionCaught(cause);
    if (first && ownsConnection && ctx.channel().isOpen()) {
      ctx.close();
    }
  }

  /**
   * What pending requests fail with for a connection-level error: the error itself, except for
   * input cut off inside a response, which is the connection closing.
   */
  private Throwable forRequests(Throwable cause) {
    if (cause instanceof CqlFrameException e
        && e.connectionLevel()
        && e.reason() == Reason.TRUNCATED) {
      return closed(" inside a response (" + e.getMessage() + ")", e);
    }
    return cause;
  }

  /** The connection-level error for registrations: theirs is a {@link CqlFrameException}. */
  private static CqlFrameException forRegistrations(Throwable cause) {
    return cause instanceof CqlFrameException e
        ? e
        : FrameErrors.connectionError(
            Reason.CONNECTION_CLOSED, -1, null, String.valueOf(cause.getMessage()), cause);
  }

  private CqlConnectionException closed(String where, Throwable cause) {
    return closedByClient
        ? new CqlConnectionException(
            CqlConnectionException.Reason.CLOSED_BY_CLIENT,
            address(),
            -1,
            "connection closed by the client" + where,
            cause)
        : new CqlConnectionException(
            CqlConnectionException.Reason.CLOSED_BY_SERVER,
            address(),
            -1,
            "connection closed by the server" + where,
            cause);
  }

  /**
   * Fails every sent request with {@code forRequests} and every registration with a {@link
   * RowsFailure} of {@code forRegistrations}, in stream order; frees every stream id.
   */
  private void failPending(
      ChannelHandlerContext ctx, Throwable forRequests, CqlFrameException forRegistrations) {
    for (int stream : expectations.registeredStreams()) {
      Expectation e = expectations.get(stream);
      if (e.request() != null) {
        e.request().fail(forRequests);
      } else {
        ctx.fireChannelRead(new RowsFailure(stream, forRegistrations));
      }
    }
    expectations.clear();
  }

  /** The client closes the connection: requests sent fail now, with {@code CLOSED_BY_CLIENT}. */
  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
    closedByClient = true;
    if (broken == null) {
      broken = closed("", null);
      for (int stream : expectations.registeredStreams()) {
        Expectation e = expectations.get(stream);
        if (e.request() != null) {
          expectations.remove(stream);
          e.request().fail(broken);
        }
      }
    }
    super.close(ctx, promise);
  }

  /** Fails everything pending: the connection closed before the responses arrived. */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (broken == null) {
      broken = closed("", null);
    }
    abandonBody(ctx, "connection closed before the body was complete");
    failPending(
        ctx,
        broken,
        FrameErrors.connectionError(
            Reason.CONNECTION_CLOSED,
            -1,
            null,
            "connection closed before the response arrived",
            null));
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    body.release();
  }

  /** The server's {@code host:port}, or null. */
  private String address() {
    return ctx == null ? null : CqlConnectionException.address(ctx.channel().remoteAddress());
  }

  /** The duration in nanoseconds, saturated (a deadline centuries away is none). */
  private static long nanos(Duration timeout) {
    try {
      return timeout.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static Duration checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
    }
    return timeout;
  }
}
