/**
 * The RESULT/ROWS parser: {@link io.cqlrows.core.ResultReader} reads a RESULT body (kind,
 * metadata, rows) into a {@link io.cqlrows.core.sink.RowSink}; {@link io.cqlrows.core.ParseLimits}
 * bounds what untrusted input may make it do; {@link io.cqlrows.core.CqlParseException} is the one
 * exception it throws.
 *
 * <p><b>Ownership.</b> The core borrows buffers and never owns them: it reads with absolute
 * indices, never retains, releases or copies a body, and never moves its indices.
 *
 * <p><b>Threading.</b> A {@code ResultReader} is used by one thread at a time (one per
 * connection). Types, column specs, metadata and results are immutable and may be shared.
 */
package io.cqlrows.core;
