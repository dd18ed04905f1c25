package io.cqlrows.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * An allocator that remembers every buffer it hands out, so a test can check each was released
 * ({@code refCnt() == 0}) right away rather than wait for the garbage collector and the leak
 * detector. Unpooled, without leak tracking (the check here replaces it). Slices and duplicates
 * share their parent's count, so checking the parents covers them. Not thread-safe: one per {@code
 * EmbeddedChannel}.
 */
public final class TrackingAllocator extends AbstractByteBufAllocator {
  private final UnpooledByteBufAllocator delegate = new UnpooledByteBufAllocator(false, true);
  private final List<ByteBuf> allocated = new ArrayList<>();

  public TrackingAllocator() {
    super(false);
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.heapBuffer(initialCapacity, maxCapacity));
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.directBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    return track(new CompositeByteBuf(this, false, maxNumComponents));
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return track(new CompositeByteBuf(this, true, maxNumComponents));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  private <T extends ByteBuf> T track(T buf) {
    allocated.add(buf);
    return buf;
  }

  /** Buffers handed out so far. */
  public int count() {
    return allocated.size();
  }

  /**
   * The largest capacity of a non-composite buffer handed out so far (a composite's components are
   * buffers handed out, or the inputs), or 0.
   */
  public int largestCapacity() {
    int largest = 0;
    for (ByteBuf b : allocated) {
      if (!(b instanceof CompositeByteBuf)) {
        largest = Math.max(largest, b.capacity());
      }
    }
    return largest;
  }

  /** Describes the buffers still referenced, or returns null if all were released. */
  public String unreleased() {
    StringBuilder sb = null;
    for (int i = 0; i < allocated.size(); i++) {
      ByteBuf b = allocated.get(i);
      if (b.refCnt() != 0) {
        sb = sb == null ? new StringBuilder() : sb.append(", ");
        sb.append("#")
            .append(i)
            .append(' ')
            .append(b.getClass().getSimpleName())
            .append(" refCnt ")
            .append(b.refCnt())
            .append(" capacity ")
            .append(b.capacity());
      }
    }
    return sb == null ? null : sb.toString();
  }
}
