package io.cqlrows.netty.internal;

import io.netty.handler.codec.DecoderException;

/**
 * Compressed bytes that cannot be decompressed: corrupt data, a declared length that is a lie or
 * over the limit. The framing decoders turn it into a {@code CqlFrameException} with the offset,
 * keeping this as the cause: {@link Fault#LENGTH_OVER_LIMIT} into a frame-local one for the frame's
 * stream (the bytes may be honest, there are just too many), any other fault into a
 * connection-level one.
 */
public final class CompressionException extends DecoderException {
  private static final long serialVersionUID = 1L;

  /** What was wrong with the compressed bytes. */
  public enum Fault {
    /** The body ends before its declared uncompressed length (LZ4's 4 bytes, Snappy's varint). */
    NO_LENGTH,
    /**
     * A declared uncompressed length over the caller's limit that the compressed bytes could reach.
     */
    LENGTH_OVER_LIMIT,
    /**
     * A declared length more than the format's largest expansion ratio can reach: a lie, checked
     * before the limit.
     */
    IMPOSSIBLE_RATIO,
    /** The block decompressed to another length than declared, or left bytes over. */
    LENGTH_MISMATCH,
    /** The decompressor rejected the block (the cause says why). */
    CORRUPT
  }

  private final Fault fault;
  private final long declaredLength;

  CompressionException(Fault fault, long declaredLength, String message, Throwable cause) {
    super(message, cause);
    this.fault = fault;
    this.declaredLength = declaredLength;
  }

  /** What was wrong. */
  public Fault fault() {
    return fault;
  }

  /**
   * The uncompressed length the bytes declare (read unsigned, so never negative), or -1 when they
   * declare none.
   */
  public long declaredLength() {
    return declaredLength;
  }
}
