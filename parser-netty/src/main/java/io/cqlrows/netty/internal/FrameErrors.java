package io.cqlrows.netty.internal;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;

/**
 * The {@link CqlFrameException}s the decoders and handlers raise, one factory per shape: a
 * connection-level error at a named structure, a frame-local error for one stream, and the errors
 * that wrap a parser's {@link CqlParseException}. Each builds the exception with its public
 * constructor; this class only fixes the fields each shape sets.
 */
public final class FrameErrors {
  /** The structure a connection-level error names for a v3/v4 frame header. */
  private static final String FRAME_HEADER = "frame header";

  private FrameErrors() {}

  /**
   * A connection-level error at a frame header whose stream id was not read.
   *
   * @param reason what was wrong
   * @param offset byte offset of the frame header in the connection's inbound stream, or -1
   * @param detail what was expected and found, in Netty's style ({@code "name: value (expected:
   *     ...)"})
   * @return the error
   */
  public static CqlFrameException connectionError(Reason reason, long offset, String detail) {
    return connectionError(reason, offset, FRAME_HEADER, detail, null);
  }

  /**
   * A connection-level error at a named structure, for no particular stream.
   *
   * @param reason what was wrong
   * @param offset byte offset of {@code structure} in the connection's inbound stream, or -1
   * @param structure what is at the offset, e.g. {@code "segment header"}, {@code "end of input"};
   *     or {@code null}
   * @param detail what was expected and found
   * @param cause the underlying error, or {@code null}
   * @return the error
   */
  public static CqlFrameException connectionError(
      Reason reason, long offset, String structure, String detail, Throwable cause) {
    return new CqlFrameException(reason, true, -1, offset, structure, detail, cause);
  }

  /**
   * A connection-level error at a header whose stream id was read: the frame on {@code streamId}
   * broke the connection (its declared length is over the limit).
   *
   * @param reason what was wrong
   * @param streamId the stream id in the header
   * @param offset byte offset of {@code structure} in the connection's inbound stream, or -1
   * @param structure what is at the offset, e.g. {@code "frame header"}, {@code "envelope in
   *     segment"}
   * @param detail what was expected and found
   * @param cause the underlying error, or {@code null}
   * @return the error
   */
  public static CqlFrameException connectionError(
      Reason reason, int streamId, long offset, String structure, String detail, Throwable cause) {
    return new CqlFrameException(reason, true, streamId, offset, structure, detail, cause);
  }

  /**
   * A frame-local error: the frame on {@code streamId} is unusable, the connection is not.
   *
   * @param reason what was wrong
   * @param streamId the frame's stream id
   * @param offset byte offset of the problem (or of its frame) in the connection's inbound stream,
   *     or -1
   * @param detail what was expected and found
   * @param cause the underlying error, or {@code null}
   * @return the error
   */
  public static CqlFrameException frameError(
      Reason reason, int streamId, long offset, String detail, Throwable cause) {
    return new CqlFrameException(reason, false, streamId, offset, null, detail, cause);
  }

  /**
   * The frame-local error for a RESULT body the parser rejected: {@link Reason#BAD_RESULT}, at the
   * parser's offset within the body translated into the connection's stream.
   *
   * @param streamId the frame's stream id
   * @param bodyOffset offset of the body's first byte in the connection's stream, or -1
   * @param cause the parser's error
   * @return the error, whose {@link CqlFrameException#parseError()} is {@code cause}
   */
  public static CqlFrameException badResult(
      int streamId, long bodyOffset, CqlParseException cause) {
    long at = bodyOffset < 0 ? -1 : bodyOffset + Math.max(0, cause.offset());
    return frameError(Reason.BAD_RESULT, streamId, at, cause.getMessage(), cause);
  }

  /**
   * The frame-local error for a custom payload entry that cqlrows decodes and that is malformed:
   * {@link Reason#BAD_PAYLOAD}.
   *
   * @param streamId the frame's stream id
   * @param key the payload entry, e.g. {@code tablets-routing-v1}
   * @param cause the decoder's error
   * @return the error, whose {@link CqlFrameException#parseError()} is {@code cause}
   */
  public static CqlFrameException badPayload(int streamId, String key, CqlParseException cause) {
    return frameError(
        Reason.BAD_PAYLOAD,
        streamId,
        -1,
        "custom payload " + key + ": " + cause.getMessage(),
        cause);
  }

  /**
   * A response whose body was being streamed when the connection failed or closed:
   * connection-level, {@link Reason#TRUNCATED}, for its stream, with the parser's TRUNCATED error
   * (which names the last complete row) as {@link CqlFrameException#parseError()}.
   *
   * @param streamId the response's stream id
   * @param why why the connection ended
   * @param cause {@link io.cqlrows.core.ResultStream#truncatedError()}
   * @return the error
   */
  public static CqlFrameException truncatedStream(
      int streamId, String why, CqlParseException cause) {
    return new CqlFrameException(
        Reason.TRUNCATED, true, streamId, -1, null, why + "; " + cause.getMessage(), cause);
  }
}
