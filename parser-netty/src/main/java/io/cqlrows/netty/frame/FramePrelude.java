package io.cqlrows.netty.frame;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What precedes a message body inside a frame body (native_protocol_v5.spec sections 2.4.1.2 and
 * 4), in wire order: the tracing id (flag 0x02, responses only), the warnings (flag 0x08) and the
 * custom payload (flag 0x04).
 *
 * <p>Immutable, except that the {@code byte[]} payload values are shared, not copied: do not modify
 * them. Equality compares payload values by identity.
 *
 * @param tracingId the tracing session id, or {@code null} if the frame has none
 * @param warnings the server's warnings, empty if none
 * @param customPayload the custom payload in wire order, empty if none; a value is {@code null} for
 *     a negative {@code [bytes]} length
 */
public record FramePrelude(
    UUID tracingId, List<String> warnings, Map<String, byte[]> customPayload) {
  /** No tracing id, no warnings, no custom payload. */
  public static final FramePrelude NONE = new FramePrelude(null, List.of(), Map.of());

  /** Copies the warnings and the payload map into unmodifiable collections. */
  public FramePrelude {
    warnings = List.copyOf(warnings);
    // Map.copyOf rejects null values, which [bytes] allows
    customPayload =
        customPayload.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(customPayload));
  }
}
