package io.cqlrows.capture.pcap;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;

/**
 * Records both directions of a live client connection as a pcap file that Wireshark and {@link
 * TcpReassembler} read: a driver adds it at the head of its pipeline, where it sees the bytes as
 * they go to and come from the socket.
 *
 * <pre>{@code
 * PcapRecordingHandler recorder = new PcapRecordingHandler(Path.of("conn.pcap"));
 * ch.pipeline().addFirst("pcap", recorder);
 * // ... after the channel closed:
 * IOException failed = recorder.recordingError(); // null if the file is complete
 * }</pre>
 *
 * <p>Outbound {@code ByteBuf}s (in {@code write}) are client-to-server bytes, inbound ones (in
 * {@code channelRead}) server-to-client. The handshake is written when the channel becomes active,
 * with the channel's local and remote addresses as client and server when they are IP addresses of
 * one version (otherwise 127.0.0.1:random and 127.0.0.1:9042); the FIN exchange when it closes or
 * becomes inactive. The file is flushed on {@code flush} and {@code channelReadComplete}. Other
 * messages pass unrecorded: a {@link FileRegion}'s bytes cannot be read without consuming it, so
 * its length is skipped in the client's sequence numbers, and the file shows a missing segment
 * there.
 *
 * <p><b>Errors.</b> Recording never breaks the channel: the first failure (an {@link IOException}
 * writing the file, or anything else thrown while recording) stops the recording, closes the file,
 * and is kept for {@link #recordingError()}.
 *
 * <p><b>Ownership.</b> Every message is passed on unchanged: buffers are read with absolute gets
 * from their reader index, so their indices and reference counts are untouched. The handler owns
 * the output stream (or the file it opens) and closes it when the recording ends.
 *
 * <p><b>Threading.</b> One instance per channel (not {@code @Sharable}); called from the channel's
 * event loop. {@link #recordingError()} may be read from any thread.
 */
public final class PcapRecordingHandler extends ChannelDuplexHandler {
  /** The stream to write, or null if {@link #file} or {@link #writer} was given. */
  private OutputStream out;

  /** The file to create at activation, or null. */
  private final Path file;

  private final Clock clock;

  /** Created at activation (or given); null before. */
  private PcapWriter writer;

  /** True once the recording has ended, normally or not. */
  private boolean done;

  /** The first failure; null while all is well. */
  private volatile IOException error;

  /** Copy buffer for reading ByteBufs; allocated at first use. */
  private byte[] scratch;

  /**
   * Records into a stream.
   *
   * @param out where the capture goes; the handler owns it from now on and closes it when the
   *     recording ends
   */
  public PcapRecordingHandler(OutputStream out) {
    this(Objects.requireNonNull(out, "out"), null, null, Clock.systemUTC());
  }

  /** Records into a file, created (or truncated) when the channel becomes active. */
  public PcapRecordingHandler(Path file) {
    this(null, Objects.requireNonNull(file, "file"), null, Clock.systemUTC());
  }

  /**
   * Records through a writer configured by the caller (addresses, clock, segment size).
   *
   * @param writer the writer; the handler owns it from now on and closes it when the recording ends
   */
  public PcapRecordingHandler(PcapWriter writer) {
    this(null, null, Objects.requireNonNull(writer, "writer"), Clock.systemUTC());
  }

  private PcapRecordingHandler(OutputStream out, Path file, PcapWriter writer, Clock clock) {
    this.out = out;
    this.file = file;
    this.writer = writer;
    this.clock = clock;
  }

  /** The failure that stopped the recording, or null if there was none (yet). */
  public IOException recordingError() {
    return error;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    start(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    record(ctx, false, msg); // before passing on: the next handler may release it
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    flushFile();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws Exception {
    record(ctx, true, msg);
    ctx.write(msg, promise);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) throws Exception {
    flushFile();
    ctx.flush();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
    stop();
    ctx.close(promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    stop();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  /** Creates the writer if needed and writes the handshake. */
  private void start(ChannelHandlerContext ctx) {
    if (done) {
      return;
    }
    try {
      if (writer == null) {
        writer = newWriter(ctx.channel().localAddress(), ctx.channel().remoteAddress());
      }
      writer.writeHandshake();
    } catch (IOException | RuntimeException e) {
      fail(e);
    }
  }

  private PcapWriter newWriter(SocketAddress local, SocketAddress remote) throws IOException {
    if (out == null) {
      out = new BufferedOutputStream(Files.newOutputStream(file), 64 * 1024);
    }
    PcapWriter.Builder b = PcapWriter.builder(out).clock(clock);
    if (local instanceof InetSocketAddress l
        && remote instanceof InetSocketAddress r
        && !l.isUnresolved()
        && !r.isUnresolved()
        && (l.getAddress() instanceof Inet4Address) == (r.getAddress() instanceof Inet4Address)) {
      b.client(l).server(r);
    }
    return b.build();
  }

  private void record(ChannelHandlerContext ctx, boolean fromClient, Object msg) {
    if (done || !(msg instanceof ByteBuf || msg instanceof FileRegion)) {
      return;
    }
    if (writer == null) {
      start(ctx); // data before channelActive: record it anyway
      if (done) {
        return;
      }
    }
    try {
      if (msg instanceof FileRegion region) {
        writer.skip(fromClient, region.count() - region.transferred());
      } else {
        copy(fromClient, (ByteBuf) msg);
      }
    } catch (IOException | RuntimeException e) {
      fail(e);
    }
  }

  /** Writes the readable bytes of {@code buf}, leaving its indices alone. */
  private void copy(boolean fromClient, ByteBuf buf) throws IOException {
    int readable = buf.readableBytes();
    if (readable > 0 && scratch == null) {
      scratch = new byte[PcapWriter.MAX_SEGMENT_SIZE];
    }
    for (int copied = 0; copied < readable; ) {
      int n = Math.min(scratch.length, readable - copied);
      buf.getBytes(buf.readerIndex() + copied, scratch, 0, n);
      if (fromClient) {
        writer.writeClientToServer(scratch, 0, n);
      } else {
        writer.writeServerToClient(scratch, 0, n);
      }
      copied += n;
    }
  }

  private void flushFile() {
    if (!done && writer != null) {
      try {
        writer.flush();
      } catch (IOException | RuntimeException e) {
        fail(e);
      }
    }
  }

  /** Ends the recording: FIN exchange, close. */
  private void stop() {
    if (done) {
      return;
    }
    done = true;
    try {
      if (writer != null) {
        writer.close();
      } else if (out != null) {
        out.close(); // never started: still ours to close
      }
    } catch (IOException | RuntimeException e) {
      fail(e);
    }
  }

  private void fail(Exception e) {
    if (error == null) {
      error = e instanceof IOException io ? io : new IOException("recording failed", e);
    }
    done = true;
    try {
      if (writer != null) {
        writer.close();
      } else if (out != null) {
        out.close();
      }
    } catch (IOException | RuntimeException ignored) {
      // the first failure is the one reported
    }
  }
}
