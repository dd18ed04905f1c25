/**
 * The RESULT/ROWS parser and its contract: {@link io.cqlrows.core.ResultReader} reads a RESULT body
 * (kind, metadata, rows) into a {@link io.cqlrows.core.RowSink}, handing vector cells over as
 * borrowed views ({@link io.cqlrows.core.FloatVector} and its siblings); the results and metadata
 * it returns live here too. {@link io.cqlrows.core.ParseLimits} bounds what untrusted input may
 * make it do; {@link io.cqlrows.core.CqlParseException} is the exception it throws, one kind of
 * {@link io.cqlrows.core.CqlException}. Ready-made sinks are in {@link io.cqlrows.core.sink}, the
 * type tree in {@link io.cqlrows.core.type}, decoded values in {@link io.cqlrows.core.value}.
 *
 * <p><b>Ownership.</b> The core borrows buffers and never owns them: it reads with absolute
 * indices, never retains, releases or copies a body, and never moves its indices.
 *
 * <p><b>Threading.</b> A {@code ResultReader} is used by one thread at a time (one per connection).
 * Types, column specs, metadata and results are immutable and may be shared.
 */
package io.cqlrows.core;
