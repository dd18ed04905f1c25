package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * The next bytes of the body announced by the last {@link FrameHead}: emitted as they arrive.
 *
 * <p><b>Ownership.</b> Reference counted: whoever receives a chunk releases it exactly once (which
 * releases its content), or passes it on.
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
