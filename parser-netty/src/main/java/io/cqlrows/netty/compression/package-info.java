/**
 * Compression for the CQL protocol: {@link io.cqlrows.netty.internal.Decompressors} reads LZ4 and
 * Snappy frame bodies (v3/v4) and LZ4 segment payloads (v5), checking declared lengths against
 * limits before anything is allocated; {@link io.cqlrows.netty.internal.Compressors} writes LZ4
 * bodies and blocks for requests.
 *
 * <p>Inputs are borrowed; returned buffers are owned by the caller. Stateless and thread-safe.
 */
package io.cqlrows.netty.compression;
