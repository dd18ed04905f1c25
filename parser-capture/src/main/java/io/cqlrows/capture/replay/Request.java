package io.cqlrows.capture.replay;

import io.cqlrows.netty.frame.Opcode;
import java.util.List;
import java.util.Map;

/**
 * What a replay needs to know of one client request (native_protocol_v5.spec section 4.1): its
 * stream, its kind, the CQL text of a QUERY or PREPARE, the statement id of an EXECUTE, and the
 * options of a STARTUP. Immutable.
 *
 * @param streamId the request's stream id
 * @param opcode the request kind
 * @param query the CQL text of a QUERY or PREPARE, else {@code null}
 * @param preparedId the statement id of an EXECUTE as lowercase hex with {@code 0x}, else null
 * @param skipMetadata whether an EXECUTE asked for {@code No_metadata} results
 * @param options the options of a STARTUP (e.g. {@code COMPRESSION}), else empty
 * @param batch the statements of a BATCH, in order, else empty
 * @param timestampNanos capture time of the packet that carried the request's last byte, in
 *     nanoseconds since the epoch; 0 when the capture has no times (raw byte streams)
 */
public record Request(
    int streamId,
    Opcode opcode,
    String query,
    String preparedId,
    boolean skipMetadata,
    Map<String, String> options,
    List<BatchStatement> batch,
    long timestampNanos) {
  /** Copies the options and the batch. */
  public Request {
    options = Map.copyOf(options);
    batch = List.copyOf(batch);
  }

  /**
   * One statement of a BATCH: CQL text, or the id of a prepared statement.
   *
   * @param query the CQL text, or null for a prepared statement
   * @param preparedId the statement id as lowercase hex with {@code 0x}, or null for a text
   */
  public record BatchStatement(String query, String preparedId) {}
}
