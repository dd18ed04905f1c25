package io.cqlrows.client.tls;

import io.cqlrows.netty.EventLoops;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TLS server on 127.0.0.1 (ephemeral port) for client-side TLS tests: it handshakes with the
 * {@link SslContext} it was given (e.g. {@code SslContextBuilder.forServer(cert, key)} from {@link
 * io.cqlrows.client.live.TestCertificates}), then echoes every byte it receives.
 *
 * <p>It records, per accepted connection, the server name (SNI) the client sent, or {@link
 * Optional#empty()} when it sent none ({@link #serverNames()}), and the outcome of the handshake on
 * the server's side ({@link #handshakes()}: null for success, else the cause).
 *
 * <p>Ownership: the server owns its event loop group (one thread) and every channel; {@link
 * #close()} closes them and waits for the thread to end. Buffers read are written back (the echo
 * passes ownership to the write). Thread-safe: the queues may be read from any thread.
 */
public final class TlsTestServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final Channel channel;
  private final BlockingQueue<Optional<String>> serverNames = new LinkedBlockingQueue<>();
  private final BlockingQueue<Optional<Throwable>> handshakes = new LinkedBlockingQueue<>();

  private TlsTestServer(SslContext context) throws InterruptedException {
    group = EventLoops.nio(1);
    try {
      channel =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      ch.pipeline()
                          .addLast(
                              "sni",
                              new SniHandler(
                                  name -> {
                                    serverNames.add(Optional.ofNullable(name));
                                    return context;
                                  }));
                      ch.pipeline().addLast("echo", new Echo());
                    }
                  })
              .bind(new InetSocketAddress(loopback(), 0))
              .sync()
              .channel();
    } catch (InterruptedException | RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Starts a server with {@code context} (a server context); call {@link #close()}. */
  public static TlsTestServer start(SslContext context) throws InterruptedException {
    if (context.isClient()) {
      throw new IllegalArgumentException("a client SslContext");
    }
    return new TlsTestServer(context);
  }

  /** {@code 127.0.0.1}. */
  public String host() {
    return "127.0.0.1";
  }

  /** The port the server listens on. */
  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** The SNI of each connection, in order of the handshakes; empty when the client sent none. */
  public BlockingQueue<Optional<String>> serverNames() {
    return serverNames;
  }

  /** The server's side of each handshake: empty for success, else its cause. */
  public BlockingQueue<Optional<Throwable>> handshakes() {
    return handshakes;
  }

  /**
   * Closes the listening channel and every connection; waits up to 5 s for the thread. An interrupt
   * stops the wait and is kept in the thread's status.
   */
  @Override
  public void close() {
    try {
      channel.close().await(5, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      Thread.currentThread().interrupt();
    }
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByName("127.0.0.1");
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Echoes the application bytes; records the handshake; closes on any error. */
  private final class Echo extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf) {
        ctx.writeAndFlush(msg);
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof SslHandshakeCompletionEvent e) {
        handshakes.add(Optional.ofNullable(e.cause()));
      }
      ReferenceCountUtil.release(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
