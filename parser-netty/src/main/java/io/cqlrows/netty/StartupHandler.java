package io.cqlrows.netty;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlConnectionException.Reason;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.FrameErrors;
import io.cqlrows.netty.request.Requests;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Waits for the answer to the STARTUP that {@link CqlPipeline#startup()} wrote, takes it out of the
 * pipeline (releasing it), completes the future, then removes itself: READY completes it, an ERROR
 * fails it with a {@link CqlServerError}, AUTHENTICATE fails it with an {@link
 * IllegalStateException} naming the authenticator, a closed or broken connection with the
 * connection's error ({@link CqlFrameException} or {@link CqlConnectionException}), and no answer
 * within the deadline with a {@code REQUEST_TIMEOUT} (the channel is then closed). Everything else
 * passes through. One per handshake; runs on the event loop.
 */
final class StartupHandler extends ChannelInboundHandlerAdapter {
  private final int streamId;
  private final ProtocolFeatures features;
  private final CompletableFuture<Void> ready;

  /**
   * Puts a handler after the rows handler and writes STARTUP on stream 0, on the event loop, once
   * the TLS handshake (if any) has completed.
   *
   * @param tls the connection's TLS handler, or null
   * @param timeout how long to wait for the answer, from now
   * @return completed by the answer, as {@link CqlPipeline#startup()} says
   */
  static CompletableFuture<Void> start(
      ChannelPipeline pipeline,
      Requests requests,
      Map<String, String> options,
      SslHandler tls,
      Duration timeout) {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Channel channel = pipeline.channel();
    channel
        .eventLoop()
        .execute(
            () -> {
              StartupHandler handler = new StartupHandler(0, requests.features(), ready);
              pipeline.addAfter(
                  CqlPipeline.ROWS_FRAME_HANDLER, CqlPipeline.STARTUP_HANDLER, handler);
              ScheduledFuture<?> deadline =
                  channel
                      .eventLoop()
                      .schedule(
                          () -> {
                            if (ready.completeExceptionally(
                                new CqlConnectionException(
                                    Reason.REQUEST_TIMEOUT,
                                    CqlConnectionException.address(channel.remoteAddress()),
                                    0,
                                    "no answer to STARTUP within " + timeout.toMillis() + " ms",
                                    null))) {
                              channel.close();
                            }
                          },
                          timeout.toNanos(),
                          TimeUnit.NANOSECONDS);
              ready.whenComplete((ok, error) -> deadline.cancel(false));
              Runnable write =
                  () ->
                      channel
                          .writeAndFlush(requests.startup(channel.alloc(), 0, options))
                          .addListener(
                              f -> {
                                if (!f.isSuccess()) {
                                  ready.completeExceptionally(f.cause());
                                }
                              });
              if (tls == null) {
                write.run();
                return;
              }
              tls.handshakeFuture()
                  .addListener(
                      f -> {
                        if (f.isSuccess()) {
                          write.run();
                        } else {
                          CqlConnectionException e =
                              CqlConnectionException.from(
                                  f.cause(),
                                  CqlConnectionException.address(channel.remoteAddress()));
                          ready.completeExceptionally(e != null ? e : f.cause());
                        }
                      });
            });
    return ready;
  }

  StartupHandler(int streamId, ProtocolFeatures features, CompletableFuture<Void> ready) {
    this.streamId = streamId;
    this.features = features;
    this.ready = ready;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Frame frame) || !isAnswer(frame)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      switch (frame.opcode()) {
        case READY -> done(ctx, null);
        case ERROR -> done(ctx, serverError(frame));
        default ->
            done(
                ctx,
                new IllegalStateException(
                    "the server requires authentication ("
                        + authenticator(frame.body())
                        + "); startup() sends none"));
      }
    } finally {
      frame.release();
    }
  }

  /** READY, ERROR or AUTHENTICATE on the STARTUP's stream. */
  private boolean isAnswer(Frame frame) {
    return frame.isResponse()
        && frame.streamId() == streamId
        && switch (frame.opcode()) {
          case READY, ERROR, AUTHENTICATE -> true;
          default -> false;
        };
  }

  private Throwable serverError(Frame frame) {
    try {
      return CqlServerError.decode(frame.body(), features);
    } catch (IllegalArgumentException e) {
      return FrameErrors.frameError(
          CqlFrameException.Reason.BAD_RESPONSE,
          frame.streamId(),
          frame.bodyOffset(),
          "ERROR body: " + e.getMessage(),
          e);
    }
  }

  /** The {@code [string]} class name of an AUTHENTICATE body, or "?" if it has none. */
  private static String authenticator(ByteBuf body) {
    int i = body.readerIndex();
    if (body.readableBytes() < 2 || body.readableBytes() - 2 < body.getUnsignedShort(i)) {
      return "?";
    }
    return body.toString(i + 2, body.getUnsignedShort(i), StandardCharsets.UTF_8);
  }

  private void done(ChannelHandlerContext ctx, Throwable failure) {
    ctx.pipeline().remove(this);
    if (failure == null) {
      ready.complete(null);
    } else {
      ready.completeExceptionally(failure);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if ((cause instanceof CqlFrameException e && e.connectionLevel())
        || cause instanceof CqlConnectionException) {
      ready.completeExceptionally(cause);
    }
    ctx.fireExceptionCaught(cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    ready.completeExceptionally(
        new CqlConnectionException(
            Reason.CLOSED_BY_SERVER,
            CqlConnectionException.address(ctx.channel().remoteAddress()),
            -1,
            "connection closed before the answer to STARTUP arrived",
            null));
    super.channelInactive(ctx);
  }
}
