package io.cqlrows.netty.frame;

import io.cqlrows.core.CqlParseException;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * A frame that cannot be accepted, with its severity and where it was found.
 *
 * <ul>
 *   <li><b>Connection-level</b> ({@link #connectionLevel()} true): the byte stream itself is
 *       broken (a header that is not a CQL header, a negative length, an unexpected compressed
 *       body, input ending inside a frame). Nothing after it can be trusted; the decoder discards
 *       all further input, and the connection should be closed.
 *   <li><b>Frame-local</b>: one well-delimited frame is unusable (a malformed prelude, a body the
 *       RESULT parser rejects, an over-long frame that was skipped). Only the request on {@link
 *       #streamId()} fails; decoding goes on with the next frame. When the RESULT parser rejected
 *       the body, the {@link #getCause() cause} is the {@link CqlParseException}.
 * </ul>
 *
 * <p>Immutable.
 */
public final class CqlFrameException extends CorruptedFrameException {
  private static final long serialVersionUID = 1L;

  /** The stream id of the frame, or -1 if unknown. */
  private final int streamId;
  /** True if the connection's byte stream is unusable from here on. */
  private final boolean connectionLevel;
  /** Byte offset in the connection's inbound byte stream, or -1 if unknown. */
  private final long offset;

  private CqlFrameException(
      String message, int streamId, boolean connectionLevel, long offset, Throwable cause) {
    super(message, cause);
    this.streamId = streamId;
    this.connectionLevel = connectionLevel;
    this.offset = offset;
  }

  /**
   * A connection-level error.
   *
   * @param offset byte offset in the connection's inbound stream (usually of the frame header),
   *     or -1 if unknown
   * @param detail what was wrong, in Netty's style ({@code "name: value (expected: ...)"})
   */
  public static CqlFrameException connectionError(long offset, String detail) {
    return connectionError(offset, detail, "frame header");
  }

  /**
   * A connection-level error at a named structure.
   *
   * @param offset byte offset in the connection's inbound stream of {@code what}, or -1
   * @param detail what was wrong
   * @param what the structure at the offset, e.g. {@code "segment header"}
   */
  public static CqlFrameException connectionError(long offset, String detail, String what) {
    String where = offset >= 0 ? " (" + what + " at offset " + offset + ")" : "";
    return new CqlFrameException(detail + where, -1, true, offset, null);
  }

  /**
   * A frame-local error: the frame on {@code streamId} is unusable, the connection is not.
   *
   * @param streamId the frame's stream id
   * @param offset byte offset in the connection's inbound stream of the problem (or of its
   *     frame), or -1 if unknown
   * @param detail what was wrong
   * @param cause the underlying error (a {@link CqlParseException} for a rejected body), or null
   */
  public static CqlFrameException frameError(
      int streamId, long offset, String detail, Throwable cause) {
    String where = offset >= 0 ? " (connection offset " + offset + ")" : "";
    return new CqlFrameException(
        "stream " + streamId + ": " + detail + where, streamId, false, offset, cause);
  }

  /**
   * A response whose body was being streamed when the connection failed or closed:
   * connection-level, for its stream, with the parser's TRUNCATED error (which names the last
   * complete row) as {@link #parseError()}.
   *
   * @param streamId the response's stream id
   * @param detail why the connection ended
   * @param cause {@link io.cqlrows.core.ResultStream#truncatedError()}
   */
  public static CqlFrameException truncatedStream(int streamId, String detail,
      CqlParseException cause) {
    return new CqlFrameException("stream " + streamId + ": " + detail + "; " + cause.getMessage(),
        streamId, true, -1, cause);
  }

  /** The stream id of the frame, or -1 when unknown (connection-level errors). */
  public int streamId() {
    return streamId;
  }

  /** True if the connection's byte stream is unusable from here on; false if only one frame is. */
  public boolean connectionLevel() {
    return connectionLevel;
  }

  /** Byte offset in the connection's inbound byte stream, or -1 if unknown. */
  public long offset() {
    return offset;
  }

  /** The RESULT parser's error if that is what rejected the frame, else {@code null}. */
  public CqlParseException parseError() {
    return getCause() instanceof CqlParseException e ? e : null;
  }
}
