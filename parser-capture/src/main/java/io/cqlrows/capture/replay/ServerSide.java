package io.cqlrows.capture.replay;

import io.cqlrows.capture.replay.ReplayListener.Response;
import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.frame.SupportedOptions;
import io.cqlrows.netty.internal.FrameErrors;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.List;
import java.util.Map;

/**
 * The server side of a replayed connection: decodes its RESULTs (and ERRORs), matched to the
 * client's requests, for the listener. One per connection, fed by each channel that the server
 * direction opens (again after every gap) through a handler of that channel, never added to a
 * pipeline itself. Single-threaded.
 */
final class ServerSide extends ChannelInboundHandlerAdapter {
  private final String connection;
  private final ClientSide requests;
  private final PreparedStatements prepared;
  private final ParseLimits limits;
  private final ReplayListener listener;

  /** The connection's extensions, with SUPPORTED's parameters once it is read. */
  private ProtocolFeatures features;

  /** The client's features that {@link #features} was made from; null to make it again. */
  private ProtocolFeatures base;

  /** The last SUPPORTED options read, or null. */
  private Map<String, List<String>> supported;

  /** Made for the first response's version and the features; null until then. */
  private ResultReader reader;

  /** The frame being handled, for the responses made of it; null between frames. */
  private Frame current;

  private long currentBytes;

  /** Capture time of the bytes being decoded, set before each read. */
  long nowNanos;

  ServerSide(
      String connection,
      ClientSide requests,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
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
      updateFeatures();
      listener.onFrame(false, frame);
      Request request = match(frame);
      current = frame;
      currentBytes = 9L + frame.body().readableBytes();
      switch (frame.opcode()) {
        case RESULT -> result(frame, request);
        case SUPPORTED -> supported(frame);
        case ERROR -> error(frame, request);
        default -> {}
      }
      if (frame.isResponse() && frame.streamId() >= 0 && frame.opcode() != Opcode.EVENT) {
        listener.onResponse(response(frame.streamId(), request, null));
      }
    } finally {
      current = null;
      frame.release();
    }
  }

  /** SUPPORTED gives the parameters of the extensions STARTUP will name (error code, mask). */
  private void supported(Frame frame) {
    try {
      supported = SupportedOptions.decode(frame.body());
      base = null; // the features are made again with them
    } catch (IllegalArgumentException e) {
      // a SUPPORTED that cannot be read leaves the default parameters
    }
  }

  /** Follows the client's STARTUP: the features are its extensions with SUPPORTED's parameters. */
  private void updateFeatures() {
    if (!requests.features.equals(base)) {
      base = requests.features;
      ProtocolFeatures f = base;
      if (supported != null && !f.isEmpty()) {
        f = f.withSupported(supported);
      }
      if (!f.equals(features)) {
        features = f;
        reader = null; // made again with them
      }
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
      listener.onError(
          response(frame.streamId(), request, null),
          FrameErrors.frameError(
              Reason.BAD_RESPONSE,
              frame.streamId(),
              frame.bodyOffset(),
              "ERROR body: " + e.getMessage(),
              e));
      return;
    }
    listener.onServerError(response(frame.streamId(), request, null), error);
  }

  private ResultReader reader(Frame frame) {
    if (reader == null) {
      reader =
          new ResultReader(Math.max(3, frame.version()), limits, features)
              .rawCellsWithoutMetadata(true);
    }
    return reader;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof CqlFrameException e && !e.connectionLevel()) {
      Request request = e.streamId() >= 0 ? requests.answer(e.streamId(), nowNanos) : null;
      Response response = response(e.streamId(), request, null);
      listener.onError(response, e);
      if (e.streamId() >= 0) {
        listener.onResponse(response);
      }
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  private Request match(Frame frame) {
    return frame.isResponse() && frame.streamId() >= 0 && frame.opcode() != Opcode.EVENT
        ? requests.answer(frame.streamId(), nowNanos)
        : null;
  }

  private void result(Frame frame, Request request) {
    TabletRouting tablets;
    try {
      tablets =
          features.tabletsRoutingV1() ? TabletRouting.fromPayload(frame.customPayload()) : null;
    } catch (CqlParseException e) {
      listener.onError(
          response(frame.streamId(), request, null),
          FrameErrors.badPayload(frame.streamId(), TabletRouting.PAYLOAD_KEY, e));
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
      listener.onError(response, FrameErrors.badResult(frame.streamId(), frame.bodyOffset(), e));
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
      prepared.prepared(
          "0x" + ByteBufUtil.hexDump(p.id()),
          request == null ? null : request.query(),
          p.resultColumns());
    } else if (result instanceof RowsResult r
        && r.metadata().metadataChanged()
        && request != null
        && request.preparedId() != null) {
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
    Frame f = current;
    return new Response(
        connection,
        stream,
        request,
        query,
        tablets,
        f == null ? null : f.opcode(),
        nowNanos,
        f == null ? 0 : currentBytes);
  }
}
