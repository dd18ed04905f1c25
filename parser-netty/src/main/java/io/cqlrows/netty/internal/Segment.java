package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One v5 segment's (decompressed) payload (native_protocol_v5.spec sections 1 and 2): either one or
 * more whole envelopes ({@link #selfContained()}), or a slice of one large envelope. Emitted by
 * {@link BytesToSegmentDecoder} and consumed by {@link SegmentToFrameDecoder}.
 *
 * <p>Reference counted: whoever receives a segment releases it.
 */
public final class Segment extends DefaultByteBufHolder {
  /** Whether the payload holds whole envelopes only. */
  private final boolean selfContained;

  /** The payload's length on the wire: the LZ4 block's when it was compressed. */
  private final int wireLength;

  /** Offset of the segment's header in the connection's inbound stream, or -1. */
  private final long offset;

  /**
   * A segment that was not compressed, whose place in the connection is unknown.
   *
   * @param payload the payload. The segment takes it over: releasing the segment releases it.
   * @param selfContained whether the payload holds whole envelopes only
   */
  public Segment(ByteBuf payload, boolean selfContained) {
    this(payload, selfContained, payload.readableBytes(), -1);
  }

  /**
   * A segment.
   *
   * @param payload the payload. The segment takes it over: releasing the segment releases it.
   * @param selfContained whether the payload holds whole envelopes only
   * @param wireLength the payload's length on the wire: the LZ4 block's length when the payload was
   *     decompressed from one, its own length when it was stored as is
   * @param offset offset of the segment's header in the connection's inbound stream, or -1
   */
  public Segment(ByteBuf payload, boolean selfContained, int wireLength, long offset) {
    super(payload);
    this.selfContained = selfContained;
    this.wireLength = wireLength;
    this.offset = offset;
  }

  /** The payload (decompressed). Valid while the segment is not released. */
  public ByteBuf payload() {
    return content();
  }

  /** Whether the payload holds one or more whole envelopes (else: a slice of one envelope). */
  public boolean selfContained() {
    return selfContained;
  }

  /**
   * The bytes decompression added to the payload: its length less its length on the wire (0 for a
   * payload stored as is). They were not paid for on the wire, so they count against {@link
   * io.cqlrows.core.ParseLimits#maxDecompressedLength()} when an envelope is gathered from them.
   */
  public int gain() {
    return Math.max(0, content().readableBytes() - wireLength);
  }

  /** Offset of the segment's header in the connection's inbound stream, or -1 if unknown. */
  public long offset() {
    return offset;
  }

  @Override
  public Segment replace(ByteBuf content) {
    return new Segment(content, selfContained, wireLength, offset);
  }

  @Override
  public String toString() {
    return "Segment("
        + content().readableBytes()
        + " bytes"
        + (wireLength != content().readableBytes() ? ", " + wireLength + " on the wire" : "")
        + (selfContained ? ", self-contained)" : ", slice)");
  }
}
