/**
 * CQL framing (native_protocol_v4.spec sections 2 and 5, native_protocol_v5.spec section 2): {@link
 * io.cqlrows.netty.internal.BytesToFrameDecoder} turns a connection's bytes into reference-counted
 * {@link io.cqlrows.netty.frame.Frame}s with their prelude (tracing id, warnings, custom payload)
 * decoded; on v5 the segment decoders do the same after READY, and {@link
 * io.cqlrows.netty.internal.SegmentWriter} writes segments for the sending side.
 *
 * <p>Ownership: a frame owns a retained slice of the input; whoever receives a frame releases it.
 * Threading: the decoder is one instance per channel and not thread-safe; frames are immutable
 * apart from their reference count and body indices.
 */
package io.cqlrows.netty.frame;
