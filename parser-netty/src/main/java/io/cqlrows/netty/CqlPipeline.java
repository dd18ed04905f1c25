package io.cqlrows.netty;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.SegmentEncoder;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The cqlrows handlers of one client connection (protocol v4 or v5): installs them in a pipeline
 * under fixed names, owns every change to them later (the switch of a v5 connection to segments,
 * streaming of large results), sends requests and routes each response to the sink registered for
 * its stream. A driver that handles frames, stream ids and the handshake itself, and the replay of
 * captured bytes, use {@link CqlDecoders} instead: the decoders alone.
 *
 * <pre>
 * v4, and v5 until READY:  {@value #BYTES_TO_FRAME_DECODER} -> {@value #ROWS_FRAME_HANDLER}
 * v5 after READY:          {@value #BYTES_TO_SEGMENT_DECODER}
 *                              -> {@value #SEGMENT_TO_FRAME_DECODER}
 *                              -> {@value #ROWS_FRAME_HANDLER}
 *                          (outbound: {@value #SEGMENT_ENCODER} where the handlers begin)
 * </pre>
 *
 * <p>{@value #TRANSPORT_ERRORS} comes before the decoders, and with TLS {@value #TLS_HANDLER}
 * before everything.
 *
 * <pre>{@code
 * // channel initializer: the compression STARTUP will negotiate, stated once; on v5 the
 * // connection moves to segments by itself when READY arrives
 * CqlPipeline cql = CqlPipeline.builder(5, Compression.LZ4)
 *     .tls(TlsOptions.of(sslContext), host, port)           // optional: the SslHandler goes first
 *     .requestTimeout(Duration.ofSeconds(10))
 *     .install(ch.pipeline());
 * // once the channel is active: STARTUP, then requests
 * cql.startup().thenCompose(ready -> cql.send(cql.requests().query(ch.alloc(), 0,
 *     "SELECT id, v FROM ks.t"), sink))
 *     .whenComplete((response, error) -> { ... });           // on the event loop
 * }</pre>
 *
 * <p><b>Requests in flight.</b> {@link #send} picks a free stream id, registers the sink, writes
 * the request and returns a future of its response, with a deadline; a request that times out or is
 * cancelled keeps its stream id orphaned until its late answer arrives, so the id is never reused
 * while the server may still answer it (see {@link RowsFrameHandler}). A driver that picks stream
 * ids itself (a proxy) registers with {@link #expect} before writing instead; handlers after these
 * then receive {@link io.cqlrows.netty.rows.RowsResponse}, {@link
 * io.cqlrows.netty.rows.RowsFailure}, the {@link Frame}s nobody parsed (which they release), and
 * connection-level errors through {@code exceptionCaught}. The decoders themselves ({@code
 * io.cqlrows.netty.internal}) never change the pipeline: this class does.
 *
 * <p><b>TLS.</b> With {@link Builder#tls}, an {@link SslHandler} is put at the head of the
 * pipeline, so everything after it, a recorder included, sees plaintext: add such handlers after
 * {@value #TLS_HANDLER}, not with {@code addFirst}. {@link #startup()} writes nothing before the
 * TLS handshake has completed. A failed handshake fails what is pending with a {@link
 * io.cqlrows.netty.frame.CqlConnectionException} naming the cause ({@code TLS_UNTRUSTED}, {@code
 * TLS_HOST_MISMATCH}, ...).
 *
 * <p><b>Threading.</b> Installed from the channel initializer; {@link #send} and {@link #startup()}
 * may be called from any thread, the other methods are called on the channel's event loop (from a
 * handler), like any change to a pipeline.
 */
public final class CqlPipeline {
  /** Name of the v3/v4 frame decoder (and the v5 one until READY). */
  public static final String BYTES_TO_FRAME_DECODER = "cqlrows.bytesToFrameDecoder";

  /** Name of the v5 segment decoder, after the switch. */
  public static final String BYTES_TO_SEGMENT_DECODER = "cqlrows.bytesToSegmentDecoder";

  /** Name of the v5 segment-to-frame decoder, after the switch. */
  public static final String SEGMENT_TO_FRAME_DECODER = "cqlrows.segmentToFrameDecoder";

  /** Name of the {@link RowsFrameHandler}. */
  public static final String ROWS_FRAME_HANDLER = "cqlrows.rowsFrameHandler";

  /** Name of the handler that awaits the answer to {@link #startup()}, while it does. */
  public static final String STARTUP_HANDLER = "cqlrows.startup";

  /** Name of the outbound {@link SegmentEncoder} of a v5 connection, after the switch. */
  public static final String SEGMENT_ENCODER = SegmentEncoder.NAME;

  /** Name of the {@link SslHandler} of a TLS connection, at the head of the pipeline. */
  public static final String TLS_HANDLER = "cqlrows.tls";

  /**
   * Name of the handler that turns socket and TLS errors into {@link
   * io.cqlrows.netty.frame.CqlConnectionException}s, before the decoders.
   */
  public static final String TRANSPORT_ERRORS = "cqlrows.transportErrors";

  private static final AttributeKey<CqlPipeline> KEY =
      AttributeKey.valueOf(CqlPipeline.class, "cqlPipeline");

  private final ChannelPipeline pipeline;

  private final int protocolVersion;

  private final Compression compression;
  private final ParseLimits limits;

  private final RowsFrameHandler rows;

  /** Read by {@link #send} on any thread. */
  private volatile int streamResultsFrom;

  private CqlPipeline(
      ChannelPipeline pipeline,
      int protocolVersion,
      Compression compression,
      ParseLimits limits,
      RowsFrameHandler rows) {
    this.pipeline = pipeline;
    this.protocolVersion = protocolVersion;
    this.compression = compression;
    this.limits = limits;
    this.rows = rows;
    pipeline.channel().attr(KEY).set(this);
  }

  /**
   * Installs the handlers of a connection with {@link ParseLimits#defaults()} and no default sink.
   *
   * @see #install(ChannelPipeline, int, Compression, ParseLimits, Function)
   */
  public static CqlPipeline install(
      ChannelPipeline pipeline, int protocolVersion, Compression compression) {
    return install(pipeline, protocolVersion, compression, ParseLimits.defaults(), null);
  }

  /**
   * Adds the handlers of a client connection at the end of its {@code pipeline}, as {@link
   * #builder} does with {@code limits} and {@code defaultSinks} and no TLS.
   *
   * @param pipeline a new channel's pipeline
   * @param protocolVersion the protocol version the driver speaks (4 or 5)
   * @param compression what STARTUP negotiates (see {@link #builder})
   * @param limits limits on untrusted input, for every handler
   * @param defaultSinks sink for a RESULT nobody registered for, or {@code null} (see {@link
   *     RowsFrameHandler#RowsFrameHandler(ResultReader, Function)})
   * @return the connection's handlers
   */
  public static CqlPipeline install(
      ChannelPipeline pipeline,
      int protocolVersion,
      Compression compression,
      ParseLimits limits,
      Function<Frame, RowSink> defaultSinks) {
    return builder(protocolVersion, compression)
        .limits(limits)
        .defaultSinks(defaultSinks)
        .install(pipeline);
  }

  /**
   * The handlers of a client connection, to configure and {@linkplain Builder#install install}. On
   * v5 the connection moves to segments by itself, both ways, in the format of {@code compression},
   * when the READY or AUTHENTICATE response to STARTUP arrives: the response is handed on first,
   * and requests written from then on (from the handler that sees READY, too) go out in segments.
   *
   * @param protocolVersion the protocol version the driver speaks: 4 or 5 (the request encoders
   *     write those; {@link CqlDecoders} also reads v3)
   * @param compression what STARTUP negotiates: for v4 it applies to frame bodies, for v5 to
   *     segments ({@link Compression#SNAPPY} is v4 only)
   * @throws IllegalArgumentException for another version, or SNAPPY on v5
   */
  public static Builder builder(int protocolVersion, Compression compression) {
    return new Builder(protocolVersion, compression);
  }

  /**
   * What {@link #builder} installs: limits, the default sink, TLS, and the deadlines and orphans of
   * requests sent with {@link #send}. Not thread-safe; {@link #install} may be called once per
   * channel, in its initializer.
   */
  public static final class Builder {
    private final int protocolVersion;
    private final Compression compression;
    private ParseLimits limits = ParseLimits.defaults();
    private Function<Frame, RowSink> defaultSinks;
    private TlsOptions tls;
    private String peerHost;
    private int peerPort;
    private Duration requestTimeout = RowsFrameHandler.DEFAULT_REQUEST_TIMEOUT;
    private int maxOrphans = RowsFrameHandler.DEFAULT_MAX_ORPHANS;

    private Builder(int protocolVersion, Compression compression) {
      Objects.requireNonNull(compression, "compression");
      if (protocolVersion != 4 && protocolVersion != 5) {
        throw new IllegalArgumentException(
            "protocolVersion: " + protocolVersion + " (expected: 4 or 5)");
      }
      if (protocolVersion >= 5 && compression == Compression.SNAPPY) {
        throw new IllegalArgumentException("compression: SNAPPY (expected: NONE or LZ4 on v5)");
      }
      this.protocolVersion = protocolVersion;
      this.compression = compression;
    }

    /** Limits on untrusted input, for every handler; {@link ParseLimits#defaults()} if unset. */
    public Builder limits(ParseLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * A sink for a RESULT nobody registered for, or {@code null} (the default) to pass such a frame
     * downstream (see {@link RowsFrameHandler#RowsFrameHandler(ResultReader, Function)}).
     */
    public Builder defaultSinks(Function<Frame, RowSink> defaultSinks) {
      this.defaultSinks = defaultSinks;
      return this;
    }

    /**
     * Speaks TLS: an {@link SslHandler} for {@code host} goes at the head of the pipeline. The host
     * name is what the server's certificate is checked against and sent as SNI (unless {@code tls}
     * names another); the port is for session resumption.
     *
     * @param host the server's host name or address, as connected to
     * @param port the server's port
     */
    public Builder tls(TlsOptions tls, String host, int port) {
      this.tls = Objects.requireNonNull(tls, "tls");
      this.peerHost = Objects.requireNonNull(host, "host");
      this.peerPort = port;
      return this;
    }

    /**
     * The deadline of a request {@link #send sent} without one; {@link
     * RowsFrameHandler#DEFAULT_REQUEST_TIMEOUT} if unset.
     */
    public Builder requestTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
      }
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * The most orphaned stream ids (requests that timed out or were cancelled, whose answers may
     * still come) the connection keeps: one more marks it broken and closes it. {@link
     * RowsFrameHandler#DEFAULT_MAX_ORPHANS} if unset.
     */
    public Builder maxOrphans(int maxOrphans) {
      if (maxOrphans < 0) {
        throw new IllegalArgumentException("maxOrphans: " + maxOrphans + " (expected: >= 0)");
      }
      this.maxOrphans = maxOrphans;
      return this;
    }

    /**
     * Installs the handlers at the end of a new channel's {@code pipeline} (the {@link SslHandler}
     * at its head): {@value #TRANSPORT_ERRORS}, {@value #BYTES_TO_FRAME_DECODER}, {@value
     * #ROWS_FRAME_HANDLER}.
     *
     * @return the connection's handlers
     */
    public CqlPipeline install(ChannelPipeline pipeline) {
      RowsFrameHandler rows =
          RowsFrameHandler.forConnection(
              new ResultReader(protocolVersion, limits), defaultSinks, requestTimeout, maxOrphans);
      CqlPipeline cql = new CqlPipeline(pipeline, protocolVersion, compression, limits, rows);
      BytesToFrameDecoder frames =
          protocolVersion >= 5
              ? new BytesToFrameDecoder(
                  limits, Compression.NONE, Rewiring.onResponse(pipeline, compression, limits))
              : new BytesToFrameDecoder(limits, compression);
      if (tls != null) {
        pipeline.addFirst(
            TLS_HANDLER, tls.newHandler(pipeline.channel().alloc(), peerHost, peerPort));
      }
      pipeline.addLast(TRANSPORT_ERRORS, new TransportErrors());
      pipeline.addLast(BYTES_TO_FRAME_DECODER, frames);
      pipeline.addLast(ROWS_FRAME_HANDLER, rows);
      return cql;
    }
  }

  /** The handlers {@link #install}ed on a channel, or {@code null}. */
  public static CqlPipeline get(Channel channel) {
    return channel.attr(KEY).get();
  }

  /** The rows handler: requests in flight, registrations, the default sink. */
  public RowsFrameHandler rows() {
    return rows;
  }

  /** The compression given to {@link #builder}. */
  public Compression compression() {
    return compression;
  }

  /**
   * The request encoders of this connection: the protocol version and compression given to {@link
   * #install}, and the extensions {@link #negotiated} so far. Encoders are immutable: ask again
   * after a negotiation.
   */
  public Requests requests() {
    return new Requests(protocolVersion, compression, rows.features());
  }

  /**
   * The STARTUP options of this connection: {@code CQL_VERSION}, {@code COMPRESSION} for the
   * compression given to {@link #install}, and the options of the extensions {@link #negotiated}.
   */
  public Map<String, String> startupOptions() {
    return Requests.startupOptions(compression, rows.features());
  }

  /**
   * Starts the connection: writes STARTUP with {@link #startupOptions()} on stream 0 and returns a
   * future completed when READY arrives, on the channel's event loop; on v5 the connection has
   * moved to segments by then, so what the future's callbacks write goes out in segments. The
   * answer is taken out of the pipeline (handlers after these never see it). On a TLS connection
   * STARTUP is written once the TLS handshake has completed. The future fails with a {@link
   * CqlServerError} when the server answers ERROR, an {@link IllegalStateException} when it asks
   * for authentication, a {@link CqlFrameException} or {@link
   * io.cqlrows.netty.frame.CqlConnectionException} when the connection breaks or closes first (a
   * failed TLS handshake among them), and a {@code REQUEST_TIMEOUT} {@link
   * io.cqlrows.netty.frame.CqlConnectionException} when no answer comes within the connection's
   * request timeout, which also closes the channel.
   *
   * <p>Call it once the channel is active (from {@code channelActive}, say), before any other
   * request. A driver that sends OPTIONS first, or authenticates, writes STARTUP itself with {@link
   * #requests()} and {@link #startupOptions()}.
   */
  public CompletableFuture<Void> startup() {
    return StartupHandler.start(
        pipeline, requests(), startupOptions(), tlsHandler(), rows.requestTimeout());
  }

  /**
   * Sends a request with the connection's request timeout; see {@link #send(ByteBuf, RowSink,
   * ResultColumns, Duration)}.
   */
  public CompletableFuture<RowsResponse> send(ByteBuf request, RowSink sink) {
    return send(request, sink, null, rows.requestTimeout());
  }

  /**
   * Sends a request with its own deadline; see {@link #send(ByteBuf, RowSink, ResultColumns,
   * Duration)}.
   */
  public CompletableFuture<RowsResponse> send(ByteBuf request, RowSink sink, Duration timeout) {
    return send(request, sink, null, timeout);
  }

  /**
   * Sends a request: a free stream id is written into it, its sink registered, and it is written
   * from the event loop. Call from any thread once {@link #startup()} has completed.
   *
   * @param request a request encoded by {@link #requests()}, with any stream id. Ownership passes
   *     to the pipeline: it is written, or released if it cannot be.
   * @param sink receives the rows of a ROWS result, on the event loop; never null (for a statement
   *     without rows, such as DDL or an INSERT, any sink does, e.g. a {@code CountingSink})
   * @param preparedColumns the columns of an EXECUTE with {@code Skip_metadata}, or {@code null}
   * @param timeout the deadline, from now; positive
   * @return see {@link RowsFrameHandler#send(ByteBuf, RowSink, ResultColumns, Duration, boolean)}:
   *     completes on the event loop with the parsed RESULT, or fails
   */
  public CompletableFuture<RowsResponse> send(
      ByteBuf request, RowSink sink, ResultColumns preparedColumns, Duration timeout) {
    return rows.send(request, sink, preparedColumns, timeout, streamResultsFrom > 0);
  }

  /** The {@link SslHandler} of a TLS connection, or {@code null}. */
  public SslHandler tlsHandler() {
    return pipeline.get(TLS_HANDLER) instanceof SslHandler h ? h : null;
  }

  /** See {@link RowsFrameHandler#expect(int, RowSink)}. */
  public void expect(int streamId, RowSink sink) {
    rows.expect(streamId, sink);
  }

  /** See {@link RowsFrameHandler#expect(int, RowSink, ResultColumns)}. */
  public void expect(int streamId, RowSink sink, ResultColumns preparedColumns) {
    rows.expect(streamId, sink, preparedColumns);
  }

  /**
   * See {@link RowsFrameHandler#expectStreaming}: the response's rows reach the sink while it
   * arrives, if the decoders stream it ({@link #streamResultsFrom}).
   */
  public void expectStreaming(int streamId, RowSink sink, ResultColumns preparedColumns) {
    rows.expectStreaming(streamId, sink, preparedColumns);
  }

  /** See {@link RowsFrameHandler#cancel}. */
  public boolean cancel(int streamId) {
    return rows.cancel(streamId);
  }

  /** See {@link RowsFrameHandler#negotiated}: the extensions STARTUP names, before it is sent. */
  public void negotiated(ProtocolFeatures features) {
    rows.negotiated(features);
  }

  /**
   * Streams large results: RESULT bodies of at least {@code minBodyBytes} bytes (uncompressed v3/v4
   * frames, and v5 envelopes split across segments, compressed or not) leave the decoders as they
   * arrive, and requests registered with {@link #expectStreaming} get their rows while the frame is
   * still arriving; the pipeline then holds the bytes of one read and one row, not the frame. The
   * segment decoders of a later switch inherit the setting.
   *
   * @param minBodyBytes the smallest body streamed, at least 1; 0 turns streaming off (the default)
   * @return this
   */
  public CqlPipeline streamResultsFrom(int minBodyBytes) {
    Rewiring.streamResultsFrom(pipeline, minBodyBytes);
    streamResultsFrom = minBodyBytes;
    return this;
  }

  /**
   * Switches a v5 connection to segments now (native_protocol_v5.spec section 2.3.1), both ways, in
   * the format of the compression given to {@link #install}. A client's pipeline does not need it:
   * it switches by itself when READY or AUTHENTICATE arrives. Call it where the frame that starts
   * segments is not decoded here: on a server's pipeline once READY is written, or on a connection
   * taken over after its handshake. Call it from the event loop, before any later bytes are read or
   * envelopes written.
   *
   * <p>Outbound envelopes are packed into segments by a {@link SegmentEncoder} put where the
   * cqlrows handlers begin (so handlers before them, TLS or a recorder, see segments as the socket
   * does). Bytes the frame decoder already holds go to the segment decoder <em>during this
   * call</em>.
   *
   * @throws IllegalStateException on v4, or if the connection has already switched
   */
  public void switchToSegments() {
    if (protocolVersion < 5) {
      throw new IllegalStateException("protocol v" + protocolVersion + " has no segments");
    }
    ChannelHandler handler = pipeline.get(BYTES_TO_FRAME_DECODER);
    if (!(handler instanceof BytesToFrameDecoder decoder)) {
      throw new IllegalStateException("no " + BYTES_TO_FRAME_DECODER + " in the pipeline");
    }
    Rewiring.segments(pipeline, compression, limits, decoder.consumedBytes(), streamResultsFrom);
  }
}
