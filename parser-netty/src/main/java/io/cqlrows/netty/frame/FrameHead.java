package io.cqlrows.netty.frame;

import java.util.Objects;

/**
 * The start of a RESULT frame whose body follows in {@link FrameChunk}s as its bytes arrive: the
 * header and the decoded prelude, without the body. The decoders emit it instead of a {@link Frame}
 * once they are asked to stream large results ({@code
 * io.cqlrows.netty.CqlPipeline#streamResultsFrom}, {@code
 * io.cqlrows.netty.CqlDecoders#streamResultsFrom}), for uncompressed v3/v4 frames and for v5
 * envelopes split across segments (compressed or not); smaller frames still arrive whole. The
 * chunks that follow on the same channel, up to the one marked {@link FrameChunk#isLast() last},
 * are this frame's body, with nothing in between.
 *
 * <p>A handler after the decoders sees these only when it sits where frames are not consumed:
 * {@code io.cqlrows.netty.rows.RowsFrameHandler} parses the heads and chunks of the streams
 * registered with it and passes the others on. A driver with its own framing can also build them
 * and fire them into a {@code RowsFrameHandler} (see docs/netty.md, "Drivers with their own
 * framing").
 *
 * <p>Holds no buffer, so it is not reference counted. Immutable.
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
