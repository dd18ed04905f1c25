package io.cqlrows.client;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.rows.RowsResponse;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The outcome of a QUERY or EXECUTE: the parsed result (its rows went to the caller's sink), the
 * paging state to ask for the next page with, and the server's warnings. Immutable.
 *
 * @param result the parsed RESULT: a {@link RowsResult} for ROWS, else Void, Set_keyspace or
 *     Schema_change
 * @param warnings the server's warnings, empty if none
 * @param tablets the tablet routing information the server attached (ScyllaDB, {@link
 *     io.cqlrows.core.ProtocolFeatures#TABLETS_ROUTING_V1}), or {@code null}
 * @param tracingId the session id of the request's trace in {@code system_traces}, when it was sent
 *     with {@link io.cqlrows.netty.request.QueryParameters#withTracing tracing}; else {@code null}
 */
public record QueryResult(
    CqlResult result, List<String> warnings, TabletRouting tablets, UUID tracingId) {
  /** The result of a parsed response. */
  static QueryResult of(RowsResponse response) {
    return new QueryResult(
        response.result(),
        List.copyOf(response.warnings()),
        response.tablets(),
        response.tracingId());
  }

  /** The ROWS result, or {@code null} if the result is of another kind. */
  public RowsResult rows() {
    return result instanceof RowsResult r ? r : null;
  }

  /**
   * The paging state to pass to the next call for the next page; empty after the last page, and for
   * a result that is not ROWS.
   */
  public Optional<PagingState> pagingState() {
    RowsResult rows = rows();
    return rows == null ? Optional.empty() : rows.metadata().pagingState();
  }

  /** Whether there is a next page ({@link #pagingState()} is present). */
  public boolean hasMorePages() {
    return pagingState().isPresent();
  }
}
