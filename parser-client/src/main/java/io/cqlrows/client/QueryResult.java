package io.cqlrows.client;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.rows.RowsResponse;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The outcome of a QUERY or EXECUTE: the parsed result (its rows went to the caller's sink), the
 * paging state to ask for the next page with, and the server's warnings. Immutable.
 *
 * @param result the parsed RESULT: a {@link RowsResult} for ROWS, else Void, Set_keyspace or
 *     Schema_change
 * @param pagingState a read-only view of {@code paging_state} when {@code Has_more_pages} was set,
 *     else {@code null}; pass it to the next call as is
 * @param warnings the server's warnings, empty if none
 * @param tablets the tablet routing information the server attached (ScyllaDB, {@link
 *     io.cqlrows.core.ProtocolFeatures#TABLETS_ROUTING_V1}), or {@code null}
 */
public record QueryResult(
    CqlResult result, ByteBuffer pagingState, List<String> warnings, TabletRouting tablets) {
  /** The result of a parsed response. */
  static QueryResult of(RowsResponse response) {
    ByteBuffer pagingState = null;
    if (response.result() instanceof RowsResult rows && rows.metadata().hasMorePages()) {
      byte[] state = rows.metadata().pagingState();
      pagingState = state == null ? null : ByteBuffer.wrap(state).asReadOnlyBuffer();
    }
    return new QueryResult(
        response.result(), pagingState, List.copyOf(response.warnings()), response.tablets());
  }

  /** The ROWS result, or {@code null} if the result is of another kind. */
  public RowsResult rows() {
    return result instanceof RowsResult r ? r : null;
  }

  /** Whether there is a next page ({@link #pagingState()} is not null). */
  public boolean hasMorePages() {
    return pagingState != null;
  }
}
