package io.cqlrows.client.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Records what reaches the end of a client pipeline, with the time since {@link #start()}: the
 * {@link SslHandshakeCompletionEvent} (success, or its cause), {@link SslCloseCompletionEvent},
 * every {@code exceptionCaught} cause, the bytes read (the first {@value #KEEP} kept) and {@code
 * channelInactive}. For finding out, and pinning, what a TLS failure looks like to Netty.
 *
 * <p>Ownership: every message read is a {@link ByteBuf}, copied and released here; other messages
 * are released too. Nothing is passed on: add it last. Threading: the handler methods run on the
 * channel's event loop; the accessors may be called from any thread, best after {@link #inactive()}
 * completed.
 */
public final class ConnectionTrace extends ChannelInboundHandlerAdapter {
  /** How many bytes read are kept for {@link #bytesRead()}. */
  public static final int KEEP = 4096;

  /** One event: when (ms since {@link #start()}), what, and its cause if any. */
  public record Event(double millis, String what, Throwable cause) {
    @Override
    public String toString() {
      return String.format(
          "%8.1f ms  %s%s", millis, what, cause == null ? "" : ": " + chain(cause));
    }
  }

  private final List<Event> events = new ArrayList<>(); // guarded by this
  private final ByteArrayOutputStream read = new ByteArrayOutputStream(); // guarded by this
  private final CompletableFuture<SslHandshakeCompletionEvent> handshake =
      new CompletableFuture<>();
  private final CompletableFuture<Double> inactive = new CompletableFuture<>();
  private volatile long start = System.nanoTime();
  private long totalRead; // guarded by this

  /** Restarts the clock, e.g. right before connecting; the creation time otherwise. */
  public ConnectionTrace start() {
    start = System.nanoTime();
    return this;
  }

  /**
   * Completes with the handshake's completion event, successful or not; with null if the channel
   * became inactive without one (no SslHandler, or none that reported).
   */
  public CompletableFuture<SslHandshakeCompletionEvent> handshake() {
    return handshake;
  }

  /** Completes with the time of {@code channelInactive}, in ms since {@link #start()}. */
  public CompletableFuture<Double> inactive() {
    return inactive;
  }

  /** The events so far, in order. */
  public synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /** The causes of {@code exceptionCaught} so far, in order. */
  public synchronized List<Throwable> exceptions() {
    return events.stream()
        .filter(e -> e.what().equals("exceptionCaught"))
        .map(Event::cause)
        .toList();
  }

  /** The first {@value #KEEP} bytes read. */
  public synchronized byte[] bytesRead() {
    return read.toByteArray();
  }

  /** How many bytes were read in all. */
  public synchronized long totalBytesRead() {
    return totalRead;
  }

  /** The events, one a line, for a message or a report. */
  public synchronized String describe() {
    StringBuilder out = new StringBuilder();
    for (Event e : events) {
      out.append(e).append('\n');
    }
    return out.toString();
  }

  private synchronized void add(String what, Throwable cause) {
    events.add(new Event((System.nanoTime() - start) / 1e6, what, cause));
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    add("channelActive", null);
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof ByteBuf buf) {
        synchronized (this) {
          int keep = Math.max(0, Math.min(buf.readableBytes(), KEEP - read.size()));
          read.write(ByteBufUtil.getBytes(buf, buf.readerIndex(), keep), 0, keep);
          totalRead += buf.readableBytes();
        }
        add("channelRead " + buf.readableBytes() + " bytes", null);
      } else {
        add("channelRead " + msg.getClass().getName(), null);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent e) {
      add(
          e.isSuccess() ? "SslHandshakeCompletionEvent SUCCESS" : "SslHandshakeCompletionEvent",
          e.cause());
      handshake.complete(e);
    } else if (evt instanceof SslCloseCompletionEvent e) {
      add(e.isSuccess() ? "SslCloseCompletionEvent SUCCESS" : "SslCloseCompletionEvent", e.cause());
    } else {
      add("userEvent " + evt, null);
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    add("exceptionCaught", cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    add("channelInactive", null);
    handshake.complete(null);
    inactive.complete((System.nanoTime() - start) / 1e6);
  }

  /** Waits for {@link #inactive()} at most {@code seconds}; false if it did not come. */
  public boolean awaitInactive(long seconds) throws InterruptedException {
    try {
      inactive.get(seconds, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  /** A cause chain as {@code Class: message <- Class: message ...}, at most 8 deep. */
  public static String chain(Throwable t) {
    StringBuilder out = new StringBuilder();
    Throwable c = t;
    for (int depth = 0; c != null && depth < 8; depth++, c = c.getCause()) {
      out.append(depth == 0 ? "" : " <- ")
          .append(c.getClass().getName())
          .append(": ")
          .append(c.getMessage());
    }
    return out.toString();
  }

  /** The classes of a cause chain, outermost first, at most 8 deep. */
  public static List<Class<?>> chainTypes(Throwable t) {
    List<Class<?>> types = new ArrayList<>();
    Throwable c = t;
    for (int depth = 0; c != null && depth < 8; depth++, c = c.getCause()) {
      types.add(c.getClass());
    }
    return types;
  }
}
