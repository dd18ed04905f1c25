package io.cqlrows.netty.rows;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.netty.frame.CqlFrameException;

/**
 * The response on one stream could not be used. Fired by {@link RowsFrameHandler} instead of a
 * {@link RowsResponse} when the RESULT parser rejects a body (the sink may have received part of
 * the rows), or when the frame decoder reports a frame-local error for a stream a sink was
 * registered for; then {@link CqlFrameException#connectionLevel()} is false and the connection goes
 * on. Also fired for every registered stream when the connection fails or closes; then it is true.
 * Not reference counted; holds no buffer.
 *
 * @param streamId the stream id of the failed response
 * @param cause the error; {@link CqlFrameException#parseError()} is the parser's, if any
 */
public record RowsFailure(int streamId, CqlFrameException cause) {
  /** The RESULT parser's error, or {@code null} if the frame failed before parsing. */
  public CqlParseException parseError() {
    return cause.parseError();
  }
}
