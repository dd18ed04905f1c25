/**
 * Request encoders for protocol v4 and v5 (section 4.1 of native_protocol_v4.spec and v5.spec):
 * {@link io.cqlrows.netty.request.Requests} writes OPTIONS, STARTUP, QUERY, PREPARE and EXECUTE
 * envelopes (with v4 LZ4 bodies when negotiated), {@link io.cqlrows.netty.request.QueryParameters}
 * holds the {@code <query_parameters>} of QUERY and EXECUTE, and {@link
 * io.cqlrows.netty.internal.SegmentEncoder} packs envelopes into v5 segments on the way out.
 *
 * <p>Ownership: every encoded envelope or segment belongs to the caller (or to the next outbound
 * handler), which writes or releases it; values handed in are borrowed and read during the encoding
 * call. Threading: {@code Requests}, {@code QueryParameters} and {@code Consistency} are immutable
 * and thread-safe; {@code SegmentEncoder} is one instance per channel, used from its event loop.
 */
package io.cqlrows.netty.request;
