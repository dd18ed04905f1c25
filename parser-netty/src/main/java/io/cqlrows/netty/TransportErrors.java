package io.cqlrows.netty;

import io.cqlrows.core.CqlException;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * Turns what the socket and the TLS layer report into {@link CqlConnectionException}s, at the head
 * of the cqlrows handlers (after the {@code SslHandler}, when there is one): a failed TLS handshake
 * ({@link SslHandshakeCompletionEvent}), an alert after it (a server that wants a client
 * certificate says so after a TLS 1.3 handshake completed), a reset or another socket error. The
 * rows handler then fails the requests in flight with it. Other exceptions and every event pass on
 * unchanged. Stateless; one per channel.
 */
final class TransportErrors extends ChannelInboundHandlerAdapter {

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
      ctx.fireExceptionCaught(CqlConnectionException.from(e.cause(), address(ctx)));
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    CqlConnectionException e =
        cause instanceof CqlException ? null : CqlConnectionException.from(cause, address(ctx));
    ctx.fireExceptionCaught(e != null ? e : cause);
  }

  private static String address(ChannelHandlerContext ctx) {
    return CqlConnectionException.address(ctx.channel().remoteAddress());
  }
}
