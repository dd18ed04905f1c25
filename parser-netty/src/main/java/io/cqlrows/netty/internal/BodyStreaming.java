package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.netty.buffer.ByteBuf;

/**
 * The streaming of large RESULT bodies, written once for the v3/v4 frame decoder and the v5
 * segment-to-frame decoder: which bodies stream (at least {@link #threshold()} bytes; 0 turns it
 * off), and how much of the body being streamed is still to come. A streamed body goes downstream
 * as a {@link FrameHead} and then {@link FrameChunk}s of its bytes as they arrive.
 *
 * <p>One instance per decoder; not thread-safe.
 */
final class BodyStreaming {
  /** RESULT bodies of at least this many bytes are streamed; 0: none is. */
  private int threshold;

  /** Bytes still to come of the body being streamed; 0 when none is. */
  private long left;

  /** Stream id of the body being streamed. */
  private int streamId;

  /**
   * Sets the smallest body streamed.
   *
   * @param minBodyBytes at least 1, or 0 for no streaming
   */
  void threshold(int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    this.threshold = minBodyBytes;
  }

  /** The smallest body streamed, or 0. */
  int threshold() {
    return threshold;
  }

  /** Whether a body is being streamed. */
  boolean active() {
    return left > 0;
  }

  /** Bytes still to come of the body being streamed. */
  long left() {
    return left;
  }

  /** A body starts streaming: returns its head, to fire. */
  FrameHead start(FrameHead head) {
    left = head.bodyLength();
    streamId = head.streamId();
    return head;
  }

  /**
   * The next {@code n} bytes of the body, at most {@link #left()}: a retained slice of {@code buf}
   * from {@code index}, as a chunk to fire. The caller owns the chunk and fires it (the handler
   * that receives it releases it); {@code buf} stays the caller's.
   */
  FrameChunk chunk(ByteBuf buf, int index, int n) {
    left -= n;
    return new FrameChunk(streamId, buf.retainedSlice(index, n), left == 0);
  }
}
