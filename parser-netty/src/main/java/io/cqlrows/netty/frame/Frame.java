package io.cqlrows.netty.frame;

import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One decoded CQL frame ("envelope" in v5): the 9-byte header (native_protocol_v4.spec section 2,
 * native_protocol_v5.spec section 2.4), the decoded prelude (section 4 of both) and the message
 * body after the prelude.
 *
 * <p><b>Ownership.</b> A frame is reference counted and owns its body: whoever receives a frame
 * (from a {@code channelRead}, or from the constructor) releases it exactly once, which releases
 * the body. {@link #body()} is Borrowed: valid while the frame is; {@code retainedSlice} it to keep
 * it longer.
 *
 * <p><b>Threading.</b> Header fields and the prelude are immutable; reference counting is
 * thread-safe, reading the body is not.
 */
public final class Frame extends AbstractReferenceCounted {
  /** Header flag 0x01: the body is compressed (v3/v4; deprecated and ignored in v5). */
  public static final int FLAG_COMPRESSION = 0x01;

  /** Header flag 0x02: tracing requested, and in a response a tracing id precedes the body. */
  public static final int FLAG_TRACING = 0x02;

  /** Header flag 0x04: a custom payload ({@code [bytes map]}) precedes the body (v4+). */
  public static final int FLAG_CUSTOM_PAYLOAD = 0x04;

  /** Header flag 0x08: warnings ({@code [string list]}) precede the body (v4+). */
  public static final int FLAG_WARNING = 0x08;

  /** Header flag 0x10: the client opts in to a beta protocol version (v5+). */
  public static final int FLAG_USE_BETA = 0x10;

  /** Protocol version, 1-127, without the direction bit. */
  private final int version;

  /** Bit 7 of the version byte: a server-to-client frame. */
  private final boolean response;

  /** The header flags byte, as sent. */
  private final int flags;

  /** The stream id, signed (server-initiated events use -1). */
  private final int streamId;

  /** The message kind. */
  private final Opcode opcode;

  /** Tracing id, warnings and custom payload. */
  private final FramePrelude prelude;

  /** The message body after the prelude; owned by this frame. */
  private final ByteBuf body;

  /** Offset of the body's first byte in the connection's byte stream, or -1. */
  private final long bodyOffset;

  /**
   * A frame without prelude whose position in a connection is unknown (tests, hand-built frames).
   *
   * @param body the message body. The frame takes it over: whoever owns the frame releases the
   *     frame, which releases the body; nobody releases the body on its own.
   */
  public Frame(
      int version, boolean response, int flags, int streamId, Opcode opcode, ByteBuf body) {
    this(version, response, flags, streamId, opcode, FramePrelude.NONE, body, -1);
  }

  /**
   * A decoded frame.
   *
   * @param version protocol version, 1-127, without the direction bit
   * @param response whether bit 7 (direction) of the version byte is set
   * @param flags the header flags byte
   * @param streamId the stream id, -32768 to 32767
   * @param opcode the message kind
   * @param prelude the decoded prelude, {@link FramePrelude#NONE} if none
   * @param body the message body after the prelude. The frame takes it over: whoever owns the frame
   *     releases the frame, which releases the body; nobody releases the body on its own.
   * @param bodyOffset offset of the body's first byte in the connection's byte stream, or -1
   */
  public Frame(
      int version,
      boolean response,
      int flags,
      int streamId,
      Opcode opcode,
      FramePrelude prelude,
      ByteBuf body,
      long bodyOffset) {
    if (version < 1 || version > 127) {
      throw new IllegalArgumentException("version: " + version + " (expected: 1-127)");
    }
    if (streamId != (short) streamId) {
      throw new IllegalArgumentException("streamId: " + streamId + " (expected: a signed short)");
    }
    this.version = version;
    this.response = response;
    this.flags = flags & 0xFF;
    this.streamId = streamId;
    this.opcode = Objects.requireNonNull(opcode, "opcode");
    this.prelude = Objects.requireNonNull(prelude, "prelude");
    this.body = Objects.requireNonNull(body, "body");
    this.bodyOffset = bodyOffset;
  }

  /** The protocol version: 3, 4, 5 or 6 for frames from the cqlrows decoders. */
  public int version() {
    return version;
  }

  /** True for a server-to-client frame (bit 7 of the version byte). */
  public boolean isResponse() {
    return response;
  }

  /** The header flags byte ({@code FLAG_*}). */
  public int flags() {
    return flags;
  }

  /** The stream id; -1 for server-initiated events. */
  public int streamId() {
    return streamId;
  }

  /** The message kind. */
  public Opcode opcode() {
    return opcode;
  }

  /** The decoded prelude. */
  public FramePrelude prelude() {
    return prelude;
  }

  /** The tracing id, or {@code null}. */
  public UUID tracingId() {
    return prelude.tracingId();
  }

  /** The warnings, empty if none. */
  public List<String> warnings() {
    return prelude.warnings();
  }

  /** The custom payload, empty if none; values are null for a negative length. */
  public Map<String, byte[]> customPayload() {
    return prelude.customPayload();
  }

  /**
   * The message body after the prelude, from its reader index to its writer index.
   *
   * @return the body. Borrowed: valid until the frame is released.
   */
  public ByteBuf body() {
    return body;
  }

  /** Offset of the body's first byte in the connection's inbound byte stream, or -1. */
  public long bodyOffset() {
    return bodyOffset;
  }

  @Override
  public Frame retain() {
    super.retain();
    return this;
  }

  @Override
  public Frame retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public Frame touch() {
    super.touch();
    return this;
  }

  @Override
  public Frame touch(Object hint) {
    body.touch(hint);
    return this;
  }

  @Override
  protected void deallocate() {
    body.release();
  }

  @Override
  public String toString() {
    return "Frame(v"
        + version
        + (response ? " response" : " request")
        + ", stream "
        + streamId
        + ", "
        + opcode
        + ", flags 0x"
        + Integer.toHexString(flags)
        + ", body "
        + (refCnt() > 0 ? body.readableBytes() + " bytes" : "released")
        + ')';
  }
}
