package io.cqlrows.netty.client;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.request.Consistency;
import io.cqlrows.netty.request.QueryParameters;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A <b>small example client</b>: one connection, showing how a driver puts cqlrows to work. It is
 * not a driver: no pool, no retries, no re-preparing on {@code Unprepared}, no timeouts, no
 * events, no load balancing. It authenticates with {@code PasswordAuthenticator} (SASL PLAIN)
 * when given {@link Credentials}.
 *
 * <pre>{@code
 * EventLoopGroup group = new NioEventLoopGroup(); // Netty 4.1 and 4.2 (see connect)
 * CqlClient client = CqlClient.connect("127.0.0.1", 9042, 5, Compression.LZ4, group).get();
 * RowsCollector rows = new RowsCollector();
 * QueryResult page = client.query("SELECT id, v FROM ks.t", rows, 100, null).get();
 * PreparedResult p = client.prepare("SELECT v FROM ks.t WHERE id = ?").get();
 * client.execute(p, rows, 100, null, ByteBuffer.allocate(4).putInt(1).array()).get();
 * client.close().get();
 * }</pre>
 *
 * <p><b>Pipeline.</b> {@link CqlPipeline#install} (frames in, RESULTs parsed by {@link
 * io.cqlrows.netty.rows.RowsFrameHandler}), then this client's handler, which sends OPTIONS and, on SUPPORTED, STARTUP
 * ({@code CQL_VERSION}, {@code COMPRESSION}, and the protocol extensions the server offers that
 * cqlrows supports: ScyllaDB's, see {@link ProtocolFeatures}; none for Cassandra) and, on a v5
 * READY, switches both directions to segments. Each request
 * takes a free stream id (0-32767), registers its sink with {@link CqlPipeline#expect}
 * <em>before</em> it is written, and completes when its response is parsed.
 *
 * <p><b>Protocol version.</b> Asked for v5, a server that answers the handshake with "unsupported
 * protocol version" (ScyllaDB, which speaks v4 at most: a protocol error in a v4 header) gets a
 * second connection on v4, as the Java driver's negotiation does; {@link #protocolVersion()} and
 * {@link #features()} tell what the connection uses.
 *
 * <p><b>Prepared statements.</b> {@link #prepare} keeps the statement's {@link PreparedStatement}
 * handle; {@link #execute} sends {@code Skip_metadata} (when the statement has result columns)
 * and, on v5 or with {@link ProtocolFeatures#SCYLLA_USE_METADATA_ID}, the current {@code
 * result_metadata_id}, and decodes {@code No_metadata} rows with the handle's columns. A ROWS
 * result with {@code Metadata_changed} replaces both.
 *
 * <p><b>Ownership.</b> Values (and paging states) are borrowed: they are encoded before each
 * method returns, so the caller may release or reuse them afterwards.
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

  private final Channel channel;
  private final CqlClientHandler handler;
  /** Statements prepared through this client, by id. */
  private final Map<ByteBuffer, PreparedStatement> statements = new ConcurrentHashMap<>();

  private CqlClient(Channel channel, CqlClientHandler handler) {
    this.channel = channel;
    this.handler = handler;
  }

  /**
   * Connects and sends STARTUP; completes on READY.
   *
   * @param protocolVersion 4 or 5
   * @param compression {@link Compression#NONE} or {@link Compression#LZ4}
   * @param group an NIO event loop group: {@code new NioEventLoopGroup()} on Netty 4.1 and 4.2
   *     (4.2 deprecates it in favour of {@code new
   *     MultiThreadIoEventLoopGroup(NioIoHandler.newFactory())}, which 4.1 lacks; either works
   *     here); the caller shuts it down
   * @return the client, once the server answered READY; failed by a connection error, an ERROR
   *     or AUTHENTICATE response
   */
  public static CompletableFuture<CqlClient> connect(String host, int port, int protocolVersion,
      Compression compression, EventLoopGroup group) {
    return connect(host, port, protocolVersion, compression, group, pipeline -> {});
  }

  /**
   * Connects and sends STARTUP, letting the caller add handlers of its own first; completes on
   * READY.
   *
   * <p>{@code customizer} runs in the channel initializer, after the client's handlers were
   * installed and before the channel is active, so a handler it adds sees the connection from its
   * first byte. Handlers added at the head ({@code addFirst}) see the bytes as they go to and
   * come from the socket, v5 segments included: the client keeps its own handlers, and the
   * segment encoder it adds on a v5 READY, after them. To record a connection, STARTUP included:
   *
   * <pre>{@code
   * CqlClient.connect(host, port, 5, Compression.LZ4, group,
   *     p -> p.addFirst("pcap", new PcapRecordingHandler(Path.of("conn.pcap"))));
   * }</pre>
   *
   * @param protocolVersion 4 or 5; a server that refuses 5 is asked for 4 on a new connection
   * @param compression {@link Compression#NONE} or {@link Compression#LZ4}
   * @param group an NIO event loop group; the caller shuts it down
   * @param customizer adds handlers to the new channel's pipeline; called on its event loop, once
   *     per connection attempt (twice when v5 falls back to v4: give it handlers it can make
   *     anew, or sharable ones). If it throws, the connection is closed and the returned future
   *     fails.
   * @return the client, once the server answered READY; failed by a connection error, an ERROR
   *     (a {@link CqlServerError}) or AUTHENTICATE response
   */
  public static CompletableFuture<CqlClient> connect(String host, int port, int protocolVersion,
      Compression compression, EventLoopGroup group, Consumer<ChannelPipeline> customizer) {
    return connect(host, port, protocolVersion, compression, null, group, customizer);
  }

  /**
   * Connects, sends STARTUP and, when the server asks for it, authenticates; completes on READY
   * or AUTH_SUCCESS.
   *
   * @param compression {@link Compression#NONE}, {@link Compression#LZ4}, or on v4 {@link
   *     Compression#SNAPPY} (responses compressed, requests sent uncompressed)
   * @param credentials for a server that answers STARTUP with AUTHENTICATE ({@code
   *     PasswordAuthenticator}); null for none, and such a server then fails the connection
   *     with an {@link IllegalStateException}. Wrong credentials fail it with the server's
   *     {@link CqlServerError} (bad credentials, code 0x0100)
   * @see #connect(String, int, int, Compression, EventLoopGroup, Consumer)
   */
  public static CompletableFuture<CqlClient> connect(String host, int port, int protocolVersion,
      Compression compression, Credentials credentials, EventLoopGroup group,
      Consumer<ChannelPipeline> customizer) {
    Objects.requireNonNull(customizer, "customizer");
    new Requests(protocolVersion, compression); // checks both before connecting
    CompletableFuture<CqlClient> result = new CompletableFuture<>();
    attempt(host, port, protocolVersion, compression, credentials, group, customizer)
        .whenComplete((client, error) -> {
          if (error == null) {
            result.complete(client);
          } else if (error instanceof CqlClientHandler.VersionRefused refused) {
            if (protocolVersion >= 5) {
              attempt(host, port, 4, compression, credentials, group, customizer)
                  .whenComplete((c, e) -> {
                    if (e == null) {
                      result.complete(c);
                    } else {
                      result.completeExceptionally(
                          e instanceof CqlClientHandler.VersionRefused r ? r.getCause() : e);
                    }
                  });
            } else {
              result.completeExceptionally(refused.getCause());
            }
          } else {
            result.completeExceptionally(error);
          }
        });
    return result;
  }

  /** One connection on one protocol version; completes on READY. */
  private static CompletableFuture<CqlClient> attempt(String host, int port,
      int protocolVersion, Compression compression, Credentials credentials,
      EventLoopGroup group, Consumer<ChannelPipeline> customizer) {
    CompletableFuture<CqlClient> result = new CompletableFuture<>();
    Bootstrap bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            CqlPipeline cql = CqlPipeline.install(ch.pipeline(), protocolVersion, compression,
                ParseLimits.defaults(), null);
            CqlClientHandler handler =
                new CqlClientHandler(protocolVersion, compression, credentials, cql);
            ch.pipeline().addLast(HANDLER_NAME, handler);
            CqlClient client = new CqlClient(ch, handler);
            handler.ready().whenComplete((ok, error) -> {
              if (error == null) {
                result.complete(client);
              } else {
                result.completeExceptionally(error);
              }
            });
            try {
              customizer.accept(ch.pipeline());
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
              throw e; // the initializer closes the channel
            }
          }
        });
    bootstrap.connect(host, port).addListener((ChannelFutureListener) f -> {
      if (!f.isSuccess()) {
        result.completeExceptionally(f.cause());
      }
    });
    return result;
  }

  /** The protocol version of the connection: the one asked for, or 4 after a fallback. */
  public int protocolVersion() {
    return handler.requests().protocolVersion();
  }

  /**
   * The protocol extensions the connection uses: those the server offered in SUPPORTED that
   * cqlrows supports ({@link ProtocolFeatures#NONE} for Cassandra).
   */
  public ProtocolFeatures features() {
    return handler.requests().features();
  }

  /**
   * Streams large results: a RESULT body of at least {@code minBodyBytes} bytes reaches the sink
   * of a request sent from now on row by row while it arrives, so the connection holds one read
   * and one row of it, not the page (see {@link CqlPipeline#streamResultsFrom}). 0 turns it off.
   *
   * @return this client
   */
  public CqlClient streamResultsFrom(int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    CqlPipeline cql = CqlPipeline.get(channel);
    channel.eventLoop().execute(() -> cql.streamResultsFrom(minBodyBytes));
    handler.streaming(minBodyBytes > 0);
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
   * @param pagingState {@link QueryResult#pagingState()} of the previous page, or null
   * @param values one serialized value per bind marker (null elements are NULL). Borrowed.
   */
  public CompletableFuture<QueryResult> query(String cql, RowSink sink, int pageSize,
      ByteBuffer pagingState, byte[]... values) {
    return query(cql, sink, parameters(pageSize, pagingState, values));
  }

  /**
   * QUERY with any parameters.
   *
   * @param parameters its values are encoded during this call. Borrowed.
   */
  public CompletableFuture<QueryResult> query(String cql, RowSink sink,
      QueryParameters parameters) {
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
    return send(envelope, new CountingSink(), null, response -> {
      if (!(response.result() instanceof PreparedResult prepared)) {
        throw new IllegalStateException("PREPARE answered with RESULT kind "
            + response.result().kind() + " (expected: 4, Prepared)");
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
    return statements.computeIfAbsent(ByteBuffer.wrap(prepared.id()),
        id -> new PreparedStatement(null, prepared));
  }

  /**
   * EXECUTE at {@link #DEFAULT_CONSISTENCY}.
   *
   * @param pageSize rows per page, or 0 for no paging
   * @param pagingState {@link QueryResult#pagingState()} of the previous page, or null
   * @param values one serialized value per bind marker (null elements are NULL). Borrowed.
   */
  public CompletableFuture<QueryResult> execute(PreparedResult prepared, RowSink sink,
      int pageSize, ByteBuffer pagingState, byte[]... values) {
    return execute(prepared, sink, parameters(pageSize, pagingState, values));
  }

  /**
   * EXECUTE with any parameters; {@code Skip_metadata} is set here when the statement has result
   * columns, whatever {@code parameters} say.
   *
   * @param parameters its values are encoded during this call. Borrowed.
   */
  public CompletableFuture<QueryResult> execute(PreparedResult prepared, RowSink sink,
      QueryParameters parameters) {
    Objects.requireNonNull(sink, "sink");
    PreparedStatement statement = statement(prepared);
    PreparedStatement.ResultMetadata metadata = statement.current();
    ResultColumns columns = metadata.resultColumns();
    boolean skipMetadata = columns.size() > 0;
    ByteBuf envelope = handler.requests().execute(channel.alloc(), 0, statement.idUnsafe(),
        metadata.resultMetadataId(), parameters.withSkipMetadata(skipMetadata));
    return send(envelope, sink, skipMetadata ? columns : null, response -> {
      if (response.result() instanceof RowsResult rows) {
        statement.onRows(rows);
      }
      return QueryResult.of(response);
    });
  }

  /** Closes the connection; requests in flight fail. */
  public CompletableFuture<Void> close() {
    CompletableFuture<Void> closed = new CompletableFuture<>();
    channel.close().addListener(f -> closed.complete(null));
    return closed;
  }

  private static QueryParameters parameters(int pageSize, ByteBuffer pagingState,
      byte[]... values) {
    return QueryParameters.of(DEFAULT_CONSISTENCY)
        .withValues(values)
        .withPageSize(pageSize)
        .withPagingState(pagingState);
  }

  /** Hands an encoded request to the event loop. Ownership of the envelope transferred. */
  private <T> CompletableFuture<T> send(ByteBuf envelope, RowSink sink, ResultColumns columns,
      Function<RowsResponse, T> onResult) {
    CompletableFuture<T> future = new CompletableFuture<>();
    Runnable task = () -> handler.send(envelope, sink, columns, future,
        response -> future.complete(onResult.apply(response)));
    EventLoop loop = channel.eventLoop();
    if (loop.inEventLoop()) {
      task.run();
      return future;
    }
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      envelope.release();
      future.completeExceptionally(e);
    }
    return future;
  }
}
