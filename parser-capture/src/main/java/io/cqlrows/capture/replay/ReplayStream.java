package io.cqlrows.capture.replay;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.FrameErrors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Replays one captured connection as its bytes arrive: the caller writes each direction's bytes in
 * stream order, with their capture times, and the listener hears every request, result and error as
 * soon as its last byte is written. Only what is not yet decoded is kept (a frame or segment in
 * progress), so a connection of any length replays in memory bounded by {@link
 * ParseLimits#maxFrameBodyLength()}.
 *
 * <p><b>Matching.</b> A response answers the oldest request waiting on its stream, unless a later
 * request on that stream was sent before the response too: a client reuses a stream only after its
 * response, so the earlier ones were answered outside the capture ({@link
 * ReplayListener#onUnanswered}). Write the client's bytes before the server's bytes that answer
 * them; {@link io.cqlrows.capture.pcap.TcpFlows} does.
 *
 * <p><b>Starting mid-stream.</b> A connection captured from its middle, and each direction after a
 * {@link #gap}, is decoded from the first offset that provably starts a frame or segment ({@link
 * CqlDecoders#findStart}); {@link ReplayListener#onSkipped} says how many bytes were skipped. A gap
 * inside a v3/v4 frame whose header was written needs no proof: decoding resumes where that
 * header's length says the next frame starts, so that every frame whole between two gaps is decoded
 * (a search needs the next two headers, which a second gap may cut off). The search looks at most
 * {@value #MAX_SEARCH_BYTES} bytes; a server stream without a provable boundary there fails. A
 * client stream that cannot be decoded after a gap or mid-stream only costs the labels of the
 * results.
 *
 * <p><b>Failures.</b> A broken byte stream (bad header, CRC mismatch, corrupt compression, input
 * ending inside a frame at {@link #close}) stops the decoding of that direction until its next gap;
 * the first such failure is kept for {@link #failure()}. Responses that cannot be decoded are
 * frame-local: {@link ReplayListener#onError}, and the replay goes on.
 *
 * <p>Ownership: copies what it keeps of the written arrays. Single-threaded: the listener is called
 * on the writing thread, during {@link #write}, {@link #gap} and {@link #close}.
 */
public final class ReplayStream implements AutoCloseable {
  /** The most bytes searched for a provable boundary. */
  public static final int MAX_SEARCH_BYTES = 16 << 20;

  private final ParseLimits limits;
  private final ReplayListener listener;
  private final ClientSide client;
  private final ServerSide server;
  private final Direction fromClient;
  private final Direction fromServer;
  private CqlFrameException failure;
  private boolean closed;

  /**
   * A replay of one connection.
   *
   * @param connection a label for the connection, passed to the listener
   * @param midStream whether the capture starts after the connection did
   * @param assumed the protocol extensions of a connection whose STARTUP is not in the capture
   *     ({@link ProtocolFeatures#NONE} for a Cassandra connection); a captured STARTUP overrides
   *     them
   * @param prepared the capture's prepared statements, shared by its connections
   * @param limits limits on untrusted input
   * @param listener hears the connection's results
   */
  public ReplayStream(
      String connection,
      boolean midStream,
      ProtocolFeatures assumed,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.client = new ClientSide(assumed, listener);
    this.server = new ServerSide(connection, client, prepared, limits, listener);
    this.fromClient = new Direction(true, midStream);
    this.fromServer = new Direction(false, midStream);
  }

  /**
   * The next bytes of one direction, in stream order.
   *
   * @param fromClient whether the client sent them
   * @param data borrowed: read during the call only
   * @param timestampNanos capture time of the packet that carried them, in nanoseconds since the
   *     epoch, or 0 if unknown
   * @throws IllegalStateException after {@link #close}
   */
  public void write(boolean fromClient, byte[] data, int offset, int length, long timestampNanos) {
    Objects.checkFromIndexSize(offset, length, data.length);
    checkOpen();
    if (length > 0) {
      (fromClient ? this.fromClient : fromServer).write(data, offset, length, timestampNanos);
    }
  }

  /**
   * Bytes of one direction are missing for good: what was decoding there is dropped, and the
   * direction is decoded again from the next frame, where the length of the frame the gap is in
   * says it starts (v3/v4, when its header was written), else from its next provable boundary.
   */
  public void gap(boolean fromClient, long length) {
    checkOpen();
    if (length > 0) {
      (fromClient ? this.fromClient : fromServer).gap(length);
    }
  }

  /**
   * Ends the connection: input that ends inside a frame is a failure, and every request still
   * waiting is {@linkplain ReplayListener#onUnanswered unanswered}. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    fromClient.close();
    fromServer.close();
    client.end();
  }

  /** Requests that wait for their responses. */
  int waitingRequests() {
    return client.waiting();
  }

  /** The first connection-level failure of either direction, if any. */
  public Optional<CqlFrameException> failure() {
    return Optional.ofNullable(failure);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("closed");
    }
  }

  private void fail(Direction d, CqlFrameException e) {
    if (d.client && (d.tolerant || d.midStream)) {
      return; // a partial client side only costs the labels of the results
    }
    if (failure == null) {
      failure = e;
    }
  }

  /** A chunk of a direction kept while its start is searched for. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Chunk(byte[] data, long timestampNanos) {}

  /** One direction: searching for a start, decoding, or stopped by a failure. */
  private final class Direction {
    final boolean client;
    final boolean midStream;

    /** True once a gap made this direction start again mid-stream. */
    boolean tolerant;

    /** Bytes kept while the start is searched for; null when not searching. */
    List<Chunk> search;

    long searchBytes;
    long nextTry;
    EmbeddedChannel channel;
    Errors errors;
    boolean stopped;
    long bytesWritten;

    /** The stream offset of the next byte written: the bytes written and the gaps. */
    long position;

    /** The stream offset of the first byte kept by the search. */
    long searchStart;

    /** Where the frames start, to resume exactly after a gap inside one. */
    final FrameBoundaries frames = new FrameBoundaries();

    /** Bytes still to skip to reach the next frame after a gap, or -1 when not skipping. */
    long skipping = -1;

    /** Bytes skipped so far after the gap. */
    long skipped;

    Direction(boolean client, boolean midStream) {
      this.client = client;
      this.midStream = midStream;
      if (midStream) {
        startSearch();
      } else {
        frames.startAt(0, true);
      }
    }

    private void startSearch() {
      search = new ArrayList<>();
      searchBytes = 0;
      nextTry = 0;
      searchStart = position;
    }

    void write(byte[] data, int offset, int length, long timestampNanos) {
      position += length;
      if (stopped) {
        return;
      }
      if (skipping >= 0) {
        int n = (int) Math.min(skipping, length);
        skipping -= n;
        skipped += n;
        frames.pass(n);
        if (skipping > 0) {
          return;
        }
        skipping = -1;
        listener.onSkipped(client, (int) Math.min(skipped, Integer.MAX_VALUE));
        offset += n;
        length -= n;
        if (length == 0) {
          return;
        }
      }
      if (search != null) {
        search.add(new Chunk(Arrays.copyOfRange(data, offset, offset + length), timestampNanos));
        searchBytes += length;
        if (searchBytes >= nextTry) {
          nextTry = searchBytes + Math.max(4096, searchBytes / 2);
          trySearch(false);
        }
        return;
      }
      if (channel == null) {
        open(false);
      }
      feed(channel.alloc().buffer(length).writeBytes(data, offset, length), timestampNanos);
    }

    /** Looks for a provable start in the kept bytes; at the end, a frame may end with them. */
    private void trySearch(boolean atEnd) {
      byte[][] arrays = new byte[search.size()][];
      for (int i = 0; i < arrays.length; i++) {
        arrays[i] = search.get(i).data();
      }
      ByteBuf all = Unpooled.wrappedBuffer(arrays);
      CqlDecoders.Start s = CqlDecoders.findStart(all, limits.maxFrameBodyLength()).orElse(null);
      if (s != null && !s.segments() && !atEnd && endsWithTheBytes(all, s.offset())) {
        s = null; // proved only by ending where the bytes end so far: wait for more
      }
      if (s == null) {
        if (atEnd || searchBytes > MAX_SEARCH_BYTES) {
          List<Chunk> dropped = search;
          search = null;
          stopped = true;
          frames.lose();
          if (!dropped.isEmpty()) {
            fail(
                this,
                FrameErrors.connectionError(
                    Reason.NO_BOUNDARY,
                    -1,
                    null,
                    (midStream && !tolerant ? "capture starts mid-connection" : "after a gap")
                        + " and no frame or segment boundary could be proved in "
                        + searchBytes
                        + " bytes",
                    null));
          }
        }
        return;
      }
      List<Chunk> kept = search;
      search = null;
      listener.onSkipped(client, s.offset());
      open(s.segments());
      frames.startAt(searchStart + s.offset(), !s.segments());
      int skip = s.offset();
      for (Chunk c : kept) {
        if (stopped || channel == null) {
          break;
        }
        int from = Math.min(skip, c.data().length);
        skip -= from;
        if (from < c.data().length) {
          feed(Unpooled.wrappedBuffer(c.data(), from, c.data().length - from), c.timestampNanos());
        }
      }
    }

    private boolean endsWithTheBytes(ByteBuf all, int offset) {
      int at = all.readerIndex() + offset;
      if (all.writerIndex() - at < 9) {
        return true;
      }
      long end = at + 9L + all.getUnsignedInt(at + 5);
      return end >= all.writerIndex();
    }

    private void open(boolean segments) {
      errors = new Errors();
      channel = new EmbeddedChannel();
      if (segments) {
        CqlDecoders.detectingSegments(channel.pipeline(), 0, limits);
      } else {
        CqlDecoders.detecting(channel.pipeline(), limits);
      }
      // a handler per channel: a direction opens a new one after each gap, while the connection's
      // server side (its features, its SUPPORTED) lives on
      channel.pipeline().addLast(client ? new ClientFrames() : new ServerFrames(), errors);
    }

    /** Feeds one read; {@code bytes} is released here. */
    private void feed(ByteBuf bytes, long timestampNanos) {
      frames.see(bytes);
      now = timestampNanos;
      server.nowNanos = timestampNanos;
      int n = bytes.readableBytes();
      channel.writeInbound(bytes);
      bytesWritten += n;
      if (!client) {
        listener.onProgress(bytesWritten);
      }
      if (errors.fatal != null) {
        stop(errors.fatal);
      }
    }

    private void stop(CqlFrameException e) {
      discard();
      stopped = true;
      frames.lose();
      fail(this, e);
    }

    private void discard() {
      if (channel != null) {
        channel.finishAndReleaseAll();
        channel = null;
      }
    }

    /**
     * Inside a v3/v4 frame whose header was read, the next frame starts where its length says:
     * decoding resumes there, with nothing to prove. Otherwise (the next header is in the gap, a v5
     * stream, a search or a failure before the gap) from the next provable boundary.
     */
    void gap(long length) {
      long skip = frames.gap(position, length);
      position += length;
      discard();
      stopped = false;
      tolerant = true;
      if (skip >= 0) {
        search = null;
        skipping = skip;
        skipped = 0;
      } else {
        skipping = -1;
        startSearch();
      }
    }

    void close() {
      if (search != null) {
        if (!search.isEmpty()) {
          trySearch(true);
        }
        search = null;
      }
      if (channel != null && !stopped) {
        channel.close(); // reports input that ends inside a frame or segment
        if (errors.fatal != null) {
          fail(this, errors.fatal);
        }
      }
      discard();
    }
  }

  /** Capture time of the client bytes being decoded. */
  private long now;

  /** Hands the client's frames to {@link ClientSide}. */
  private final class ClientFrames extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Frame f) {
        try {
          client.frame(f, now);
        } finally {
          f.release();
        }
      } else {
        ReferenceCountUtil.release(msg);
      }
    }
  }

  /** Hands the server's frames, and the errors of decoding them, to {@link ServerSide}. */
  private final class ServerFrames extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      server.channelRead(ctx, msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      server.exceptionCaught(ctx, cause);
    }
  }

  /** Records the first connection-level error; frame-local ones went to the listener. */
  private static final class Errors extends ChannelInboundHandlerAdapter {
    CqlFrameException fatal;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
        return; // a request frame the decoder could not use: it only labels results
      }
      if (fatal == null) {
        fatal =
            cause instanceof CqlFrameException e
                ? e
                : FrameErrors.connectionError(
                    Reason.UNEXPECTED, -1, null, "replay failed: " + cause, cause);
      }
    }
  }
}
