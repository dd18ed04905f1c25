package io.cqlrows.capture.replay;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.core.sink.Row;
import io.cqlrows.netty.frame.CqlFrameException;
import java.util.List;

/**
 * One RESULT response of a replayed capture, in capture order: either its decoded result (with the
 * rows of a ROWS result) or the frame-local error that made it unusable.
 *
 * @param connection the connection's label ({@code client -> server}, or the file name)
 * @param streamId the response's stream id
 * @param query the CQL text of the request it answers, or {@code null} if the client side is
 *     unknown
 * @param result the decoded result, or {@code null} if {@link #error} is set
 * @param rows the rows of a ROWS result (empty otherwise). Without the client side, cells of {@code
 *     No_metadata} results are raw bytes.
 * @param error the frame-local error, or {@code null}
 * @param tablets the tablet routing information of the response (ScyllaDB, {@link
 *     io.cqlrows.core.ProtocolFeatures#TABLETS_ROUTING_V1}), or {@code null}
 */
public record ReplayedResult(
    String connection,
    int streamId,
    String query,
    CqlResult result,
    List<Row> rows,
    CqlFrameException error,
    TabletRouting tablets) {
  /** Copies the rows. */
  public ReplayedResult {
    rows = List.copyOf(rows);
  }

  /** Whether this response could not be decoded. */
  public boolean failed() {
    return error != null;
  }
}
