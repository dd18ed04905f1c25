/**
 * Decompression for the CQL protocol: LZ4 and Snappy frame bodies (v3/v4) and LZ4 segment
 * payloads (v5). Declared lengths are checked against limits before anything is allocated.
 *
 * <p>Inputs are borrowed; returned buffers are owned by the caller. Stateless and thread-safe.
 */
package io.cqlrows.netty.compression;
