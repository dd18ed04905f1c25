package io.cqlrows.client;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.SupportedOptions;
import io.cqlrows.netty.internal.FrameErrors;
import io.cqlrows.netty.request.Requests;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The last inbound handler of a {@link CqlClient} connection: the CQL handshake. Once the channel
 * is active (on a TLS connection: once the TLS handshake has completed, so nothing, credentials
 * least of all, is written before it), it sends OPTIONS; on SUPPORTED, STARTUP with the protocol
 * extensions the server offers and cqlrows supports; on AUTHENTICATE, AUTH_RESPONSE with the
 * credentials; READY or AUTH_SUCCESS completes {@link #ready()}. A v5 connection's pipeline moves
 * to segments by itself when READY or AUTHENTICATE arrives. The handshake uses stream 0 alone,
 * before any request is sent; requests go through {@link CqlPipeline#send}.
 *
 * <p>{@link #ready()} fails with the server's {@link CqlServerError}, an {@link
 * IllegalStateException} when the server wants credentials and there are none, the connection's
 * error ({@link CqlConnectionException}: a failed TLS handshake, a reset; {@link
 * CqlFrameException}), or {@code CLOSED_BY_SERVER} when the connection closes first. The client
 * closes the channel after a failed handshake.
 *
 * <p><b>Ownership.</b> Frames that reach this handler are released here; so is anything else.
 *
 * <p><b>Threading.</b> One instance per channel; every method runs on the channel's event loop.
 */
final class CqlClientHandler extends ChannelInboundHandlerAdapter {
  private static final int HANDSHAKE_STREAM = 0;
  private static final int SERVER_ERROR = 0x0000;
  private static final int PROTOCOL_ERROR = 0x000A;

  /**
   * The server refused the protocol version of the connection before STARTUP (ScyllaDB and older
   * Cassandras answer a version they do not speak with a protocol error): the cause is the server's
   * error.
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

  /** The connection's cqlrows handlers. */
  private final CqlPipeline cql;

  /** Whether the channel speaks TLS: the handshake starts when TLS's has completed. */
  private final boolean tls;

  /** Completed on READY or AUTH_SUCCESS; failed by an ERROR, a broken or closed connection. */
  private final CompletableFuture<Void> ready = new CompletableFuture<>();

  /** The encoders with the negotiated extensions: set on SUPPORTED, read by any thread. */
  private volatile Requests requests;

  CqlClientHandler(
      int protocolVersion,
      Compression compression,
      Credentials credentials,
      CqlPipeline cql,
      boolean tls) {
    this.protocolVersion = protocolVersion;
    this.compression = compression;
    this.credentials = credentials;
    this.cql = cql;
    this.tls = tls;
    this.requests = new Requests(protocolVersion, compression);
  }

  /** Completes when the server answered READY or AUTH_SUCCESS (and, on v5, segments are on). */
  CompletableFuture<Void> ready() {
    return ready;
  }

  /** The connection's encoders, with the negotiated extensions once SUPPORTED arrived. */
  Requests requests() {
    return requests;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (!tls) {
      writeHandshake(ctx, requests.options(ctx.alloc(), HANDSHAKE_STREAM));
    }
    ctx.fireChannelActive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e && e.isSuccess() && !ready.isDone()) {
      writeHandshake(ctx, requests.options(ctx.alloc(), HANDSHAKE_STREAM));
    }
    ctx.fireUserEventTriggered(evt);
  }

  /** Writes OPTIONS, STARTUP or AUTH_RESPONSE on stream 0 (free: the handshake comes first). */
  private void writeHandshake(ChannelHandlerContext ctx, ByteBuf envelope) {
    ctx.writeAndFlush(envelope)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                fail(ctx, f.cause());
              }
            });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Frame frame)) {
      ReferenceCountUtil.release(msg); // a RowsResponse nobody sent for, a server event's frame
      return;
    }
    try {
      if (!ready.isDone() && frame.isResponse() && frame.streamId() == HANDSHAKE_STREAM) {
        onHandshakeFrame(ctx, frame);
      }
    } finally {
      frame.release();
    }
  }

  /** An answer to OPTIONS, STARTUP or AUTH_RESPONSE. */
  private void onHandshakeFrame(ChannelHandlerContext ctx, Frame frame) {
    switch (frame.opcode()) {
      case SUPPORTED -> onSupported(ctx, frame);
      case READY, AUTH_SUCCESS -> ready.complete(null);
      case AUTHENTICATE -> onAuthenticate(ctx, frame);
      case ERROR -> {
        Throwable error = serverError(frame);
        if (error instanceof CqlServerError e && refusesVersion(frame, e)) {
          error = new VersionRefused(e);
        }
        fail(ctx, error);
      }
      default ->
          fail(
              ctx,
              new IllegalStateException(
                  "unexpected "
                      + frame.opcode()
                      + " response on stream "
                      + frame.streamId()
                      + " during the handshake"));
    }
  }

  /**
   * SUPPORTED: STARTUP names the extensions the server offers that cqlrows supports (none for
   * Cassandra, whose STARTUP stays {@code CQL_VERSION} and {@code COMPRESSION}); the encoders and
   * the rows handler use them from now on, before any response can depend on them.
   */
  private void onSupported(ChannelHandlerContext ctx, Frame frame) {
    ProtocolFeatures features;
    try {
      features = ProtocolFeatures.negotiate(SupportedOptions.decode(frame.body()));
    } catch (IllegalArgumentException e) {
      fail(ctx, badResponse(frame, e));
      return;
    }
    requests = new Requests(protocolVersion, compression, features);
    cql.negotiated(features);
    writeHandshake(
        ctx,
        requests.startup(
            ctx.alloc(), HANDSHAKE_STREAM, Requests.startupOptions(compression, features)));
  }

  /**
   * AUTHENTICATE: SASL PLAIN with the credentials (what {@code PasswordAuthenticator} takes, in one
   * round); AUTH_SUCCESS completes the handshake, an ERROR (bad credentials) fails it. Without
   * credentials the handshake fails here.
   */
  private void onAuthenticate(ChannelHandlerContext ctx, Frame frame) {
    if (credentials == null) {
      fail(
          ctx,
          new IllegalStateException(
              "the server requires authentication ("
                  + authenticator(frame.body())
                  + "): connect with Credentials"));
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
   * Whether an ERROR answering the handshake says the server does not speak the version asked for:
   * a protocol error in an older version's header, or naming the protocol version, as ScyllaDB
   * ("Invalid or unsupported protocol version: 5") and Cassandra do.
   */
  private boolean refusesVersion(Frame frame, CqlServerError error) {
    if (error.code() != PROTOCOL_ERROR && error.code() != SERVER_ERROR) {
      return false;
    }
    String message = error.serverMessage().toLowerCase(Locale.ROOT);
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
    return FrameErrors.frameError(
        Reason.BAD_RESPONSE, frame.streamId(), -1, frame.opcode() + " body: " + e.getMessage(), e);
  }

  /** Fails the handshake and closes the channel; nothing once it is done. */
  private void fail(ChannelHandlerContext ctx, Throwable cause) {
    if (ready.completeExceptionally(cause)) {
      ctx.close();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // the rows handler has failed the requests in flight and closes a broken connection; the
    // handshake fails with the connection's error
    boolean otherStream =
        cause instanceof CqlFrameException e
            && !e.connectionLevel()
            && e.streamId() != HANDSHAKE_STREAM;
    if (!ready.isDone() && !otherStream) {
      fail(ctx, cause);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ready.completeExceptionally(
        new CqlConnectionException(
            CqlConnectionException.Reason.CLOSED_BY_SERVER,
            CqlConnectionException.address(ctx.channel().remoteAddress()),
            -1,
            "connection closed by the server during the CQL handshake",
            null));
    ctx.fireChannelInactive();
  }
}
