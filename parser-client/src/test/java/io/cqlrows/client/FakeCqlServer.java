package io.cqlrows.client;

import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.Compressors;
import io.cqlrows.netty.request.DecodedRequest;
import io.cqlrows.testing.CqlBytes;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIServerName;

/**
 * A tiny CQL server on 127.0.0.1 for client tests, built from cqlrows' own decoders and encoders.
 * It answers OPTIONS with SUPPORTED, STARTUP with READY (switching v5 to segments both ways) and
 * each request by its text ({@link CannedResponses}). v4 response bodies are LZ4-compressed when
 * LZ4 was negotiated, as Cassandra does. Every request it decodes is recorded.
 *
 * <p>{@link #scylla} makes it answer as ScyllaDB does (transport/server.cc): protocol v4 at most, a
 * request in a newer version answered with a protocol error in a v4 header on stream 0, the
 * protocol extensions advertised in SUPPORTED and applied when STARTUP names them.
 */
public final class FakeCqlServer {
  /** What ScyllaDB 2025 advertises for its extensions (cql_protocol_extension.cc). */
  static final Map<String, List<String>> SCYLLA_EXTENSIONS = scyllaExtensions();

  private final int version;
  private final Compression compression;

  /** The SUPPORTED multimap. */
  private final Map<String, List<String>> supported;

  /** ScyllaDB: refuses newer versions, applies extensions. */
  private final boolean scylla;

  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final Channel server;

  /** Every request received, in order, over all connections. */
  final List<DecodedRequest> requests = new CopyOnWriteArrayList<>();

  /** When set, STARTUP is answered with an ERROR. */
  volatile boolean refuseStartup;

  /** When set, STARTUP is answered with a protocol error with this message. */
  volatile String refuseStartupWith;

  /**
   * When set, STARTUP is answered with AUTHENTICATE ({@code PasswordAuthenticator}), and an
   * AUTH_RESPONSE with the SASL PLAIN token of {@code cassandra} and this password with
   * AUTH_SUCCESS; any other token with a bad-credentials ERROR.
   */
  public volatile String password;

  /** The tokens of the AUTH_RESPONSEs received. */
  final List<byte[]> authTokens = new CopyOnWriteArrayList<>();

  /** Connections accepted so far. */
  final AtomicInteger connections = new AtomicInteger();

  /** The handlers of the connections accepted so far, for {@link #answerHeld}. */
  private final List<Connection> handlers = new CopyOnWriteArrayList<>();

  /**
   * When set (before a client connects), connections speak TLS with this server context: an {@code
   * SslHandler} at the head of each connection's pipeline, after the raw-bytes recorder.
   */
  public volatile SslContext tls;

  /**
   * When set, asked for each QUERY (its stream id and text) before the canned answers: the bytes it
   * returns are written as they are in place of them (a hostile response built by the test), and
   * null leaves the request to the canned answers.
   */
  public volatile BiFunction<Integer, String, byte[]> rawAnswers;

  /**
   * Bytes the server still writes to its sockets before it holds back the rest (see {@link
   * #holdOutputAfter}); negative for no limit. Counted over all connections.
   */
  private volatile long outputAllowance = -1;

  /** The output gates of the connections accepted so far, for {@link #releaseOutput}. */
  private final List<OutputGate> gates = new CopyOnWriteArrayList<>();

  /** Every byte received from clients, as it came off the socket (before TLS). */
  private final ByteArrayOutputStream raw = new ByteArrayOutputStream();

  /** The SNI host names of the TLS handshakes completed so far; "" for none. */
  public final List<String> serverNames = new CopyOnWriteArrayList<>();

  /** A Cassandra-like server speaking {@code version}. */
  public FakeCqlServer(EventLoopGroup group, int version, Compression compression)
      throws InterruptedException {
    this(group, version, compression, cassandraSupported(), false);
  }

  /**
   * A ScyllaDB-like server: v4, advertising {@code extensions} (keys of {@link #SCYLLA_EXTENSIONS}
   * with its values) besides the sharding options.
   */
  static FakeCqlServer scylla(EventLoopGroup group, Compression compression, String... extensions)
      throws InterruptedException {
    Map<String, List<String>> supported = new LinkedHashMap<>();
    supported.put("COMPRESSION", List.of("lz4", "snappy"));
    supported.put("CQL_VERSION", List.of("3.3.1"));
    supported.put("SCYLLA_NR_SHARDS", List.of("2"));
    supported.put("SCYLLA_PARTITIONER", List.of("org.apache.cassandra.dht.Murmur3Partitioner"));
    supported.put("SCYLLA_SHARD", List.of("0"));
    supported.put("SCYLLA_SHARDING_ALGORITHM", List.of("biased-token-round-robin"));
    supported.put("SCYLLA_SHARDING_IGNORE_MSB", List.of("12"));
    for (String e : extensions) {
      supported.put(e, SCYLLA_EXTENSIONS.get(e));
    }
    return new FakeCqlServer(group, 4, compression, supported, true);
  }

  private FakeCqlServer(
      EventLoopGroup group,
      int version,
      Compression compression,
      Map<String, List<String>> supported,
      boolean scylla)
      throws InterruptedException {
    this.version = version;
    this.compression = compression;
    this.supported = supported;
    this.scylla = scylla;
    this.server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    children.add(ch);
                    connections.incrementAndGet();
                    // the server's side of the same handlers: requests pass the rows handler
                    // untouched
                    CqlPipeline.install(ch.pipeline(), version, compression);
                    SslContext context = tls;
                    if (context != null) {
                      SslHandler ssl = context.newHandler(ch.alloc());
                      ssl.handshakeFuture()
                          .addListener(
                              f -> {
                                if (f.isSuccess()
                                    && ssl.engine().getSession()
                                        instanceof ExtendedSSLSession session) {
                                  List<SNIServerName> names = session.getRequestedServerNames();
                                  serverNames.add(
                                      names.isEmpty()
                                          ? ""
                                          : new String(
                                              names.get(0).getEncoded(),
                                              StandardCharsets.US_ASCII));
                                }
                              });
                      ch.pipeline().addFirst("tls", ssl);
                    }
                    ch.pipeline()
                        .addFirst(
                            "raw",
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf b = (ByteBuf) msg;
                                synchronized (raw) {
                                  try {
                                    b.getBytes(b.readerIndex(), raw, b.readableBytes());
                                  } catch (IOException e) {
                                    throw new UncheckedIOException(
                                        e); // a ByteArrayOutputStream does not throw
                                  }
                                }
                                ctx.fireChannelRead(msg);
                              }
                            });
                    Connection handler = new Connection();
                    handlers.add(handler);
                    ch.pipeline().addLast(handler);
                    OutputGate gate = new OutputGate();
                    gates.add(gate);
                    ch.pipeline().addFirst("gate", gate); // next to the socket
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  private static Map<String, List<String>> cassandraSupported() {
    Map<String, List<String>> supported = new LinkedHashMap<>();
    supported.put("PROTOCOL_VERSIONS", List.of("3/v3", "4/v4", "5/v5"));
    supported.put("COMPRESSION", List.of("snappy", "lz4"));
    supported.put("CQL_VERSION", List.of("3.4.7"));
    return supported;
  }

  private static Map<String, List<String>> scyllaExtensions() {
    Map<String, List<String>> e = new LinkedHashMap<>();
    e.put("SCYLLA_LWT_ADD_METADATA_MARK", List.of("LWT_OPTIMIZATION_META_BIT_MASK=2147483648"));
    e.put("SCYLLA_RATE_LIMIT_ERROR", List.of("ERROR_CODE=61440"));
    e.put("TABLETS_ROUTING_V1", List.of(""));
    e.put("SCYLLA_USE_METADATA_ID", List.of(""));
    return Collections.unmodifiableMap(e);
  }

  /** Every byte received from clients so far, as it came off the socket (ciphertext on TLS). */
  public byte[] rawReceived() {
    synchronized (raw) {
      return raw.toByteArray();
    }
  }

  /** The QUERY texts received so far. */
  public List<String> queries() {
    List<String> out = new ArrayList<>();
    for (DecodedRequest r : requests) {
      if (r.opcode() == Opcode.QUERY) {
        out.add(r.query());
      }
    }
    return out;
  }

  /**
   * Answers the {@code HOLD} requests every connection holds, as a {@code RELEASE} would but
   * without one: for a client whose stream ids are all in use. Returns once the answers are
   * written.
   */
  public void answerHeld() throws InterruptedException {
    for (Connection c : handlers) {
      c.answerHeld();
    }
  }

  /**
   * From now on, writes at most {@code bytes} more bytes to the sockets (as they leave: segments,
   * compressed bodies, TLS records) and holds back the rest, in order, until {@link
   * #releaseOutput}: for a test that watches a client with only part of a response in.
   */
  public void holdOutputAfter(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes: " + bytes + " (expected: >= 0)");
    }
    outputAllowance = bytes;
  }

  /** Lifts {@link #holdOutputAfter}'s limit and writes what it held back. Returns once written. */
  public void releaseOutput() throws InterruptedException {
    outputAllowance = -1;
    for (OutputGate gate : gates) {
      gate.release();
    }
  }

  /** Closes every connection and the server socket. */
  public void close() throws InterruptedException {
    server.close().sync();
    children.close().sync();
  }

  /**
   * The head of a connection's pipeline: writes pass while {@link #outputAllowance} allows, the
   * rest waits in order until {@link #release}. Held buffers are released if the connection ends
   * first.
   */
  private final class OutputGate extends ChannelOutboundHandlerAdapter {
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private volatile ChannelHandlerContext ctx;

    private record Held(ByteBuf bytes, ChannelPromise promise) {}

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      long allowance = outputAllowance;
      if (!(msg instanceof ByteBuf bytes) || (allowance < 0 && held.isEmpty())) {
        ctx.write(msg, promise);
      } else if (!held.isEmpty() || allowance == 0) {
        held.add(new Held(bytes, promise));
      } else if (bytes.readableBytes() <= allowance) {
        outputAllowance = allowance - bytes.readableBytes();
        ctx.write(msg, promise);
      } else {
        outputAllowance = 0;
        ctx.write(bytes.readRetainedSlice((int) allowance));
        held.add(new Held(bytes, promise)); // what is left of it
      }
    }

    /** Writes what was held, from the event loop; waits until it is written. */
    void release() throws InterruptedException {
      ChannelHandlerContext c = ctx;
      if (c == null || !c.channel().isActive()) {
        return;
      }
      c.executor()
          .submit(
              () -> {
                for (Held h; (h = held.poll()) != null; ) {
                  c.write(h.bytes(), h.promise());
                }
                c.flush();
              })
          .sync();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      for (Held h; (h = held.poll()) != null; ) {
        h.bytes().release();
        h.promise().tryFailure(new IllegalStateException("the connection ended while held"));
      }
    }
  }

  /** One connection: decodes requests, writes canned responses. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final CannedResponses canned = new CannedResponses(version);

    /** v4 LZ4 bodies from READY on (ScyllaDB) or after it (Cassandra). */
    private boolean compressing;

    /** Set when the handler is added, before any request. */
    private volatile ChannelHandlerContext ctx;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    /** Writes the answers of the held requests from the event loop; waits until written. */
    void answerHeld() throws InterruptedException {
      ChannelHandlerContext c = ctx;
      if (c == null || !c.channel().isActive()) {
        return;
      }
      c.executor()
          .submit(
              () -> {
                for (CannedResponses.Response r : canned.releaseHeld()) {
                  c.write(envelope(c, r));
                }
                c.flush();
              })
          .sync();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame frame = (Frame) msg;
      DecodedRequest request;
      try {
        if (scylla && frame.version() > version) {
          // server.cc: "Invalid or unsupported protocol version", stream 0, this version's header
          ctx.writeAndFlush(
              envelope(
                  ctx,
                  CannedResponses.error(
                      0, 0x000A, "Invalid or unsupported protocol version: " + frame.version())));
          return;
        }
        if (frame.opcode() == Opcode.AUTH_RESPONSE) {
          authenticate(ctx, frame);
          return;
        }
        request = DecodedRequest.decode(frame, canned.metadataIds());
      } finally {
        frame.release();
      }
      requests.add(request);
      if (request.opcode() == Opcode.OPTIONS) {
        ctx.writeAndFlush(
            envelope(
                ctx,
                new CannedResponses.Response(
                    request.streamId(), Opcode.SUPPORTED, stringMultimap(supported))));
      } else if (request.opcode() == Opcode.STARTUP) {
        if (scylla) {
          canned.negotiate(request.options());
        }
        startup(ctx, request);
      } else if (request.opcode() == Opcode.QUERY && "CLOSE".equals(request.query())) {
        ctx.close();
      } else if (request.opcode() == Opcode.QUERY && rawAnswer(request) != null) {
        ctx.writeAndFlush(ctx.alloc().buffer().writeBytes(rawAnswer(request)));
      } else {
        for (CannedResponses.Response r : canned.answer(request)) {
          ctx.write(envelope(ctx, r));
        }
        ctx.flush();
      }
    }

    private void startup(ChannelHandlerContext ctx, DecodedRequest request) {
      if (refuseStartup || refuseStartupWith != null) {
        ctx.writeAndFlush(
            envelope(
                ctx,
                CannedResponses.error(
                    request.streamId(),
                    0x000A,
                    refuseStartupWith != null ? refuseStartupWith : "refused by the test")));
        return;
      }
      if (password != null) {
        // AUTHENTICATE ends the unframed handshake as READY does (native_protocol_v5.spec 2.3.1)
        compressing = true;
        ctx.writeAndFlush(
            envelope(
                ctx,
                new CannedResponses.Response(
                    request.streamId(),
                    Opcode.AUTHENTICATE,
                    0,
                    CqlBytes.create()
                        .string("org.apache.cassandra.auth.PasswordAuthenticator")
                        .toArray())));
        if (version >= 5) {
          CqlPipeline.get(ctx.channel()).switchToSegments();
        }
        return;
      }
      // READY goes out unframed; on v5 everything after it is in segments. ScyllaDB compresses
      // READY itself (server.cc), Cassandra only what follows it.
      compressing = scylla;
      ctx.writeAndFlush(
          envelope(
              ctx, new CannedResponses.Response(request.streamId(), Opcode.READY, new byte[0])));
      compressing = true;
      if (version >= 5) {
        CqlPipeline.get(ctx.channel()).switchToSegments();
      }
    }

    private byte[] rawAnswer(DecodedRequest request) {
      BiFunction<Integer, String, byte[]> answers = rawAnswers;
      return answers == null ? null : answers.apply(request.streamId(), request.query());
    }

    /** AUTH_RESPONSE: AUTH_SUCCESS for the right SASL PLAIN token, else bad credentials. */
    private void authenticate(ChannelHandlerContext ctx, Frame frame) {
      ByteBuf body = frame.body();
      int length = body.getInt(body.readerIndex());
      byte[] token = new byte[Math.max(length, 0)];
      body.getBytes(body.readerIndex() + 4, token);
      authTokens.add(token);
      byte[] expected = ("\0cassandra\0" + password).getBytes(StandardCharsets.UTF_8);
      ctx.writeAndFlush(
          envelope(
              ctx,
              Arrays.equals(token, expected)
                  ? new CannedResponses.Response(
                      frame.streamId(),
                      Opcode.AUTH_SUCCESS,
                      0,
                      CqlBytes.create().int32(-1).toArray())
                  : CannedResponses.error(
                      frame.streamId(),
                      0x0100,
                      "Provided username cassandra and/or password are incorrect")));
    }

    /** A response envelope; v4 LZ4 bodies compressed. The caller owns it and writes it. */
    private ByteBuf envelope(ChannelHandlerContext ctx, CannedResponses.Response r) {
      boolean compress = compressing && version < 5 && compression == Compression.LZ4;
      ByteBuf body = ctx.alloc().buffer(r.body().length).writeBytes(r.body());
      if (compress) {
        ByteBuf compressed = Compressors.lz4Body(ctx.alloc(), body);
        body.release();
        body = compressed;
      }
      ByteBuf out = ctx.alloc().buffer(9 + body.readableBytes());
      out.writeByte(0x80 | version)
          .writeByte((compress ? Frame.FLAG_COMPRESSION : 0) | r.flags())
          .writeShort(r.streamId())
          .writeByte(r.opcode().code())
          .writeInt(body.readableBytes())
          .writeBytes(body);
      body.release();
      return out;
    }
  }

  /** A {@code [string multimap]}. */
  private static byte[] stringMultimap(Map<String, List<String>> map) {
    CqlBytes b = CqlBytes.create().int16(map.size());
    map.forEach(
        (k, values) -> {
          b.string(k).int16(values.size());
          values.forEach(b::string);
        });
    return b.toArray();
  }
}
