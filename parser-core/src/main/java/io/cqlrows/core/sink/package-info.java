/**
 * The sinks cqlrows ships, implementations of {@link io.cqlrows.core.RowSink}: {@link
 * io.cqlrows.core.sink.RowsCollector} (materialised rows with typed getters), {@link
 * io.cqlrows.core.sink.ColumnarSink} (primitive arrays, vector columns as one matrix), {@link
 * io.cqlrows.core.sink.JsonLinesSink} (the corpus's canonical JSON) and {@link
 * io.cqlrows.core.sink.CountingSink}.
 *
 * <p><b>Ownership.</b> Buffers and vector views passed to a sink are borrowed: valid only during
 * the call. Sinks that keep values copy them.
 *
 * <p><b>Threading.</b> Sinks are called by one thread at a time and are not thread-safe.
 */
package io.cqlrows.core.sink;
