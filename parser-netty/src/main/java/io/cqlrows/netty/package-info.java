/**
 * Netty integration of cqlrows: {@link io.cqlrows.netty.CqlPipeline} installs the handlers under
 * public names, {@link io.cqlrows.netty.frame.CqlFrameException} reports unusable frames as
 * connection-level or frame-local.
 *
 * <p>Ownership: every handler releases what it consumes in {@code finally} and passes on what it
 * does not, ownership transferred. Threading: handlers are stateful, one instance per channel,
 * called from the channel's event loop only.
 */
package io.cqlrows.netty;
