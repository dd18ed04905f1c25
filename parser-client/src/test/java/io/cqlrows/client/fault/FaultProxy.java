package io.cqlrows.client.fault;

import io.cqlrows.netty.EventLoops;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A TCP proxy for tests that injects {@link Fault}s into CQL connections: it listens on 127.0.0.1
 * (an ephemeral port) and forwards each connection it accepts to an upstream server (the live
 * Cassandra, or a test's own), both ways, byte for byte unless a fault says otherwise. It follows
 * the server's framing ({@link ServerStream}: v3/v4 frames, v5 envelopes and segments, LZ4 or not,
 * known from the client's STARTUP) so that faults fall on protocol boundaries; the client's bytes
 * are passed on unchanged.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(server.host(), server.port())) {
 *   Fault cut = Fault.cutAfterResponses(2); // the first answer after OPTIONS and STARTUP
 *   proxy.faultNextConnection(cut);
 *   CqlClient client = CqlClient.connect(proxy.host(), proxy.port(), 5, LZ4, group).get();
 *   CompletableFuture<QueryResult> query = client.query("SELECT ...", sink, 0, null);
 *   cut.fired().get(10, SECONDS); // the client got half a response, then FIN
 * }
 * }</pre>
 *
 * <p>Faults are armed for the next connection ({@link #faultNextConnection}) or at run time ({@link
 * #fault}: on the connections open now, counting their responses from now, and on those accepted
 * later until it fires). One fault at a time per connection: arming another replaces an armed one
 * that has not fired. A process killed mid-response is {@link ProxyProcess}: this class's {@link
 * #main} in a child JVM.
 *
 * <p>Ownership: the proxy owns its one event loop thread, its channels and every buffer in flight;
 * {@link #close()} closes all connections, releases what they hold and ends the thread. Threading:
 * all I/O runs on that thread; every public method may be called from any thread.
 */
public final class FaultProxy implements AutoCloseable {
  private static final int DRIP_HIGH = 64 * 1024;
  private static final int DRIP_LOW = 16 * 1024;
  private static final int STARTUP_LIMIT = 64 * 1024;
  private static final long RESET_DELAY_MILLIS = 20;

  /** How long {@link #main} runs at most. */
  private static final long MAX_CHILD_MINUTES = 10;

  private final InetSocketAddress upstream;
  private final EventLoopGroup group;
  private final Channel server;
  private final Set<Connection> open = ConcurrentHashMap.newKeySet();
  private final AtomicReference<Fault> next = new AtomicReference<>();
  private final AtomicReference<Fault> global = new AtomicReference<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicLong toServer = new AtomicLong();
  private final AtomicLong toClient = new AtomicLong();
  private final AtomicLong responses = new AtomicLong();

  private FaultProxy(InetSocketAddress upstream) throws InterruptedException {
    this.upstream = upstream;
    this.group = EventLoops.nio(1);
    try {
      server =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.AUTO_READ, false)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      ch.pipeline().addLast(new Connection(accepted.getAndIncrement()).clientSide);
                    }
                  })
              .bind(new InetSocketAddress(loopback(), 0))
              .sync()
              .channel();
    } catch (InterruptedException | RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** Starts a proxy to {@code host}:{@code port}; call {@link #close()}. */
  public static FaultProxy start(String host, int port) throws InterruptedException {
    return new FaultProxy(new InetSocketAddress(host, port));
  }

  /** {@code 127.0.0.1}. */
  public String host() {
    return "127.0.0.1";
  }

  /** The port the proxy listens on. */
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(host(), port());
  }

  /** Arms {@code fault} on the next connection accepted, counting from its first response. */
  public void faultNextConnection(Fault fault) {
    next.set(fault);
  }

  /**
   * Arms {@code fault} on every open connection (its responses counted from now) and on every
   * connection accepted later, until it fires. Returns once it is armed on the open ones (at most 5
   * s later), so that the server's next bytes are subject to it.
   */
  public void fault(Fault fault) throws InterruptedException {
    global.set(fault);
    onOpenConnections(c -> c.stream.arm(fault));
  }

  /**
   * Disarms every fault that has not fired, and returns once that is done on the open connections
   * (at most 5 s later); a drip or stall in progress goes on.
   */
  public void clearFaults() throws InterruptedException {
    next.set(null);
    global.set(null);
    onOpenConnections(c -> c.stream.disarm());
  }

  /** Runs {@code action} on the event loop for each open connection; waits up to 5 s. */
  private void onOpenConnections(Consumer<Connection> action) throws InterruptedException {
    List<Future<?>> done = new ArrayList<>();
    for (Connection c : open) {
      if (c.client.eventLoop().inEventLoop()) {
        action.accept(c);
      } else {
        done.add(c.client.eventLoop().submit(() -> action.accept(c)));
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Future<?> f : done) {
      f.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
  }

  /** Connections accepted so far. */
  public int connectionsAccepted() {
    return accepted.get();
  }

  /** Connections open now (client side). */
  public int openConnections() {
    return open.size();
  }

  /** Bytes passed from clients to the server so far. */
  public long bytesToServer() {
    return toServer.get();
  }

  /** Bytes passed from the server to clients so far (as sent, faults applied). */
  public long bytesToClient() {
    return toClient.get();
  }

  /** Responses (frames, envelopes) the server began to send, on all connections. */
  public long responsesSeen() {
    return responses.get();
  }

  /**
   * Closes every connection and the listening socket, and ends the event loop thread (waits up to 5
   * s). Idempotent; keeps an interrupt in the thread's status.
   */
  @Override
  public void close() {
    try {
      server.close().await(5, TimeUnit.SECONDS);
      for (Connection c : open) {
        c.client.close();
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy 127.0.0.1:" + port() + " -> " + upstream;
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByName("127.0.0.1");
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One proxied connection: the client's channel, the upstream channel, the server stream. */
  private final class Connection implements ServerStream.Output {
    private final int id;
    private final ClientSide clientSide = new ClientSide();
    private Channel client;
    private Channel upstreamChannel;
    private ServerStream stream;
    private ByteBuf startup; // the client's first bytes, until its STARTUP was read
    private boolean stalled;
    private boolean upstreamClosed;
    private Fault drip;
    private ByteBuf dripQueue;
    private ScheduledFuture<?> dripTask;
    private boolean closed;

    Connection(int id) {
      this.id = id;
    }

    @Override
    public int connection() {
      return id;
    }

    @Override
    public void forward(ByteBuf bytes) {
      if (closed) {
        bytes.release();
        return;
      }
      if (drip != null) {
        dripQueue.writeBytes(bytes);
        bytes.release();
        if (dripQueue.readableBytes() > DRIP_HIGH) {
          upstreamChannel.config().setAutoRead(false);
        }
        return;
      }
      toClient.addAndGet(bytes.readableBytes());
      client.write(bytes, client.voidPromise());
    }

    @Override
    public void terminate(Fault.Kind kind) {
      switch (kind) {
        case CUT -> client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> closeBoth());
        case RESET ->
            client
                .writeAndFlush(Unpooled.EMPTY_BUFFER)
                .addListener(
                    f ->
                        client
                            .eventLoop()
                            .schedule(
                                () -> {
                                  client.config().setOption(ChannelOption.SO_LINGER, 0);
                                  closeBoth();
                                },
                                RESET_DELAY_MILLIS,
                                TimeUnit.MILLISECONDS));
        case STALL -> {
          client.flush();
          stalled = true;
          upstreamChannel.config().setAutoRead(false);
        }
        default -> throw new IllegalArgumentException(kind.toString());
      }
    }

    @Override
    public void startDrip(Fault fault) {
      if (drip == null) {
        drip = fault;
        dripQueue = client.alloc().heapBuffer();
        long millis = fault.delay().toMillis();
        dripTask =
            client
                .eventLoop()
                .scheduleWithFixedDelay(this::dripOnce, millis, millis, TimeUnit.MILLISECONDS);
      }
    }

    private void dripOnce() {
      if (closed) {
        return;
      }
      int n = Math.min(drip.chunkBytes(), dripQueue.readableBytes());
      if (n > 0) {
        toClient.addAndGet(n);
        client.writeAndFlush(client.alloc().buffer(n).writeBytes(dripQueue, n));
        dripQueue.discardSomeReadBytes();
      }
      if (dripQueue.readableBytes() < DRIP_LOW
          && !stalled
          && !upstreamClosed
          && client.isWritable()) {
        upstreamChannel.config().setAutoRead(true);
      }
      if (upstreamClosed && !dripQueue.isReadable()) {
        closeBoth();
      }
    }

    private void closeBoth() {
      if (client != null) {
        client.close();
      }
      if (upstreamChannel != null) {
        upstreamChannel.close();
      }
    }

    /** Frees everything; runs once, when the client's channel is inactive. */
    private void release() {
      closed = true;
      open.remove(this);
      if (dripTask != null) {
        dripTask.cancel(false);
      }
      if (dripQueue != null) {
        dripQueue.release();
        dripQueue = null;
      }
      if (startup != null) {
        startup.release();
        startup = null;
      }
      if (stream != null) {
        stream.release();
      }
    }

    /** Reads the client's unframed envelopes up to its STARTUP, for its COMPRESSION. */
    private void watchStartup(ByteBuf in) {
      startup.writeBytes(
          in,
          in.readerIndex(),
          Math.min(in.readableBytes(), STARTUP_LIMIT - startup.readableBytes()));
      int guard = 64;
      while (startup != null && startup.readableBytes() >= 9 && guard-- > 0) {
        int r = startup.readerIndex();
        int opcode = startup.getUnsignedByte(r + 4);
        long length = startup.getUnsignedInt(r + 5);
        if (length > STARTUP_LIMIT - 9) {
          stopWatching();
          return;
        }
        if (startup.readableBytes() < 9 + length) {
          break;
        }
        if (opcode == 0x01) {
          stream.lz4(startupAsksLz4(startup.slice(r + 9, (int) length)));
          stopWatching();
          return;
        }
        startup.skipBytes(9 + (int) length);
      }
      if (startup != null && (startup.readableBytes() >= STARTUP_LIMIT || guard < 0)) {
        stopWatching();
      }
    }

    private void stopWatching() {
      startup.release();
      startup = null;
    }

    /** The client's side: accepted channel. */
    private final class ClientSide extends ChannelInboundHandlerAdapter {
      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        client = ctx.channel();
        stream = new ServerStream(client.alloc(), Connection.this, responses);
        startup = client.alloc().heapBuffer();
        open.add(Connection.this);
        Fault first = next.getAndSet(null);
        Fault always = global.get();
        if (first != null) {
          stream.arm(first);
        } else if (always != null && !always.hasFired()) {
          stream.arm(always);
        }
        new Bootstrap()
            .group(client.eventLoop())
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.AUTO_READ, false)
            .handler(new UpstreamSide())
            .connect(upstream)
            .addListener(
                (ChannelFutureListener)
                    f -> {
                      if (f.isSuccess()) {
                        upstreamChannel = f.channel();
                        upstreamChannel.config().setAutoRead(true);
                        client.config().setAutoRead(true);
                      } else {
                        client.close();
                      }
                    });
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf) || closed || upstreamChannel == null) {
          ReferenceCountUtil.release(msg);
          return;
        }
        if (startup != null) {
          watchStartup(buf);
        }
        toServer.addAndGet(buf.readableBytes());
        upstreamChannel.writeAndFlush(buf, upstreamChannel.voidPromise());
        if (!upstreamChannel.isWritable()) {
          client.config().setAutoRead(false);
        }
      }

      @Override
      public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (client.isWritable()
            && upstreamChannel != null
            && !stalled
            && (dripQueue == null || dripQueue.readableBytes() < DRIP_LOW)) {
          upstreamChannel.config().setAutoRead(true);
        }
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        release();
        if (upstreamChannel != null) {
          upstreamChannel.close();
        }
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        closeBoth();
      }
    }

    /** The server's side: the channel to upstream. */
    private final class UpstreamSide extends ChannelInboundHandlerAdapter {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf) || closed || stalled) {
          ReferenceCountUtil.release(msg);
          return;
        }
        stream.read(buf);
        if (!closed) {
          client.flush();
          if (!client.isWritable() && !stalled) {
            upstreamChannel.config().setAutoRead(false);
          }
        }
      }

      @Override
      public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && client != null) {
          client.config().setAutoRead(true);
        }
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        upstreamClosed = true;
        if (drip == null || dripQueue == null || !dripQueue.isReadable()) {
          client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        closeBoth();
      }
    }
  }

  /** Whether a STARTUP body (a [string map]) has {@code COMPRESSION} = {@code lz4}. */
  static boolean startupAsksLz4(ByteBuf body) {
    try {
      int n = body.readUnsignedShort();
      for (int i = 0; i < n; i++) {
        String key =
            body.readCharSequence(body.readUnsignedShort(), StandardCharsets.UTF_8).toString();
        String value =
            body.readCharSequence(body.readUnsignedShort(), StandardCharsets.UTF_8).toString();
        if (key.equalsIgnoreCase("COMPRESSION")) {
          return value.equalsIgnoreCase("lz4");
        }
      }
    } catch (IndexOutOfBoundsException e) {
      // not a string map: no compression asked for
    }
    return false;
  }

  /**
   * Runs a proxy in this process, for {@link ProxyProcess}: arguments upstream host, upstream port,
   * and optionally a fault kind ({@link Fault.Kind} name) and its {@code afterResponses} for the
   * first connection. Prints {@code PORT <port>}, then {@code FIRED <response>} when the fault
   * fires, one line each; ends when its standard input closes (its parent ended or closed it), when
   * it is killed, or after 10 minutes.
   */
  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (FaultProxy proxy = start(args[0], Integer.parseInt(args[1]))) {
      if (args.length >= 4) {
        Fault fault = fault(Fault.Kind.valueOf(args[2]), Integer.parseInt(args[3]));
        fault.fired().thenAccept(f -> out.println("FIRED " + f.response()));
        proxy.faultNextConnection(fault);
      }
      out.println("PORT " + proxy.port());
      // Lifeline: the parent holds our stdin open while it wants us running.
      CountDownLatch stdinClosed = new CountDownLatch(1);
      Thread reader =
          new Thread(
              () -> {
                byte[] sink = new byte[256];
                try (InputStream in = System.in) {
                  while (in.read(sink) >= 0) {
                    // nothing is sent; any bytes are ignored
                  }
                } catch (IOException e) {
                  // the parent is gone
                }
                stdinClosed.countDown();
              },
              "stdin");
      reader.setDaemon(true);
      reader.start();
      if (!stdinClosed.await(MAX_CHILD_MINUTES, TimeUnit.MINUTES)) {
        out.println("EXPIRED after " + MAX_CHILD_MINUTES + " minutes");
      }
    }
  }

  /** A fault of {@code kind} (a drip: 1 byte every 10 ms). */
  static Fault fault(Fault.Kind kind, int afterResponses) {
    return switch (kind) {
      case CUT -> Fault.cutAfterResponses(afterResponses);
      case RESET -> Fault.resetAfterResponses(afterResponses);
      case STALL -> Fault.stallAfterResponses(afterResponses);
      case DRIP -> Fault.dripAfterResponses(afterResponses, 1, Duration.ofMillis(10));
      case DROP -> Fault.dropAfterResponses(afterResponses);
      case OVERSIZE -> Fault.oversizeAfterResponses(afterResponses);
      case BITFLIP -> Fault.bitflipAfterResponses(afterResponses);
    };
  }
}
