package io.cqlrows.capture.replay;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;

/**
 * Receives the RESULT responses of a replayed connection, in capture order. Called on the replaying
 * thread.
 */
public interface ReplayListener {
  /**
   * A RESULT is about to be decoded.
   *
   * @return the sink for its rows, or {@code null} to skip decoding it
   */
  RowSink sinkFor(Response response);

  /** The RESULT was decoded into the sink that {@link #sinkFor} returned. */
  void onResult(Response response, CqlResult result);

  /** The RESULT (or ERROR) could not be decoded; the replay goes on (a frame-local error). */
  void onError(Response response, CqlFrameException error);

  /**
   * The server answered a request with an ERROR, decoded with the connection's extensions (a
   * ScyllaDB rate-limit error says so, see {@link CqlServerError#isRateLimitError()}). Ignored by
   * default.
   */
  default void onServerError(Response response, CqlServerError error) {}

  /**
   * Every frame of either direction, before anything else is done with it (for statistics).
   *
   * @param fromClient whether the client sent it
   * @param frame Borrowed: valid only during this call.
   */
  default void onFrame(boolean fromClient, io.cqlrows.netty.frame.Frame frame) {}

  /**
   * A capture that starts mid-connection, or bytes missing from one direction: {@code bytes} bytes
   * of that direction were skipped to reach the first frame or segment boundary that could be
   * proved, or after a gap inside a frame, the next frame, where that frame's length says.
   */
  default void onSkipped(boolean fromClient, int bytes) {}

  /** Bytes of the server's stream fed to the decoders so far (called after each read). */
  default void onProgress(long serverBytes) {}

  /**
   * Every response to a request (any opcode but EVENT), after the calls above that concern it
   * ({@link #onResult}, {@link #onServerError} or {@link #onError}), so that a listener can count
   * every exchange with its times.
   */
  default void onResponse(Response response) {}

  /**
   * A request whose response is not in the capture: a later request on the same stream was answered
   * first (a client reuses a stream only after its response), or the connection ended.
   */
  default void onUnanswered(Request request) {}

  /**
   * One response and what is known of the request it answers.
   *
   * @param connection a label for the connection, e.g. {@code 127.0.0.1:50412 -> 127.0.0.1:9042}
   * @param streamId the stream id
   * @param request the matching request, or {@code null} if the client side is unknown
   * @param query the CQL text of the request (for an EXECUTE, of its PREPARE), or null
   * @param tablets the {@link TabletRouting} of the response's custom payload, when the connection
   *     uses {@link io.cqlrows.core.ProtocolFeatures#TABLETS_ROUTING_V1} and the response has one;
   *     else {@code null}
   * @param opcode the response's opcode, or null if its frame could not be decoded
   * @param timestampNanos capture time of the packet that carried the response's last byte, in
   *     nanoseconds since the epoch; 0 when the capture has no times (raw byte streams)
   * @param envelopeBytes the size of the response envelope: its 9-byte header and its body,
   *     uncompressed; 0 if its frame could not be decoded
   */
  record Response(
      String connection,
      int streamId,
      Request request,
      String query,
      TabletRouting tablets,
      io.cqlrows.netty.frame.Opcode opcode,
      long timestampNanos,
      long envelopeBytes) {
    /**
     * The response time: from the request's last byte to the response's last byte, in nanoseconds,
     * or -1 when the request is unknown or the capture has no times.
     */
    public long elapsedNanos() {
      return request == null || request.timestampNanos() == 0 || timestampNanos == 0
          ? -1
          : timestampNanos - request.timestampNanos();
    }
  }
}
