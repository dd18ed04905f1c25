package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FramePrelude;
import io.cqlrows.netty.frame.Opcode;
import java.util.Objects;

/**
 * The start of a RESULT frame whose body follows in {@link FrameChunk}s as its bytes arrive: the
 * header and the decoded prelude, without the body. Emitted instead of a {@link Frame} by a decoder
 * asked to {@linkplain BytesToFrameDecoder#streamResultsFrom stream large results}, for
 * uncompressed v3/v4 frames and for v5 envelopes split across segments (compressed or not). The
 * chunks that follow, up to the one marked {@link FrameChunk#isLast() last}, are this frame's body,
 * with nothing in between.
 *
 * <p>Holds no buffer: not reference counted. Immutable.
 *
 * @param version protocol version, without the direction bit
 * @param response whether the direction bit is set (always, for a RESULT)
 * @param flags the header flags byte
 * @param streamId the stream id
 * @param opcode the message kind ({@link Opcode#RESULT})
 * @param prelude tracing id, warnings and custom payload, {@link FramePrelude#NONE} if none
 * @param bodyLength the length of the message body after the prelude: the chunks' total
 * @param bodyOffset offset of the body's first byte in the connection's byte stream, or -1
 */
public record FrameHead(
    int version,
    boolean response,
    int flags,
    int streamId,
    Opcode opcode,
    FramePrelude prelude,
    int bodyLength,
    long bodyOffset) {
  public FrameHead {
    Objects.requireNonNull(opcode, "opcode");
    Objects.requireNonNull(prelude, "prelude");
    if (bodyLength < 0) {
      throw new IllegalArgumentException("bodyLength: " + bodyLength + " (expected: >= 0)");
    }
  }
}
