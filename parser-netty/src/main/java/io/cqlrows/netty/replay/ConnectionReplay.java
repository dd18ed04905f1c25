package io.cqlrows.netty.replay;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.core.RowSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.client.CqlServerError;
import io.cqlrows.netty.client.SupportedOptions;
import io.cqlrows.netty.internal.StreamSync;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.replay.ReplayListener.Response;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Replays both directions of one captured connection through the Netty decoders: the client's
 * requests tell the query of every response and which prepared statement an EXECUTE ran, so
 * {@code No_metadata} results decode with the columns of the matching PREPARED result (or of its
 * latest {@code Metadata_changed} result: v5, or v4 with ScyllaDB's {@code
 * SCYLLA_USE_METADATA_ID}).
 *
 * <p>Responses are matched to requests first-in, first-out per stream id (a client reuses a stream
 * only after its response). Framing and compression are detected in each direction ({@link
 * CqlPipeline#installDecoders}). Without the client side, queries are unknown and the cells of
 * {@code No_metadata} results are delivered as raw bytes.
 *
 * <p><b>Protocol extensions.</b> The STARTUP in the client's bytes says which extensions (ScyllaDB's
 * v4 extensions, {@link ProtocolFeatures}) the connection uses, and the server's SUPPORTED gives
 * their parameters; requests and responses after it are read accordingly. A connection whose
 * STARTUP is not in the capture (no client side, or captured from its middle) uses the assumed
 * features the caller passes.
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
   * @throws CqlFrameException when either byte stream is broken (connection-level); results
   *     before the break have been delivered
   */
  public static void replay(String connection, byte[] clientToServer, byte[] serverToClient,
      PreparedStatements prepared, ParseLimits limits, ReplayListener listener) {
    replay(connection, clientToServer, serverToClient, false, ProtocolFeatures.NONE, prepared,
        limits, listener);
  }

  /**
   * Replays one connection, possibly captured from its middle, assuming no protocol extension
   * unless its STARTUP names some.
   *
   * @see #replay(String, byte[], byte[], boolean, ProtocolFeatures, PreparedStatements,
   *     ParseLimits, ReplayListener)
   */
  public static void replay(String connection, byte[] clientToServer, byte[] serverToClient,
      boolean midStream, PreparedStatements prepared, ParseLimits limits,
      ReplayListener listener) {
    replay(connection, clientToServer, serverToClient, midStream, ProtocolFeatures.NONE,
        prepared, limits, listener);
  }

  /**
   * Replays one connection, possibly captured from its middle.
   *
   * @param midStream whether the capture starts after the connection did: each direction is
   *     then decoded from its first provable frame or segment boundary ({@link StreamSync}), and
   *     the skipped bytes are reported with {@link ReplayListener#onSkipped}. Responses to
   *     requests sent before the capture began may be labelled with the wrong query.
   * @param assumed the protocol extensions of a connection whose STARTUP is not in the capture
   *     ({@link ProtocolFeatures#NONE} for a Cassandra connection); a captured STARTUP overrides
   *     them
   * @throws CqlFrameException when either byte stream is broken (connection-level), or no
   *     boundary can be found
   */
  public static void replay(String connection, byte[] clientToServer, byte[] serverToClient,
      boolean midStream, ProtocolFeatures assumed, PreparedStatements prepared,
      ParseLimits limits, ReplayListener listener) {
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
    Responses responses = new Responses(connection, client, prepared, limits, listener);
    feed(serverToClient, midStream, false, limits, responses, listener);
  }

  /**
   * The client's requests, first-in first-out per stream, and the extensions its STARTUP named.
   */
  static final class ClientSide {
    final Map<Integer, ArrayDeque<Request>> byStream = new HashMap<>();
    /** The assumed features until a STARTUP is read, then that STARTUP's. */
    ProtocolFeatures features;

    ClientSide(ProtocolFeatures assumed) {
      this.features = Objects.requireNonNull(assumed, "assumed");
    }

    void read(byte[] bytes, boolean midStream, ParseLimits limits, ReplayListener listener) {
      feed(bytes, midStream, true, limits, new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          if (msg instanceof Frame f) {
            try {
              listener.onFrame(true, f);
              if (!f.isResponse()) {
                add(RequestReader.read(f, features));
              }
            } finally {
              f.release();
            }
          } else {
            ReferenceCountUtil.release(msg);
          }
        }
      }, listener);
    }

    private void add(Request r) {
      if (r.opcode() == Opcode.STARTUP) {
        // the requests after it are written with the extensions it names
        features = ProtocolFeatures.fromStartup(r.options());
      }
      byStream.computeIfAbsent(r.streamId(), s -> new ArrayDeque<>()).add(r);
    }

    Request poll(int stream) {
      ArrayDeque<Request> queue = byStream.get(stream);
      return queue == null ? null : queue.poll();
    }
  }

  /**
   * Feeds bytes in chunks through a detecting decoder into {@code handler}; a mid-stream capture
   * starts at its first provable boundary, with the segment decoders if segments start there.
   */
  private static void feed(byte[] bytes, boolean midStream, boolean fromClient,
      ParseLimits limits, ChannelInboundHandlerAdapter handler, ReplayListener listener) {
    int start = 0;
    boolean segments = false;
    if (midStream) {
      StreamSync.Start s = StreamSync.find(Unpooled.wrappedBuffer(bytes),
          limits.maxFrameBodyLength());
      if (s == null) {
        throw CqlFrameException.connectionError(Reason.NO_BOUNDARY, -1, null, "capture starts "
            + "mid-connection and no frame or segment boundary could be proved in its "
            + bytes.length + " bytes", null);
      }
      start = s.offset();
      segments = s.segments() != null;
      listener.onSkipped(fromClient, start);
    }
    Errors errors = new Errors();
    EmbeddedChannel channel = new EmbeddedChannel();
    try {
      CqlPipeline.installDecoders(channel.pipeline(), limits, segments ? start : -1);
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
        fatal = cause instanceof CqlFrameException e
            ? e : CqlFrameException.connectionError(Reason.UNEXPECTED, -1, null,
                "replay failed: " + cause, cause);
      }
    }
  }

  /** Decodes the server's RESULTs (and ERRORs), matched to the client's requests. */
  private static final class Responses extends ChannelInboundHandlerAdapter {
    private final String connection;
    private final ClientSide requests;
    private final PreparedStatements prepared;
    private final ParseLimits limits;
    private final ReplayListener listener;
    /** The connection's extensions, with SUPPORTED's parameters once it is read. */
    private ProtocolFeatures features;
    /** Made for the first response's version and the features; null until then. */
    private ResultReader reader;

    Responses(String connection, ClientSide requests, PreparedStatements prepared,
        ParseLimits limits, ReplayListener listener) {
      this.connection = connection;
      this.requests = requests;
      this.prepared = prepared;
      this.limits = limits;
      this.listener = listener;
      this.features = requests.features;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof Frame frame)) {
        ctx.fireChannelRead(msg);
        return;
      }
      try {
        listener.onFrame(false, frame);
        Request request = match(frame);
        switch (frame.opcode()) {
          case RESULT -> result(frame, request);
          case SUPPORTED -> supported(frame);
          case ERROR -> error(frame, request);
          default -> { }
        }
      } finally {
        frame.release();
      }
    }

    /** SUPPORTED gives the parameters of the extensions STARTUP will name (error code, mask). */
    private void supported(Frame frame) {
      if (features.isEmpty()) {
        return;
      }
      try {
        features = features.withSupported(SupportedOptions.decode(frame.body()));
        reader = null; // made again with them
      } catch (IllegalArgumentException e) {
        // a SUPPORTED that cannot be read leaves the default parameters
      }
    }

    private void error(Frame frame, Request request) {
      if (!frame.isResponse() || frame.streamId() < 0) {
        return;
      }
      CqlServerError error;
      try {
        error = CqlServerError.decode(frame.body(), features);
      } catch (IllegalArgumentException e) {
        listener.onError(response(frame.streamId(), request, null),
            CqlFrameException.frameError(Reason.BAD_RESPONSE, frame.streamId(),
                frame.bodyOffset(), "ERROR body: " + e.getMessage(), e));
        return;
      }
      listener.onServerError(response(frame.streamId(), request, null), error);
    }

    private ResultReader reader(Frame frame) {
      if (reader == null) {
        reader = new ResultReader(Math.max(3, frame.version()), limits, features)
            .rawCellsWithoutMetadata(true);
      }
      return reader;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
        Request request = e.streamId() >= 0 ? requests.poll(e.streamId()) : null;
        listener.onError(response(e.streamId(), request, null), e);
        return;
      }
      ctx.fireExceptionCaught(cause);
    }

    private Request match(Frame frame) {
      return frame.isResponse() && frame.streamId() >= 0 && frame.opcode() != Opcode.EVENT
          ? requests.poll(frame.streamId()) : null;
    }

    private void result(Frame frame, Request request) {
      TabletRouting tablets;
      try {
        tablets = features.tabletsRoutingV1()
            ? TabletRouting.fromPayload(frame.customPayload()) : null;
      } catch (CqlParseException e) {
        listener.onError(response(frame.streamId(), request, null),
            CqlFrameException.badPayload(frame.streamId(), TabletRouting.PAYLOAD_KEY, e));
        return;
      }
      Response response = response(frame.streamId(), request, tablets);
      RowSink sink = listener.sinkFor(response);
      if (sink == null) {
        return;
      }
      PreparedStatements.Statement statement =
          request == null ? null : prepared.get(request.preparedId());
      ResultColumns columns = statement == null ? null : statement.columns();
      CqlResult result;
      try {
        result = reader(frame).read(frame.body(), sink, columns);
      } catch (CqlParseException e) {
        listener.onError(response,
            CqlFrameException.badResult(frame.streamId(), frame.bodyOffset(), e));
        return;
      }
      remember(request, result);
      listener.onResult(response, result);
    }

    /**
     * PREPARED results and {@code Metadata_changed} (v5, or v4 with {@link
     * ProtocolFeatures#SCYLLA_USE_METADATA_ID}) update the capture's statements.
     */
    private void remember(Request request, CqlResult result) {
      if (result instanceof PreparedResult p) {
        prepared.prepared("0x" + ByteBufUtil.hexDump(p.id()),
            request == null ? null : request.query(), p.resultColumns());
      } else if (result instanceof RowsResult r && r.metadata().metadataChanged()
          && request != null && request.preparedId() != null) {
        prepared.metadataChanged(request.preparedId(), r.metadata().columns());
      }
    }

    private Response response(int stream, Request request, TabletRouting tablets) {
      String query = null;
      if (request != null) {
        query = request.query();
        PreparedStatements.Statement s = prepared.get(request.preparedId());
        if (query == null && s != null) {
          query = s.query();
        }
      }
      return new Response(connection, stream, request, query, tablets);
    }
  }
}
