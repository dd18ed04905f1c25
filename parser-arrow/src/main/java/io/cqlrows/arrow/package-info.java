/**
 * ROWS results as Apache Arrow: {@link io.cqlrows.arrow.ArrowSink} fills record batches from the
 * parser's events, {@link io.cqlrows.arrow.ArrowMapping} says which Arrow type each CQL type
 * becomes, and {@link io.cqlrows.arrow.ArrowIpcWriter} writes the batches as Arrow IPC files or
 * streams. Allocation goes through a caller-owned {@code BufferAllocator}; the module uses Arrow's
 * Unsafe allocator ({@code arrow-memory-unsafe}), and on JDK 17 and later the JVM needs {@code
 * --add-opens=java.base/java.nio=ALL-UNNAMED} for it.
 */
package io.cqlrows.arrow;
