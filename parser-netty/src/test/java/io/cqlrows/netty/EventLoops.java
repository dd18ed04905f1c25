package io.cqlrows.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;

/**
 * Event loop groups for tests that run on Netty 4.1 and 4.2 alike.
 *
 * <p>{@link NioEventLoopGroup} exists on both lines. Netty 4.2 deprecates it in favour of {@code
 * new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory())}, which 4.1 does not have, so the
 * tests use the deprecated class, here and only here.
 */
public final class EventLoops {
  private EventLoops() {}

  /** An NIO group of {@code threads} threads; the caller shuts it down. */
  @SuppressWarnings("deprecation")
  public static EventLoopGroup nio(int threads) {
    return new NioEventLoopGroup(threads);
  }
}
