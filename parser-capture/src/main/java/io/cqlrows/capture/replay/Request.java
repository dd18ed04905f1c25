package io.cqlrows.capture.replay;

import io.cqlrows.netty.frame.Opcode;
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
 */
public record Request(
    int streamId,
    Opcode opcode,
    String query,
    String preparedId,
    boolean skipMetadata,
    Map<String, String> options) {
  /** Copies the options. */
  public Request {
    options = Map.copyOf(options);
  }
}
