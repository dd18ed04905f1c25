/**
 * What the decoders hand on (native_protocol_v4.spec sections 2 and 5, native_protocol_v5.spec
 * section 2): reference-counted {@link io.cqlrows.netty.frame.Frame}s with their prelude (tracing
 * id, warnings, custom payload) decoded, their {@link io.cqlrows.netty.frame.Opcode}; the response
 * bodies cqlrows decodes besides RESULT ({@link io.cqlrows.netty.frame.CqlServerError}, {@link
 * io.cqlrows.netty.frame.SupportedOptions}); and {@link io.cqlrows.netty.frame.CqlFrameException},
 * the error for bytes that cannot be accepted.
 *
 * <p>Ownership: a frame owns a retained slice of the input; whoever receives a frame releases it.
 * Threading: frames are immutable apart from their reference count and body indices.
 */
package io.cqlrows.netty.frame;
