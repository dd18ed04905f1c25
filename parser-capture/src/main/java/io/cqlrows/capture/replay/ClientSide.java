package io.cqlrows.capture.replay;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The client side of a replayed connection: its requests, first-in first-out per stream, and the
 * extensions its STARTUP named. Single-threaded.
 */
final class ClientSide {
  private final Map<Integer, ArrayDeque<Request>> byStream = new HashMap<>();

  /** The assumed features until a STARTUP is read, then that STARTUP's. */
  ProtocolFeatures features;

  ClientSide(ProtocolFeatures assumed) {
    this.features = Objects.requireNonNull(assumed, "assumed");
  }

  void read(byte[] bytes, boolean midStream, ParseLimits limits, ReplayListener listener) {
    ConnectionReplay.feed(
        bytes,
        midStream,
        true,
        limits,
        new ChannelInboundHandlerAdapter() {
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
        },
        listener);
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
