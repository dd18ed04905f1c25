/**
 * Routing RESULT frames to row sinks: {@link io.cqlrows.netty.rows.RowsFrameHandler} parses the
 * response on each stream into the sink registered for it and fires a {@link
 * io.cqlrows.netty.rows.RowsResponse} or a frame-local {@link io.cqlrows.netty.rows.RowsFailure}.
 *
 * <p>Ownership: the handler releases the frames it parses, in {@code finally}; the messages it
 * fires hold no buffers. Sinks see borrowed buffers only. Threading: one handler per channel,
 * called from its event loop; not thread-safe.
 */
package io.cqlrows.netty.rows;
