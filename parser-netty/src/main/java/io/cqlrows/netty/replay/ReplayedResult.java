package io.cqlrows.netty.replay;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.sink.Row;
import io.cqlrows.netty.CqlFrameException;
import java.util.List;

/**
 * One RESULT response of a replayed capture, in capture order: either its decoded result (with
 * the rows of a ROWS result) or the frame-local error that made it unusable.
 *
 * @param streamId the response's stream id
 * @param result the decoded result, or {@code null} if {@link #error} is set
 * @param rows the rows of a ROWS result (empty otherwise); cells of {@code No_metadata} results
 *     are raw bytes, because a server-to-client capture alone does not say which prepared
 *     statement an EXECUTE ran
 * @param error the frame-local error, or {@code null}
 */
public record ReplayedResult(int streamId, CqlResult result, List<Row> rows,
    CqlFrameException error) {
  /** Copies the rows. */
  public ReplayedResult {
    rows = List.copyOf(rows);
  }

  /** Whether this response could not be decoded. */
  public boolean failed() {
    return error != null;
  }
}
