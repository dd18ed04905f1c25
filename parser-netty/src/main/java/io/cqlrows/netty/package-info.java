/**
 * cqlrows in a Netty pipeline: {@link io.cqlrows.netty.CqlPipeline} installs the handlers of a
 * connection, owns every later change to them (the v5 switch to segments, streaming of large
 * results), writes STARTUP with the one compression it was given, and routes each response to the
 * sink registered for its stream. Responses come out as {@link io.cqlrows.netty.rows.RowsResponse}
 * and {@link io.cqlrows.netty.rows.RowsFailure}; the supported types of every package are listed in
 * {@code docs/api.md}.
 *
 * <p>Ownership: buffers handed to the pipeline belong to it; frames handed on belong to the next
 * handler. Threading: one {@code CqlPipeline} per channel, called from its event loop.
 */
package io.cqlrows.netty;
