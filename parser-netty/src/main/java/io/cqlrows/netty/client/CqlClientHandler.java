package io.cqlrows.netty.client;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.SupportedOptions;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The last inbound handler of a {@link CqlClient} connection: negotiates when the channel becomes
 * active (OPTIONS; on SUPPORTED, STARTUP with the protocol extensions the server offers and
 * cqlrows supports; on AUTHENTICATE, AUTH_RESPONSE with the credentials), and matches responses
 * to the requests in flight by stream id. A v5 connection's pipeline moves to segments by itself
 * when READY or AUTHENTICATE arrives.
 *
 * <p>A request is registered with {@link CqlPipeline#expect} <em>before</em> it is written,
 * so its RESULT is parsed into the caller's sink and arrives here as a {@link RowsResponse} (or a
 * {@link RowsFailure}). An ERROR arrives as a {@link Frame} and fails only its request with a
 * {@link CqlServerError}. A connection-level error or the channel closing fails every request in
 * flight.
 *
 * <p><b>Ownership.</b> Frames that reach this handler are released here. Envelopes handed to
 * {@link #send} are Ownership transferred (written, or released if they cannot be).
 *
 * <p><b>Threading.</b> One instance per channel; every method runs on the channel's event loop.
 */
final class CqlClientHandler extends ChannelInboundHandlerAdapter {
  /** A request in flight: its future, and what to do with its parsed RESULT (null: none). */
  private record Pending(CompletableFuture<?> future, Consumer<RowsResponse> onResult) {}

  private static final int HANDSHAKE_STREAM = 0;
  private static final int SERVER_ERROR = 0x0000;
  private static final int PROTOCOL_ERROR = 0x000A;

  /**
   * The server refused the protocol version of the connection before STARTUP (ScyllaDB and older
   * Cassandras answer a version they do not speak with a protocol error): the cause is the
   * server's error.
   */
  static final class VersionRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    VersionRefused(CqlServerError cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  private final int protocolVersion;
  private final Compression compression;
  /** Sent when the server asks for authentication; null: none to give. */
  private final Credentials credentials;
  /** Whether requests register for streamed results (see {@link CqlClient#streamResultsFrom}). */
  private volatile boolean streaming;
  /** The connection's cqlrows handlers: streams are registered with them. */
  private final CqlPipeline cql;
  /** Completed on READY; failed by an ERROR, AUTHENTICATE or a closed channel. */
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final IntObjectMap<Pending> pending = new IntObjectHashMap<>();
  private final StreamIds streams = new StreamIds();
  private ChannelHandlerContext ctx;
  /** The encoders with the negotiated extensions: set on SUPPORTED, read by any thread. */
  private volatile Requests requests;

  CqlClientHandler(int protocolVersion, Compression compression, Credentials credentials,
      CqlPipeline cql) {
    this.protocolVersion = protocolVersion;
    this.compression = compression;
    this.credentials = credentials;
    this.cql = cql;
    this.requests = new Requests(protocolVersion, compression);
  }

  /** Completes when the server answered STARTUP with READY (and, on v5, segments are on). */
  CompletableFuture<Void> ready() {
    return ready;
  }

  /** Requests sent from now on register for streamed results, or stop to. */
  void streaming(boolean on) {
    streaming = on;
  }

  /** The connection's encoders, with the negotiated extensions once SUPPORTED arrived. */
  Requests requests() {
    return requests;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    writeHandshake(ctx, requests.options(ctx.alloc(), HANDSHAKE_STREAM));
    ctx.fireChannelActive();
  }

  /**
   * Writes OPTIONS or STARTUP on stream 0 (free: nothing else is in flight before READY); its
   * response completes or fails {@link #ready}.
   */
  private void writeHandshake(ChannelHandlerContext ctx, ByteBuf envelope) {
    int stream = HANDSHAKE_STREAM;
    streams.allocate(stream);
    pending.put(stream, new Pending(ready, null));
    ctx.writeAndFlush(envelope).addListener(f -> {
      if (!f.isSuccess()) {
        failStream(stream, f.cause());
      }
    });
  }

  /**
   * Sends a request on a free stream; call on the event loop.
   *
   * @param envelope the encoded request, any stream id. Ownership transferred.
   * @param sink receives the rows of a ROWS result
   * @param preparedColumns the columns of a {@code Skip_metadata} EXECUTE, or null
   * @param future failed if the request cannot be sent or its response is an error
   * @param onResult completes {@code future} from the parsed RESULT; may throw to fail it
   */
  void send(ByteBuf envelope, RowSink sink, ResultColumns preparedColumns,
      CompletableFuture<?> future, Consumer<RowsResponse> onResult) {
    int stream = ctx.channel().isActive() ? streams.allocate() : -1;
    if (stream < 0) {
      envelope.release();
      future.completeExceptionally(ctx.channel().isActive()
          ? new IllegalStateException("all " + StreamIds.COUNT + " stream ids are in use")
          : closed());
      return;
    }
    Requests.setStreamId(envelope, stream);
    if (streaming) {
      cql.expectStreaming(stream, sink, preparedColumns);
    } else {
      cql.expect(stream, sink, preparedColumns);
    }
    pending.put(stream, new Pending(future, onResult));
    ctx.channel().writeAndFlush(envelope).addListener(f -> {
      if (!f.isSuccess()) {
        failStream(stream, f.cause());
      }
    });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof RowsResponse response) {
      Pending p = take(response.streamId());
      if (p != null) {
        complete(p, response);
      }
    } else if (msg instanceof RowsFailure failure) {
      Pending p = take(failure.streamId());
      if (p != null) {
        p.future().completeExceptionally(failure.cause());
      }
    } else if (msg instanceof Frame frame) {
      try {
        onFrame(ctx, frame);
      } finally {
        frame.release();
      }
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private static void complete(Pending p, RowsResponse response) {
    if (p.onResult() == null) {
      p.future().completeExceptionally(new IllegalStateException(
          "unexpected RESULT on stream " + response.streamId()));
      return;
    }
    try {
      p.onResult().accept(response);
    } catch (RuntimeException e) {
      p.future().completeExceptionally(e);
    }
  }

  /** A response that is not a parsed RESULT: READY, ERROR, AUTHENTICATE; events are ignored. */
  private void onFrame(ChannelHandlerContext ctx, Frame frame) {
    if (!frame.isResponse() || frame.streamId() < 0) {
      return;
    }
    Pending p = take(frame.streamId());
    if (p == null) {
      return;
    }
    switch (frame.opcode()) {
      case SUPPORTED:
        if (p.future() == ready) {
          onSupported(ctx, frame);
          return;
        }
        break;
      case READY:
        if (p.future() == ready) {
          onReady(ctx);
          return;
        }
        break;
      case ERROR:
        Throwable error = serverError(frame);
        if (p.future() == ready && error instanceof CqlServerError e && refusesVersion(frame, e)) {
          error = new VersionRefused(e);
        }
        p.future().completeExceptionally(error);
        closeIfStartup(ctx, p);
        return;
      case AUTHENTICATE:
        if (p.future() == ready) {
          onAuthenticate(ctx, frame);
          return;
        }
        break;
      case AUTH_SUCCESS:
        if (p.future() == ready) {
          onReady(ctx);
          return;
        }
        break;
      default:
        break;
    }
    p.future().completeExceptionally(new IllegalStateException(
        "unexpected " + frame.opcode() + " response on stream " + frame.streamId()));
    closeIfStartup(ctx, p);
  }

  /**
   * SUPPORTED: STARTUP names the extensions the server offers that cqlrows supports (none for
   * Cassandra, whose STARTUP stays {@code CQL_VERSION} and {@code COMPRESSION}); the encoders
   * and the rows handler use them from now on, before any response can depend on them.
   */
  private void onSupported(ChannelHandlerContext ctx, Frame frame) {
    ProtocolFeatures features;
    try {
      features = ProtocolFeatures.negotiate(SupportedOptions.decode(frame.body()));
    } catch (IllegalArgumentException e) {
      ready.completeExceptionally(badResponse(frame, e));
      ctx.close();
      return;
    }
    requests = new Requests(protocolVersion, compression, features);
    cql.negotiated(features);
    writeHandshake(ctx, requests.startup(ctx.alloc(), HANDSHAKE_STREAM,
        Requests.startupOptions(compression, features)));
  }

  /**
   * AUTHENTICATE: SASL PLAIN with the credentials (what {@code PasswordAuthenticator} takes, in
   * one round); AUTH_SUCCESS completes the handshake, an ERROR (bad credentials) fails it.
   * Without credentials the handshake fails here.
   */
  private void onAuthenticate(ChannelHandlerContext ctx, Frame frame) {
    if (credentials == null) {
      ready.completeExceptionally(new IllegalStateException("the server requires authentication ("
          + authenticator(frame.body()) + "): connect with Credentials"));
      ctx.close();
      return;
    }
    char[] password = credentials.password();
    byte[] token = Requests.plainToken(credentials.username(), password);
    Arrays.fill(password, '\0');
    try {
      writeHandshake(ctx, requests.authResponse(ctx.alloc(), HANDSHAKE_STREAM, token));
    } finally {
      Arrays.fill(token, (byte) 0);
    }
  }

  /** The {@code [string]} authenticator class of an AUTHENTICATE body, or "?". */
  private static String authenticator(ByteBuf body) {
    int i = body.readerIndex();
    if (body.readableBytes() < 2 || body.readableBytes() - 2 < body.getUnsignedShort(i)) {
      return "?";
    }
    return body.toString(i + 2, body.getUnsignedShort(i), StandardCharsets.UTF_8);
  }

  /**
   * Whether an ERROR answering the handshake says the server does not speak the version asked
   * for: a protocol error in an older version's header, or naming the protocol version, as
   * ScyllaDB ("Invalid or unsupported protocol version: 5") and Cassandra do.
   */
  private boolean refusesVersion(Frame frame, CqlServerError error) {
    if (error.code() != PROTOCOL_ERROR && error.code() != SERVER_ERROR) {
      return false;
    }
    String message = error.serverMessage().toLowerCase(java.util.Locale.ROOT);
    return (error.code() == PROTOCOL_ERROR && frame.version() < protocolVersion)
        || message.contains("protocol version");
  }

  private Throwable serverError(Frame frame) {
    try {
      return CqlServerError.decode(frame.body(), cql.rows().features());
    } catch (IllegalArgumentException e) {
      return badResponse(frame, e);
    }
  }

  /** The frame-local error for an ERROR or SUPPORTED body that cannot be read. */
  private static CqlFrameException badResponse(Frame frame, IllegalArgumentException e) {
    return CqlFrameException.frameError(Reason.BAD_RESPONSE, frame.streamId(), -1,
        frame.opcode() + " body: " + e.getMessage(), e);
  }

  private void closeIfStartup(ChannelHandlerContext ctx, Pending p) {
    if (p.future() == ready) {
      ctx.close();
    }
  }

  /**
   * READY: on v5 the pipeline has moved both directions to segments before handing it on
   * (native_protocol_v5.spec section 2.3.1), so requests written from now on are in segments.
   */
  private void onReady(ChannelHandlerContext ctx) {
    ready.complete(null);
  }

  /** Removes a request in flight and frees its stream; null if there is none. */
  private Pending take(int stream) {
    Pending p = pending.remove(stream);
    if (p != null) {
      streams.release(stream);
    }
    return p;
  }

  private void failStream(int stream, Throwable cause) {
    Pending p = take(stream);
    if (p != null) {
      cql.cancel(stream);
      p.future().completeExceptionally(cause);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
      // one response was unusable; RowsFrameHandler already failed registered streams
      failStream(e.streamId(), e);
      return;
    }
    // the byte stream or the socket is broken: nothing in flight can complete
    failAll(cause);
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    failAll(closed());
    ctx.fireChannelInactive();
  }

  private void failAll(Throwable cause) {
    List<Integer> streamIds = new ArrayList<>(pending.keySet());
    for (int stream : streamIds) {
      failStream(stream, cause);
    }
  }

  private static CqlFrameException closed() {
    return CqlFrameException.connectionError(Reason.CONNECTION_CLOSED, -1, null,
        "connection closed before the response arrived", null);
  }
}
