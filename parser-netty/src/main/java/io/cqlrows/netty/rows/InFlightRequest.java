package io.cqlrows.netty.rows;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * A request sent through {@link RowsFrameHandler#send}: its stream id, the future its response
 * completes, and the timer of its deadline. Used on the handler's event loop only.
 */
final class InFlightRequest {
  final int streamId;
  final CompletableFuture<RowsResponse> future;
  final Duration timeout;

  /** Fires at the deadline; cancelled when the request ends first. */
  ScheduledFuture<?> deadline;

  InFlightRequest(int streamId, CompletableFuture<RowsResponse> future, Duration timeout) {
    this.streamId = streamId;
    this.future = future;
    this.timeout = timeout;
  }

  /** Completes the future with the response; false if it had ended already. */
  boolean complete(RowsResponse response) {
    stopTimer();
    return future.complete(response);
  }

  /** Fails the future; false if it had ended already. */
  boolean fail(Throwable cause) {
    stopTimer();
    return future.completeExceptionally(cause);
  }

  /** Cancels the deadline's timer, if it has not fired. */
  void stopTimer() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }
}
