package io.cqlrows.client;

import io.cqlrows.core.PagingState;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.TlsOptions;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.request.Consistency;
import io.cqlrows.netty.request.QueryParameters;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A <b>small example client</b>: one connection, showing how a driver puts cqlrows to work. It is
 * not a driver: no pool, no retries, no re-preparing on {@code Unprepared}, no events, no load
 * balancing. It speaks TLS when given {@link TlsOptions}, authenticates with {@code
 * PasswordAuthenticator} (SASL PLAIN) when given {@link Credentials}, and gives the connection and
 * every request a deadline.
 *
 * <pre>{@code
 * EventLoopGroup group = new NioEventLoopGroup(); // Netty 4.1 and 4.2 (see Builder#connect)
 * CqlClient client = CqlClient.builder("127.0.0.1", 9042)
 *     .compression(Compression.LZ4)
 *     .tls(TlsOptions.of(SslContextBuilder.forClient().trustManager(caPem).build()))
 *     .credentials(new Credentials("alice", password))
 *     .requestTimeout(Duration.ofSeconds(10))
 *     .connect(group).get();
 * RowsCollector rows = new RowsCollector();
 * QueryResult page = client.query("SELECT id, v FROM ks.t", rows, 100, null).get();
 * PreparedResult p = client.prepare("SELECT v FROM ks.t WHERE id = ?").get();
 * client.execute(p, rows, 100, null, ByteBuffer.allocate(4).putInt(1).array()).get();
 * client.close().get();
 * }</pre>
 *
 * <p><b>Pipeline.</b> {@link CqlPipeline#builder} (TLS first, frames in, RESULTs parsed and
 * requests kept in flight by {@link io.cqlrows.netty.rows.RowsFrameHandler}), then this client's
 * handler, which once the connection (and its TLS handshake) is up sends OPTIONS and, on SUPPORTED,
 * STARTUP ({@code CQL_VERSION}, {@code COMPRESSION}, and the protocol extensions the server offers
 * that cqlrows supports: ScyllaDB's, see {@link ProtocolFeatures}; none for Cassandra); on a v5
 * READY both directions switch to segments. Each request goes through {@link CqlPipeline#send}: it
 * takes a free stream id (0-32767), registers its sink, and completes when its response is parsed.
 *
 * <p><b>Deadlines.</b> {@link Builder#connectTimeout} bounds the whole connection: TCP, TLS and the
 * CQL handshake; {@link Builder#requestTimeout} bounds each request. A request past its deadline
 * fails with a {@link CqlConnectionException} ({@code REQUEST_TIMEOUT}) and its stream id is not
 * reused until its late answer arrives; cancelling a future does the same. When the connection
 * ends, every request in flight fails at once with the reason: {@code CLOSED_BY_CLIENT} ({@link
 * #close()}), {@code CLOSED_BY_SERVER}, {@code RESET}, a failed TLS session, or the
 * connection-level {@link io.cqlrows.netty.frame.CqlFrameException} that broke it.
 *
 * <p><b>Protocol version.</b> Asked for v5, a server that answers the handshake with "unsupported
 * protocol version" (ScyllaDB, which speaks v4 at most: a protocol error in a v4 header) gets a
 * second connection on v4, as the Java driver's negotiation does; {@link #protocolVersion()} and
 * {@link #features()} tell what the connection uses.
 *
 * <p><b>Prepared statements.</b> {@link #prepare} keeps the statement's {@link PreparedStatement}
 * handle; {@link #execute} sends {@code Skip_metadata} (when the statement has result columns) and,
 * on v5 or with {@link ProtocolFeatures#SCYLLA_USE_METADATA_ID}, the current {@code
 * result_metadata_id}, and decodes {@code No_metadata} rows with the handle's columns. A ROWS
 * result with {@code Metadata_changed} replaces both.
 *
 * <p><b>Ownership.</b> Values are borrowed: they are encoded before each method returns, so the
 * caller may release or reuse them afterwards.
 *
 * <p><b>Threading.</b> Methods may be called from any thread. Requests are encoded on the calling
 * thread and sent from the channel's event loop; <em>sinks are called, and futures completed, on
 * the event loop</em>: do not block in them.
 */
public final class CqlClient {
  /** The name of the client's handler in the pipeline, after {@link CqlPipeline}'s handlers. */
  public static final String HANDLER_NAME = "cqlrows.client";

  /** The consistency of the convenience methods: {@link Consistency#LOCAL_ONE}. */
  public static final Consistency DEFAULT_CONSISTENCY = Consistency.LOCAL_ONE;

  /** The connection's deadline when none is given: 10 seconds for TCP, TLS and the handshake. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final Channel channel;
  private final CqlClientHandler handler;
  private final CqlPipeline cql;
  private final Duration requestTimeout;

  /** Statements prepared through this client, by id. */
  private final Map<ByteBuffer, PreparedStatement> statements = new ConcurrentHashMap<>();

  private CqlClient(
      Channel channel, CqlClientHandler handler, CqlPipeline cql, Duration requestTimeout) {
    this.channel = channel;
    this.handler = handler;
    this.cql = cql;
    this.requestTimeout = requestTimeout;
  }

  /**
   * A client for {@code host:port}, to configure and {@linkplain Builder#connect connect}.
   *
   * @param host a host name or address
   * @param port the server's CQL port
   */
  public static Builder builder(String host, int port) {
    return new Builder(host, port);
  }

  /**
   * Connects without TLS or credentials and sends STARTUP; see {@link Builder#connect}.
   *
   * @param protocolVersion 4 or 5
   * @param compression {@link Compression#NONE} or {@link Compression#LZ4}
   * @param group an NIO event loop group; the caller shuts it down
   */
  public static CompletableFuture<CqlClient> connect(
      String host, int port, int protocolVersion, Compression compression, EventLoopGroup group) {
    return builder(host, port)
        .protocolVersion(protocolVersion)
        .compression(compression)
        .connect(group);
  }

  /**
   * Connects as {@link #connect(String, int, int, Compression, EventLoopGroup)} does, letting the
   * caller add handlers first ({@link Builder#customizer}).
   */
  public static CompletableFuture<CqlClient> connect(
      String host,
      int port,
      int protocolVersion,
      Compression compression,
      EventLoopGroup group,
      Consumer<ChannelPipeline> customizer) {
    return builder(host, port)
        .protocolVersion(protocolVersion)
        .compression(compression)
        .customizer(customizer)
        .connect(group);
  }

  /**
   * Connects as {@link #connect(String, int, int, Compression, EventLoopGroup, Consumer)} does,
   * authenticating with {@code credentials} (null for none) when the server asks.
   */
  public static CompletableFuture<CqlClient> connect(
      String host,
      int port,
      int protocolVersion,
      Compression compression,
      Credentials credentials,
      EventLoopGroup group,
      Consumer<ChannelPipeline> customizer) {
    return builder(host, port)
        .protocolVersion(protocolVersion)
        .compression(compression)
        .credentials(credentials)
        .customizer(customizer)
        .connect(group);
  }

  /**
   * What {@link #builder} connects with. Not thread-safe; {@link #connect} may be called more than
   * once, for one client each time.
   */
  public static final class Builder {
    private final String host;
    private final int port;
    private int protocolVersion = 5;
    private Compression compression = Compression.NONE;
    private Credentials credentials;
    private TlsOptions tls;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration requestTimeout = RowsFrameHandler.DEFAULT_REQUEST_TIMEOUT;
    private int maxOrphans = RowsFrameHandler.DEFAULT_MAX_ORPHANS;
    private Consumer<ChannelPipeline> customizer = pipeline -> {};

    private Builder(String host, int port) {
      this.host = Objects.requireNonNull(host, "host");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
      }
      this.port = port;
    }

    /**
     * The protocol version to ask for: 5 (the default; a server that refuses it is asked for 4 on a
     * new connection) or 4.
     */
    public Builder protocolVersion(int protocolVersion) {
      if (protocolVersion != 4 && protocolVersion != 5) {
        throw new IllegalArgumentException(
            "protocolVersion: " + protocolVersion + " (expected: 4 or 5)");
      }
      this.protocolVersion = protocolVersion;
      return this;
    }

    /**
     * The compression STARTUP asks for: {@link Compression#NONE} (the default), {@link
     * Compression#LZ4}, or on v4 {@link Compression#SNAPPY} (responses compressed, requests sent
     * uncompressed).
     */
    public Builder compression(Compression compression) {
      this.compression = Objects.requireNonNull(compression, "compression");
      return this;
    }

    /**
     * Credentials for a server that answers STARTUP with AUTHENTICATE ({@code
     * PasswordAuthenticator}), sent only after the TLS handshake, on a TLS connection; {@code null}
     * (the default) for none, and such a server then fails the connection with an {@link
     * IllegalStateException}. Wrong credentials fail it with the server's {@link CqlServerError}
     * (bad credentials, code 0x0100).
     */
    public Builder credentials(Credentials credentials) {
      this.credentials = credentials;
      return this;
    }

    /**
     * Speaks TLS with these options (host name checked and SNI sent as {@link TlsOptions} says);
     * {@code null} (the default) for a plaintext connection.
     */
    public Builder tls(TlsOptions tls) {
      this.tls = tls;
      return this;
    }

    /**
     * The deadline of the whole connection, TCP, TLS and the CQL handshake (the fallback from v5 to
     * v4 included): past it, {@link #connect} fails with a {@link CqlConnectionException} ({@code
     * CONNECT_TIMEOUT}). {@link #DEFAULT_CONNECT_TIMEOUT} if unset.
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout);
      return this;
    }

    /**
     * The deadline of every request, from when it is made. {@link
     * RowsFrameHandler#DEFAULT_REQUEST_TIMEOUT} if unset.
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout);
      return this;
    }

    /** See {@link CqlPipeline.Builder#maxOrphans}. */
    public Builder maxOrphans(int maxOrphans) {
      if (maxOrphans < 0) {
        throw new IllegalArgumentException("maxOrphans: " + maxOrphans + " (expected: >= 0)");
      }
      this.maxOrphans = maxOrphans;
      return this;
    }

    /**
     * Adds handlers to each new channel's pipeline: runs in the channel initializer, before the
     * client adds its own handlers and before the channel is active, so a handler it adds sees the
     * connection from its first byte. The handlers it adds stay before the client's, and after the
     * TLS handler, which the client puts at the head: they see the bytes as they go to and come
     * from the socket, in plaintext, v5 segments included (the client keeps the segment encoder it
     * adds on a v5 READY after them). To record a connection, STARTUP included:
     *
     * <pre>{@code
     * CqlClient.builder(host, port).compression(Compression.LZ4)
     *     .customizer(p -> p.addFirst("pcap", new PcapRecordingHandler(Path.of("conn.pcap"))))
     *     .connect(group);
     * }</pre>
     *
     * <p>It runs once per connection attempt (twice when v5 falls back to v4: give it handlers it
     * can make anew, or sharable ones), on the channel's event loop. If it throws, the connection
     * is closed and {@link #connect} fails.
     */
    public Builder customizer(Consumer<ChannelPipeline> customizer) {
      this.customizer = Objects.requireNonNull(customizer, "customizer");
      return this;
    }

    /**
     * Connects, speaks TLS if asked, sends OPTIONS and STARTUP and, when the server asks for it,
     * authenticates.
     *
     * @param group an NIO event loop group: {@code new NioEventLoopGroup()} on Netty 4.1 and 4.2
     *     (4.2 deprecates it in favour of {@code new
     *     MultiThreadIoEventLoopGroup(NioIoHandler.newFactory())}, which 4.1 lacks; either works
     *     here); the caller shuts it down
     * @return the client, once the server answered READY or AUTH_SUCCESS; failed with a {@link
     *     CqlConnectionException} (refused, unknown host, {@code CONNECT_TIMEOUT}, a failed TLS
     *     handshake with its reason, closed or reset), the server's {@link CqlServerError}, or an
     *     {@link IllegalStateException} when it wants credentials and there are none
     */
    public CompletableFuture<CqlClient> connect(EventLoopGroup group) {
      Objects.requireNonNull(group, "group");
      new Requests(protocolVersion, compression); // checks both before connecting
      Settings settings =
          new Settings(
              host,
              port,
              compression,
              credentials,
              tls,
              requestTimeout,
              maxOrphans,
              customizer,
              System.nanoTime() + connectTimeout.toNanos(),
              connectTimeout);
      CompletableFuture<CqlClient> result = new CompletableFuture<>();
      settings
          .attempt(group, protocolVersion)
          .whenComplete(
              (client, error) -> {
                if (error == null) {
                  result.complete(client);
                } else if (error instanceof CqlClientHandler.VersionRefused
                    && protocolVersion >= 5) {
                  settings
                      .attempt(group, 4)
                      .whenComplete(
                          (c, e) -> {
                            if (e == null) {
                              result.complete(c);
                            } else {
                              result.completeExceptionally(
                                  e instanceof CqlClientHandler.VersionRefused r
                                      ? r.getCause()
                                      : e);
                            }
                          });
                } else {
                  result.completeExceptionally(
                      error instanceof CqlClientHandler.VersionRefused r ? r.getCause() : error);
                }
              });
      return result;
    }

    private static Duration positive(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
      }
      return timeout;
    }
  }

  /** What one {@link Builder#connect} call connects with; its attempts share the deadline. */
  private record Settings(
      String host,
      int port,
      Compression compression,
      Credentials credentials,
      TlsOptions tls,
      Duration requestTimeout,
      int maxOrphans,
      Consumer<ChannelPipeline> customizer,
      long deadlineNanos,
      Duration connectTimeout) {

    /** One connection on one protocol version; completes on READY. */
    CompletableFuture<CqlClient> attempt(EventLoopGroup group, int protocolVersion) {
      CompletableFuture<CqlClient> result = new CompletableFuture<>();
      long leftMillis = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
      Bootstrap bootstrap =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .option(
                  ChannelOption.CONNECT_TIMEOUT_MILLIS,
                  (int) Math.min(Integer.MAX_VALUE, leftMillis))
              .handler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      init(ch, protocolVersion, leftMillis, result);
                    }
                  });
      bootstrap
          .connect(host, port)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (!f.isSuccess()) {
                      CqlConnectionException e = CqlConnectionException.from(f.cause(), address());
                      result.completeExceptionally(e != null ? e : f.cause());
                    }
                  });
      return result;
    }

    private String address() {
      return CqlConnectionException.address(InetSocketAddress.createUnresolved(host, port));
    }

    private void init(
        Channel ch, int protocolVersion, long leftMillis, CompletableFuture<CqlClient> result) {
      ChannelPipeline p = ch.pipeline();
      try {
        customizer.accept(p);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
        throw e; // the initializer closes the channel
      }
      CqlPipeline.Builder builder =
          CqlPipeline.builder(protocolVersion, compression)
              .requestTimeout(requestTimeout)
              .maxOrphans(maxOrphans);
      if (tls != null) {
        builder.tls(tls, host, port);
      }
      CqlPipeline cql = builder.install(p);
      SslHandler ssl = cql.tlsHandler();
      if (ssl != null) {
        ssl.setHandshakeTimeoutMillis(leftMillis);
      }
      CqlClientHandler handler =
          new CqlClientHandler(protocolVersion, compression, credentials, cql, tls != null);
      p.addLast(HANDLER_NAME, handler);
      CqlClient client = new CqlClient(ch, handler, cql, requestTimeout);
      ScheduledFuture<?> deadline =
          ch.eventLoop()
              .schedule(
                  () -> {
                    if (handler
                        .ready()
                        .completeExceptionally(
                            new CqlConnectionException(
                                CqlConnectionException.Reason.CONNECT_TIMEOUT,
                                address(),
                                -1,
                                "not connected within " + connectTimeout.toMillis() + " ms",
                                null))) {
                      ch.close();
                    }
                  },
                  leftMillis,
                  TimeUnit.MILLISECONDS);
      handler
          .ready()
          .whenComplete(
              (ok, error) -> {
                deadline.cancel(false);
                if (error == null) {
                  result.complete(client);
                } else {
                  result.completeExceptionally(error);
                }
              });
    }
  }

  /** The protocol version of the connection: the one asked for, or 4 after a fallback. */
  public int protocolVersion() {
    return handler.requests().protocolVersion();
  }

  /**
   * The protocol extensions the connection uses: those the server offered in SUPPORTED that cqlrows
   * supports ({@link ProtocolFeatures#NONE} for Cassandra).
   */
  public ProtocolFeatures features() {
    return handler.requests().features();
  }

  /**
   * Streams large results: a RESULT body of at least {@code minBodyBytes} bytes reaches the sink of
   * a request sent from now on row by row while it arrives, so the connection holds one read and
   * one row of it, not the page (see {@link CqlPipeline#streamResultsFrom}). 0 turns it off. Called
   * off the event loop, it waits for the loop to apply it.
   *
   * @return this client
   */
  public CqlClient streamResultsFrom(int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    if (channel.eventLoop().inEventLoop()) {
      cql.streamResultsFrom(minBodyBytes);
    } else {
      channel.eventLoop().submit(() -> cql.streamResultsFrom(minBodyBytes)).syncUninterruptibly();
    }
    return this;
  }

  /** The connection's channel (for inspection; do not write to it). */
  public Channel channel() {
    return channel;
  }

  /**
   * QUERY at {@link #DEFAULT_CONSISTENCY}.
   *
   * @param sink receives the rows of a ROWS result, on the event loop
   * @param pageSize rows per page, or 0 for no paging
   * @param pagingState {@link QueryResult#pagingState()} of the previous page, or null for the
   *     first
   * @param values one serialized value per bind marker (null elements are NULL). Borrowed.
   */
  public CompletableFuture<QueryResult> query(
      String cql, RowSink sink, int pageSize, PagingState pagingState, byte[]... values) {
    return query(cql, sink, parameters(pageSize, pagingState, values));
  }

  /**
   * QUERY with any parameters.
   *
   * @param parameters its values are encoded during this call. Borrowed.
   */
  public CompletableFuture<QueryResult> query(
      String cql, RowSink sink, QueryParameters parameters) {
    Objects.requireNonNull(sink, "sink");
    ByteBuf envelope = handler.requests().query(channel.alloc(), 0, cql, parameters);
    return send(envelope, sink, null, QueryResult::of);
  }

  /**
   * PREPARE; the client keeps a {@link PreparedStatement} handle for the result ({@link
   * #statement}).
   *
   * @return the PREPARED result as sent
   */
  public CompletableFuture<PreparedResult> prepare(String cql) {
    ByteBuf envelope = handler.requests().prepare(channel.alloc(), 0, cql);
    return send(
        envelope,
        new CountingSink(),
        null,
        response -> {
          if (!(response.result() instanceof PreparedResult prepared)) {
            throw new IllegalStateException(
                "PREPARE answered with RESULT kind "
                    + response.result().kind()
                    + " (expected: 4, Prepared)");
          }
          statements.put(ByteBuffer.wrap(prepared.id()), new PreparedStatement(cql, prepared));
          return prepared;
        });
  }

  /**
   * The handle of a prepared statement: current result metadata id and columns. A statement
   * prepared elsewhere (another connection to the same node) gets a new handle.
   */
  public PreparedStatement statement(PreparedResult prepared) {
    return statements.computeIfAbsent(
        ByteBuffer.wrap(prepared.id()), id -> new PreparedStatement(null, prepared));
  }

  /**
   * EXECUTE at {@link #DEFAULT_CONSISTENCY}.
   *
   * @param pageSize rows per page, or 0 for no paging
   * @param pagingState {@link QueryResult#pagingState()} of the previous page, or null for the
   *     first
   * @param values one serialized value per bind marker (null elements are NULL). Borrowed.
   */
  public CompletableFuture<QueryResult> execute(
      PreparedResult prepared,
      RowSink sink,
      int pageSize,
      PagingState pagingState,
      byte[]... values) {
    return execute(prepared, sink, parameters(pageSize, pagingState, values));
  }

  /**
   * EXECUTE with any parameters; {@code Skip_metadata} is set here when the statement has result
   * columns, whatever {@code parameters} say.
   *
   * @param parameters its values are encoded during this call. Borrowed.
   */
  public CompletableFuture<QueryResult> execute(
      PreparedResult prepared, RowSink sink, QueryParameters parameters) {
    Objects.requireNonNull(sink, "sink");
    PreparedStatement statement = statement(prepared);
    PreparedStatement.ResultMetadata metadata = statement.current();
    ResultColumns columns = metadata.resultColumns();
    boolean skipMetadata = columns.size() > 0;
    ByteBuf envelope =
        handler
            .requests()
            .execute(
                channel.alloc(),
                0,
                statement.idUnsafe(),
                metadata.resultMetadataId(),
                parameters.withSkipMetadata(skipMetadata));
    return send(
        envelope,
        sink,
        skipMetadata ? columns : null,
        response -> {
          if (response.result() instanceof RowsResult rows) {
            statement.onRows(rows);
          }
          return QueryResult.of(response);
        });
  }

  /**
   * Closes the connection; requests in flight fail at once with a {@link CqlConnectionException}
   * ({@code CLOSED_BY_CLIENT}).
   *
   * @return completed once the channel is closed
   */
  public CompletableFuture<Void> close() {
    CompletableFuture<Void> closed = new CompletableFuture<>();
    channel.close().addListener(f -> closed.complete(null));
    return closed;
  }

  private static QueryParameters parameters(
      int pageSize, PagingState pagingState, byte[]... values) {
    return QueryParameters.of(DEFAULT_CONSISTENCY)
        .withValues(values)
        .withPageSize(pageSize)
        .withPagingState(pagingState);
  }

  /**
   * Sends an encoded request through the pipeline with the client's request timeout. The pipeline
   * owns the envelope from here: it writes it, or releases it.
   */
  private <T> CompletableFuture<T> send(
      ByteBuf envelope, RowSink sink, ResultColumns columns, Function<RowsResponse, T> onResult) {
    CompletableFuture<T> future = new CompletableFuture<>();
    CompletableFuture<RowsResponse> response = cql.send(envelope, sink, columns, requestTimeout);
    response.whenComplete(
        (r, error) -> {
          if (error != null) {
            future.completeExceptionally(error);
            return;
          }
          try {
            future.complete(onResult.apply(r));
          } catch (RuntimeException e) {
            future.completeExceptionally(e);
          }
        });
    future.whenComplete(
        (r, error) -> {
          if (error instanceof CancellationException) {
            response.cancel(false); // the stream id stays orphaned until the answer comes
          }
        });
    return future;
  }
}
