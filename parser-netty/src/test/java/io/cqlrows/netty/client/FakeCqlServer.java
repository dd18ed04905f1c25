package io.cqlrows.netty.client;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.compression.Compressors;
import io.cqlrows.netty.frame.BytesToFrameDecoder;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.frame.SegmentFormat;
import io.cqlrows.netty.request.DecodedRequest;
import io.cqlrows.netty.request.SegmentEncoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny CQL server on 127.0.0.1 for client tests, built from cqlrows' own decoders and encoders.
 * It answers STARTUP with READY (switching v5 to segments both ways) and each request by its text
 * ({@link CannedResponses}). v4 response bodies are LZ4-compressed when LZ4 was negotiated, as
 * Cassandra does. Every request it decodes is recorded.
 */
final class FakeCqlServer {
  private final int version;
  private final Compression compression;
  private final ChannelGroup children = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final Channel server;
  /** Every request received, in order, over all connections. */
  final List<DecodedRequest> requests = new CopyOnWriteArrayList<>();
  /** When set, STARTUP is answered with an ERROR. */
  volatile boolean refuseStartup;

  FakeCqlServer(EventLoopGroup group, int version, Compression compression)
      throws InterruptedException {
    this.version = version;
    this.compression = compression;
    this.server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            children.add(ch);
            Compression bodies = version >= 5 ? Compression.NONE : compression;
            ch.pipeline().addLast(CqlPipeline.BYTES_TO_FRAME_DECODER,
                new BytesToFrameDecoder(ParseLimits.defaults(), bodies));
            ch.pipeline().addLast(new Connection());
          }
        })
        .bind("127.0.0.1", 0).sync().channel();
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** The QUERY texts received so far. */
  List<String> queries() {
    List<String> out = new ArrayList<>();
    for (DecodedRequest r : requests) {
      if (r.opcode() == Opcode.QUERY) {
        out.add(r.query());
      }
    }
    return out;
  }

  /** Closes every connection and the server socket. */
  void close() throws InterruptedException {
    server.close().sync();
    children.close().sync();
  }

  /** One connection: decodes requests, writes canned responses. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final CannedResponses canned = new CannedResponses(version);

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame frame = (Frame) msg;
      DecodedRequest request;
      try {
        request = DecodedRequest.decode(frame);
      } finally {
        frame.release();
      }
      requests.add(request);
      if (request.opcode() == Opcode.STARTUP) {
        startup(ctx, request);
      } else if (request.opcode() == Opcode.QUERY && "CLOSE".equals(request.query())) {
        ctx.close();
      } else {
        for (CannedResponses.Response r : canned.answer(request)) {
          ctx.write(envelope(ctx, r));
        }
        ctx.flush();
      }
    }

    private void startup(ChannelHandlerContext ctx, DecodedRequest request) {
      if (refuseStartup) {
        ctx.writeAndFlush(envelope(ctx, CannedResponses.error(request.streamId(), 0x000A,
            "refused by the test")));
        return;
      }
      // READY goes out unframed; on v5 everything after it is in segments
      ctx.writeAndFlush(envelope(ctx, new CannedResponses.Response(request.streamId(),
          Opcode.READY, new byte[0])));
      if (version >= 5) {
        SegmentFormat format =
            compression == Compression.LZ4 ? SegmentFormat.LZ4 : SegmentFormat.UNCOMPRESSED;
        ctx.pipeline().addFirst(new SegmentEncoder(format));
        CqlPipeline.switchToSegments(ctx.pipeline(), format);
      }
    }

    /** A response envelope; v4 LZ4 bodies compressed. Ownership transferred. */
    private ByteBuf envelope(ChannelHandlerContext ctx, CannedResponses.Response r) {
      boolean compress = version < 5 && compression == Compression.LZ4;
      ByteBuf body = ctx.alloc().buffer(r.body().length).writeBytes(r.body());
      if (compress) {
        ByteBuf compressed = Compressors.lz4Body(ctx.alloc(), body);
        body.release();
        body = compressed;
      }
      ByteBuf out = ctx.alloc().buffer(9 + body.readableBytes());
      out.writeByte(0x80 | version).writeByte(compress ? Frame.FLAG_COMPRESSION : 0)
          .writeShort(r.streamId()).writeByte(r.opcode().code()).writeInt(body.readableBytes())
          .writeBytes(body);
      body.release();
      return out;
    }
  }
}
