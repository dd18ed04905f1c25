package io.cqlrows.capture.replay;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.internal.FrameErrors;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Replays both directions of one captured connection through the Netty decoders: the client's
 * requests tell the query of every response and which prepared statement an EXECUTE ran, so {@code
 * No_metadata} results decode with the columns of the matching PREPARED result (or of its latest
 * {@code Metadata_changed} result: v5, or v4 with ScyllaDB's {@code SCYLLA_USE_METADATA_ID}).
 *
 * <p>Responses are matched to requests first-in, first-out per stream id (a client reuses a stream
 * only after its response). Framing and compression are detected in each direction ({@link
 * CqlDecoders#detecting}). Without the client side, queries are unknown and the cells of {@code
 * No_metadata} results are delivered as raw bytes.
 *
 * <p><b>Protocol extensions.</b> The STARTUP in the client's bytes says which extensions
 * (ScyllaDB's v4 extensions, {@link ProtocolFeatures}) the connection uses, and the server's
 * SUPPORTED gives their parameters; requests and responses after it are read accordingly. A
 * connection whose STARTUP is not in the capture (no client side, or captured from its middle) uses
 * the assumed features the caller passes.
 *
 * <p>Single-threaded: everything runs on the caller's thread on {@link EmbeddedChannel}s.
 */
public final class ConnectionReplay {
  /** Bytes per simulated socket read. */
  static final int CHUNK_SIZE = 64 * 1024;

  private ConnectionReplay() {}

  /**
   * Replays one connection.
   *
   * @param connection a label for the connection, passed to the listener
   * @param clientToServer the client's bytes from the connection's start, or {@code null}
   * @param serverToClient the server's bytes from the connection's start
   * @param prepared the capture's prepared statements, shared by its connections
   * @throws CqlFrameException when either byte stream is broken (connection-level); results before
   *     the break have been delivered
   */
  public static void replay(
      String connection,
      byte[] clientToServer,
      byte[] serverToClient,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    replay(
        connection,
        clientToServer,
        serverToClient,
        false,
        ProtocolFeatures.NONE,
        prepared,
        limits,
        listener);
  }

  /**
   * Replays one connection, possibly captured from its middle, assuming no protocol extension
   * unless its STARTUP names some.
   *
   * @see #replay(String, byte[], byte[], boolean, ProtocolFeatures, PreparedStatements,
   *     ParseLimits, ReplayListener)
   */
  public static void replay(
      String connection,
      byte[] clientToServer,
      byte[] serverToClient,
      boolean midStream,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    replay(
        connection,
        clientToServer,
        serverToClient,
        midStream,
        ProtocolFeatures.NONE,
        prepared,
        limits,
        listener);
  }

  /**
   * Replays one connection, possibly captured from its middle.
   *
   * @param midStream whether the capture starts after the connection did: each direction is then
   *     decoded from its first provable frame or segment boundary ({@link CqlDecoders#findStart}),
   *     and the skipped bytes are reported with {@link ReplayListener#onSkipped}. Responses to
   *     requests sent before the capture began may be labelled with the wrong query.
   * @param assumed the protocol extensions of a connection whose STARTUP is not in the capture
   *     ({@link ProtocolFeatures#NONE} for a Cassandra connection); a captured STARTUP overrides
   *     them
   * @throws CqlFrameException when either byte stream is broken (connection-level), or no boundary
   *     can be found
   */
  public static void replay(
      String connection,
      byte[] clientToServer,
      byte[] serverToClient,
      boolean midStream,
      ProtocolFeatures assumed,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    ClientSide client = new ClientSide(assumed);
    if (clientToServer != null && clientToServer.length > 0) {
      try {
        client.read(clientToServer, midStream, limits, listener);
      } catch (CqlFrameException e) {
        if (!midStream) {
          throw e;
        }
        // a partial client side that cannot be decoded only costs the queries' labels
      }
    }
    ServerSide server = new ServerSide(connection, client, prepared, limits, listener);
    feed(serverToClient, midStream, false, limits, server, listener);
  }

  /**
   * Feeds bytes in chunks through a detecting decoder into {@code handler}; a mid-stream capture
   * starts at its first provable boundary, with the segment decoders if segments start there.
   */
  static void feed(
      byte[] bytes,
      boolean midStream,
      boolean fromClient,
      ParseLimits limits,
      ChannelInboundHandlerAdapter handler,
      ReplayListener listener) {
    int start = 0;
    boolean segments = false;
    if (midStream) {
      CqlDecoders.Start s =
          CqlDecoders.findStart(Unpooled.wrappedBuffer(bytes), limits.maxFrameBodyLength())
              .orElse(null);
      if (s == null) {
        throw FrameErrors.connectionError(
            Reason.NO_BOUNDARY,
            -1,
            null,
            "capture starts "
                + "mid-connection and no frame or segment boundary could be proved in its "
                + bytes.length
                + " bytes",
            null);
      }
      start = s.offset();
      segments = s.segments();
      listener.onSkipped(fromClient, start);
    }
    Errors errors = new Errors();
    EmbeddedChannel channel = new EmbeddedChannel();
    try {
      if (segments) {
        CqlDecoders.detectingSegments(channel.pipeline(), start, limits);
      } else {
        CqlDecoders.detecting(channel.pipeline(), limits);
      }
      channel.pipeline().addLast(handler, errors);
      for (int at = start; at < bytes.length && errors.fatal == null; at += CHUNK_SIZE) {
        int n = Math.min(CHUNK_SIZE, bytes.length - at);
        channel.writeInbound(channel.alloc().buffer(n).writeBytes(bytes, at, n));
        if (!fromClient) {
          listener.onProgress(at + n);
        }
      }
      if (errors.fatal == null) {
        channel.close(); // reports input that ends inside a frame or segment
      }
    } finally {
      channel.finishAndReleaseAll();
    }
    if (errors.fatal != null) {
      throw errors.fatal;
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
