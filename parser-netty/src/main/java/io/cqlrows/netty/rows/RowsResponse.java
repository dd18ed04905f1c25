package io.cqlrows.netty.rows;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.TabletRouting;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A RESULT response that {@link RowsFrameHandler} parsed: its rows went to the sink registered for
 * the stream, this message summarises it. Not reference counted; holds no buffer.
 *
 * @param streamId the stream id of the response
 * @param result the parsed result (a {@link io.cqlrows.core.RowsResult} for ROWS)
 * @param flags the frame header flags
 * @param warnings the server's warnings, empty if none
 * @param tracingId the tracing session id, or {@code null}
 * @param customPayload the frame's custom payload, raw, empty if none
 * @param tablets the decoded {@value TabletRouting#PAYLOAD_KEY} entry of the custom payload when
 *     the connection uses {@link io.cqlrows.core.ProtocolFeatures#TABLETS_ROUTING_V1} (ScyllaDB),
 *     else {@code null}
 */
public record RowsResponse(
    int streamId,
    CqlResult result,
    int flags,
    List<String> warnings,
    UUID tracingId,
    Map<String, byte[]> customPayload,
    TabletRouting tablets) {}
