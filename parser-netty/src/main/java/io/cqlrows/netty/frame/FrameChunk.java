package io.cqlrows.netty.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * The next bytes of the body announced by the last {@link FrameHead} of the same channel, emitted
 * as they arrive; the one marked {@link #isLast() last} ends the body. Like Netty's {@code
 * HttpContent}, it is a {@link io.netty.buffer.ByteBufHolder}.
 *
 * <p><b>Ownership.</b> A chunk is reference counted. The handler that receives one owns it: it
 * either releases it exactly once, which releases its content, or passes it on to the next handler,
 * which then owns it.
 */
public final class FrameChunk extends DefaultByteBufHolder {
  private final int streamId;
  private final boolean last;

  /**
   * A chunk.
   *
   * @param streamId the stream id of its frame
   * @param content the bytes. The chunk takes them over: releasing the chunk releases them.
   * @param last whether it ends its frame's body
   */
  public FrameChunk(int streamId, ByteBuf content, boolean last) {
    super(content);
    this.streamId = streamId;
    this.last = last;
  }

  /** The stream id of the frame this chunk belongs to. */
  public int streamId() {
    return streamId;
  }

  /** Whether this chunk ends its frame's body. */
  public boolean isLast() {
    return last;
  }

  @Override
  public FrameChunk replace(ByteBuf content) {
    return new FrameChunk(streamId, content, last);
  }

  @Override
  public String toString() {
    return "FrameChunk(stream "
        + streamId
        + ", "
        + content().readableBytes()
        + " bytes"
        + (last ? ", last)" : ")");
  }
}
