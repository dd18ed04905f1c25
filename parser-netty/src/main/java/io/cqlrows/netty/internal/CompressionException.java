package io.cqlrows.netty.internal;

import io.netty.handler.codec.DecoderException;

/**
 * Compressed bytes that cannot be decompressed: corrupt data, a declared length that is a lie or
 * over the limit. The framing decoders turn it into a connection-level error with the offset.
 */
public final class CompressionException extends DecoderException {
  private static final long serialVersionUID = 1L;

  CompressionException(String message) {
    super(message);
  }

  CompressionException(String message, Throwable cause) {
    super(message, cause);
  }
}
